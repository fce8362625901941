/**
 * API keys and tenants. Keys are stored as sha256 hashes and shown once. An `admin` key may call
 * everything; an `application` key the Application API only. A key bound to a tenant acts for
 * that tenant (without a Tenant-ID header too) and is refused for any other.
 *
 * With LAUREL_RATE_LIMIT every key has a rate limit (src/engine/rate-limit.ts): one more Redis call
 * per request. The operations endpoints take no key and have no limit.
 */
import { createHash, randomBytes } from 'node:crypto';
import { uuidv7 } from '../domain/ids.js';
import { fail } from '../lib/errors.js';
import type { Request, Route } from './server.js';
import type { ConfigStore } from '../config/store.js';
import type { RateLimiter } from '../engine/rate-limit.js';
import { DEFAULT_TENANT } from '../redis/keys.js';
import type { ApiKeyRecord, Tenant } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';

export interface Principal {
  key: ApiKeyRecord;
  /** The tenant's storage id: DEFAULT_TENANT or the tenant's uuid. */
  tenant: string;
  /** The tenant record; null for the default tenant. */
  tenantRecord: Tenant | null;
}

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export interface NewKey {
  record: ApiKeyRecord;
  /** The whole key: shown once, never stored. */
  key: string;
}

export function generateKey(kind: 'admin' | 'application', name: string, tenantId: string | null, now: string): NewKey {
  const prefix = `lrl_${kind === 'admin' ? 'adm' : 'app'}_${randomBytes(6).toString('hex')}`;
  const key = `${prefix}.${randomBytes(24).toString('base64url')}`;
  return { key, record: { id: uuidv7(), name, kind, tenantId, prefix, hash: hashKey(key), created: now } };
}

/** The record of a key given from outside (LAUREL_ADMIN_KEY): only its hash is kept. */
export function externalKeyRecord(raw: string, name: string, now: string): ApiKeyRecord {
  return { id: uuidv7(), name, kind: 'admin', tenantId: null, prefix: `${raw.slice(0, 4)}…`, hash: hashKey(raw), created: now };
}

export class Authenticator {
  private readonly store: ConfigStore;
  private readonly limiter: RateLimiter | null;
  /** Raw key -> record, so the hash is computed once per key and configuration version. */
  private cache = new Map<string, ApiKeyRecord | null>();
  private cacheVersion = -1;

  constructor(store: ConfigStore, limiter: RateLimiter | null) {
    this.store = store;
    this.limiter = limiter;
  }

  private lookup(snapshot: Snapshot, raw: string): ApiKeyRecord | null {
    if (snapshot.version !== this.cacheVersion || this.cache.size > 10_000) {
      this.cache = new Map();
      this.cacheVersion = snapshot.version;
    }
    let record = this.cache.get(raw);
    if (record === undefined) {
      record = snapshot.apiKeysByHash.get(hashKey(raw)) ?? null;
      this.cache.set(raw, record);
    }
    return record;
  }

  /**
   * The guard of the HTTP layer: authenticates, checks the key's kind and resolves the tenant;
   * answers a promise when Redis has a say (a rate limit), else nothing.
   */
  readonly guard = (req: Request, route: Route): void | Promise<void> => {
    const family = route.family;
    if (family === 'ops') return;
    if (this.store.restoring) throw fail('unavailable', 'laurel restore is rebuilding Redis from Postgres; retry shortly');
    const snapshot = this.store.current;
    if (req.apiKey === '') throw fail('unauthorized');
    const key = this.lookup(snapshot, req.apiKey);
    if (key === null) throw fail('unauthorized');
    if (family === 'admin' && key.kind !== 'admin') throw fail('wrong_key_kind');
    req.principal = resolveTenant(snapshot, key, req.tenantHeader);
    if (this.limiter !== null) return this.limiter.take(key.id);
  };
}

/**
 * A header value as uWebSockets.js hands it over: each byte a character, and bytes above 0x7F
 * dropped at either end of the value (its parser trims them with the white space). So a value
 * outside printable ASCII cannot be read as sent; where one shows, it is refused (400) rather than
 * taken for another (`acmé` arrives as `acm`). Idempotency-Key and Tenant-ID are printable ASCII.
 */
export const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

function resolveTenant(snapshot: Snapshot, key: ApiKeyRecord, header: string): Principal {
  if (NOT_PRINTABLE_ASCII.test(header)) throw fail('invalid_header', 'Tenant-ID must be printable ASCII');
  if (key.tenantId !== null) {
    const bound = snapshot.tenants.get(key.tenantId);
    if (!bound || bound.status !== 'active') throw fail('tenant_not_found', header || key.tenantId);
    if (header !== '' && header !== bound.customerId) throw fail('wrong_tenant', header);
    return { key, tenant: bound.id, tenantRecord: bound };
  }
  if (header === '') return { key, tenant: DEFAULT_TENANT, tenantRecord: null };
  const tenant = snapshot.tenantsByCustomerId.get(header);
  if (!tenant || tenant.status !== 'active') throw fail('tenant_not_found', header);
  return { key, tenant: tenant.id, tenantRecord: tenant };
}

export function principalOf(req: Request): Principal {
  return req.principal as Principal;
}
