/**
 * The one authorization of every route but the operations' (docs/api.md, "Tenants and keys"), once the
 * key is known (src/http/auth.ts): the key's kind against the route's family, its binding against
 * the tenant the request names, a user-scoped key against the users the request names
 * (src/http/subject.ts), and a bound key against the route's reach (src/http/server.ts `Reach`).
 *
 * A key bound to a tenant never acts outside it: it acts for its tenant (without a Tenant-ID
 * header too) and is refused for any other; on the Admin API it may call the routes of its
 * tenant's data (`tenant`), the lists and writes of rows that each belong to one tenant, held to its
 * own by their handlers (`rows`: the handlers read `Principal.bound`), and read account-wide
 * configuration (`configuration`, GET only); everything else account-wide is refused (403
 * `outside_tenant`).
 */
import { fail } from '../lib/errors.js';
import { DEFAULT_TENANT } from '../redis/keys.js';
import type { Tenant } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';
import { checkSubject } from './subject.js';
import type { Reach, Request, Route } from './server.js';

export interface Principal {
  /** The id of the key the request came with. */
  keyId: string;
  /** The tenant's storage id: DEFAULT_TENANT or the tenant's uuid. */
  tenant: string;
  /** The tenant record; null for the default tenant. */
  tenantRecord: Tenant | null;
  /** The user a user-scoped key acts for; null for the account's keys. */
  user: string | null;
  /**
   * The tenant the key is bound to (its storage id, then equal to `tenant`), or null for a key of
   * the whole account: a handler of a `rows` route shows and touches this tenant's rows only.
   */
  bound: string | null;
}

/** A key as authorization needs it. */
export interface Holder {
  id: string;
  kind: 'admin' | 'application';
  /** The tenant it is bound to (storage id), or null. */
  tenantId: string | null;
  /** The user a user-scoped key acts for, or null. */
  user: string | null;
}

/**
 * A header value as uWebSockets.js hands it over: each byte a character, and bytes above 0x7F
 * dropped at either end of the value (its parser trims them with the white space). So a value
 * outside printable ASCII cannot be read as sent; where one shows, it is refused (400) rather than
 * taken for another. Idempotency-Key and Tenant-ID are printable ASCII.
 */
export const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/** The reach of a route for a key bound to a tenant. */
export function reachOf(route: Route): Reach {
  if (route.reach !== undefined) return route.reach;
  return route.family === 'app' || route.doc.tenant === true ? 'tenant' : 'account';
}

/** Whether a key bound to a tenant may call the route (its handler then holds it to its tenant). */
export function boundMayCall(route: Route): boolean {
  switch (reachOf(route)) {
    case 'tenant':
    case 'rows':
      return true;
    case 'configuration':
      return route.method === 'get';
    default:
      return false;
  }
}

/**
 * Authorizes a request of `holder` on `route`, and sets its principal; throws the refusal (403, or
 * 404 for a tenant that does not exist).
 */
export function authorize(snapshot: Snapshot, req: Request, route: Route, holder: Holder): Principal {
  if (route.family === 'admin' && holder.kind !== 'admin') throw fail('wrong_key_kind');
  if (holder.kind === 'admin') req.adminKey = { id: holder.id, tenantId: holder.tenantId };
  const principal = resolveTenant(snapshot, holder, req.tenantHeader);
  req.principal = principal;
  if (holder.user !== null) checkSubject(req, route, holder.user);
  if (principal.bound !== null && !boundMayCall(route)) {
    throw fail('outside_tenant', `${req.method} ${req.url} acts on the whole account, which it may only read where it is configuration`);
  }
  return principal;
}

/**
 * Who a request acts as: the key's tenant when the key is bound to one (a user-scoped key always is,
 * to the default tenant too), else the Tenant-ID header's, or the default tenant without one.
 */
function resolveTenant(snapshot: Snapshot, holder: Holder, header: string): Principal {
  if (NOT_PRINTABLE_ASCII.test(header)) throw fail('invalid_header', 'Tenant-ID must be printable ASCII');
  const { id: keyId, tenantId: boundTo, user } = holder;
  if (boundTo === DEFAULT_TENANT) {
    if (header !== '') throw fail('wrong_tenant', header);
    return { keyId, tenant: DEFAULT_TENANT, tenantRecord: null, user, bound: DEFAULT_TENANT };
  }
  if (boundTo !== null) {
    const bound = snapshot.tenants.get(boundTo);
    if (!bound || bound.status !== 'active') throw fail('tenant_not_found', header || boundTo);
    if (header !== '' && header !== bound.customerId) throw fail('wrong_tenant', header);
    return { keyId, tenant: bound.id, tenantRecord: bound, user, bound: bound.id };
  }
  if (header === '') return { keyId, tenant: DEFAULT_TENANT, tenantRecord: null, user, bound: null };
  const tenant = snapshot.tenantsByCustomerId.get(header);
  if (!tenant || tenant.status !== 'active') throw fail('tenant_not_found', header);
  return { keyId, tenant: tenant.id, tenantRecord: tenant, user, bound: null };
}
