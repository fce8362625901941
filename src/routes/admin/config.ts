/**
 * Admin API: metrics, attributes, tenants (trophy-admin 1.21.1 shapes), API keys (docs/api.md) and the
 * manual clock.
 */
import type { Deps } from '../../engine/deps.js';
import { logTenantErasure, startTenantErasure } from '../../engine/erasure/tenant.js';
import { stillUsed, usesOfAttribute, usesOfMetric } from '../../domain/references.js';
import { generateKey, principalOf } from '../../http/auth.js';
import { fail } from '../../lib/errors.js';
import { parseInstant } from '../../domain/time.js';
import { json, ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Request, Route } from '../../http/server.js';
import { compile, compileCheck, lastError, parseJson, refusalOf, refuseBody } from '../../http/validate.js';
import { batchAnswer, batchOf, ID_PARAM, IDS_QUERY, idsOf, MAX_BATCH, PAGE_QUERY, pageOf, resourceRoutes, type Issue } from './resource.js';
import type { ApiKeyRecord, Attribute, Metric, MetricLimits, Tenant } from '../../model/entities.js';
import { LIMITS_SCHEMA } from '../../domain/limits.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { ApiKeyView, AttributeView, MetricView, TenantView } from '../../model/views.js';

const KEY_PATTERN = '^[a-zA-Z0-9_-]+$';
const key = { type: 'string', pattern: KEY_PATTERN, minLength: 1, maxLength: 100 };
const name = { type: 'string', minLength: 1, maxLength: 255 };
/**
 * A tenant's customerId: what the Tenant-ID header sends, so printable ASCII without white space
 * at either end (src/http/authorize.ts NOT_PRINTABLE_ASCII: the HTTP layer cannot read anything else as sent).
 */
const CUSTOMER_ID = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$' };

function metricView(m: Metric): MetricView {
  const view: MetricView = { id: m.id, name: m.name, key: m.key, unitType: m.unitType, units: m.units, status: m.status };
  // Only when set: a metric without one keeps Trophy's shape.
  if (m.limits != null) view.limits = { max: m.limits.max, period: m.limits.period };
  return view;
}

function checkUnits(unitType: string, units: string): string | null {
  if (unitType === 'currency' && !/^[A-Z]{3}$/.test(units)) {
    return 'units must be an ISO 4217 currency code such as USD when unitType is currency';
  }
  return null;
}

function attributeView(a: Attribute): AttributeView {
  return { id: a.id, name: a.name, key: a.key, type: a.type };
}

function tenantView(t: Tenant): TenantView {
  return { id: t.id, customerId: t.customerId, name: t.name, status: t.status, created: t.created, updated: t.updated };
}

function apiKeyView(k: ApiKeyRecord): ApiKeyView {
  return { id: k.id, name: k.name, kind: k.kind, tenantId: k.tenantId, prefix: k.prefix, created: k.created };
}

/** A tenant referenced by its uuid or its customer id. */
function findTenant(snapshot: Snapshot, ref: string): Tenant | undefined {
  return snapshot.tenants.get(ref) ?? snapshot.tenantsByCustomerId.get(ref);
}

interface ApiKeyCreate {
  kind: 'admin' | 'application';
  name?: string;
  tenantId?: string | null;
}

const checkApiKeyCreate = compileCheck<ApiKeyCreate>({
  type: 'object',
  required: ['kind'],
  properties: {
    kind: { enum: ['admin', 'application'] },
    name: { type: 'string', maxLength: 255 },
    tenantId: { type: ['string', 'null'], maxLength: 255 },
  },
});

const validateClock = compile<{ now: string }>({
  type: 'object', required: ['now'], properties: { now: { type: 'string', minLength: 10, maxLength: 64 } },
});

export function adminRoutes(deps: Deps): Route[] {
  const { store, clock, settings } = deps;
  const nowIso = () => new Date(clock.now()).toISOString();

  const metrics = resourceRoutes<'metrics', { name: string; key: string; unitType?: 'number' | 'currency'; units?: string; limits?: MetricLimits | null },
    { id: string; name?: string; unitType?: 'number' | 'currency'; units?: string; status?: 'active' | 'archived'; limits?: MetricLimits | null }>(deps, {
    kind: 'metrics',
    path: '/metrics',
    label: 'Metric',
    createSchema: {
      type: 'object', required: ['name', 'key'],
      properties: { name, key, unitType: { enum: ['number', 'currency'] }, units: { type: 'string', maxLength: 32 }, limits: LIMITS_SCHEMA },
    },
    updateSchema: {
      type: 'object', required: ['id'],
      properties: {
        id: { type: 'string' }, name, unitType: { enum: ['number', 'currency'] }, units: { type: 'string', maxLength: 32 },
        status: { enum: ['active', 'archived'] }, limits: LIMITS_SCHEMA,
      },
    },
    build: (item, { id, now }) => {
      const unitType = item.unitType ?? 'number';
      const units = item.units ?? '';
      const metric: Metric = { id, key: item.key, name: item.name, unitType, units, status: 'active', created: now, updated: now };
      if (item.limits != null) metric.limits = { max: item.limits.max, period: item.limits.period };
      return checkUnits(unitType, units) ?? metric;
    },
    apply: (m, c, { now }) => {
      const next: Metric = {
        ...m, name: c.name ?? m.name, unitType: c.unitType ?? m.unitType, units: c.units ?? m.units,
        status: c.status ?? m.status, updated: now,
      };
      // null takes the limit off; absent keeps it.
      if (c.limits === null) delete next.limits;
      else if (c.limits !== undefined) next.limits = { max: c.limits.max, period: c.limits.period };
      return checkUnits(next.unitType, next.units) ?? next;
    },
    view: metricView,
    refuseDelete: (m, snapshot) => stillUsed(`Metric "${m.key}"`, usesOfMetric(snapshot, m.id)),
  });

  const attributes = resourceRoutes<'attributes', { name: string; key: string; type: 'user' | 'event' }, { id: string; name?: string }>(deps, {
    kind: 'attributes',
    path: '/attributes',
    label: 'Attribute',
    createSchema: {
      type: 'object', required: ['name', 'key', 'type'], properties: { name, key, type: { enum: ['user', 'event'] } },
    },
    updateSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, name } },
    build: (item, { id, now }) => ({ id, key: item.key, name: item.name, type: item.type, created: now, updated: now }),
    apply: (a, c, { now }) => ({ ...a, name: c.name ?? a.name, updated: now }),
    refuseDelete: (a, snapshot) => stillUsed(`Attribute "${a.key}"`, usesOfAttribute(snapshot, a.id)),
    view: attributeView,
  });

  /**
   * A tenant is named by its id or its customerId (a path, a body, the Tenant-ID header): a
   * customerId that is another tenant's id would name two.
   */
  const otherTenantsId = (snapshot: Snapshot, customerId: string, own: string): string | undefined =>
    customerId !== own && snapshot.get('tenants', customerId) !== undefined ? `customerId "${customerId}" is the id of another tenant` : undefined;

  const tenants = resourceRoutes<'tenants', { customerId: string; name: string },
    { id: string; customerId?: string; name?: string; status?: 'active' | 'archived' }>(deps, {
    kind: 'tenants',
    path: '/tenants',
    label: 'Tenant',
    createSchema: {
      type: 'object', required: ['customerId', 'name'],
      properties: { customerId: CUSTOMER_ID, name },
    },
    updateSchema: {
      type: 'object', required: ['id'],
      properties: {
        id: { type: 'string' }, customerId: CUSTOMER_ID, name,
        status: { enum: ['active', 'archived'] },
      },
    },
    build: (item, { id, now, snapshot }) => otherTenantsId(snapshot, item.customerId, id) ?? ({
      id, customerId: item.customerId, name: item.name, status: 'active', created: now, updated: now,
    }),
    apply: (t, c, { now, snapshot }) => (c.customerId === undefined ? undefined : otherTenantsId(snapshot, c.customerId, t.id)) ?? ({
      ...t, customerId: c.customerId ?? t.customerId, name: c.name ?? t.name, status: c.status ?? t.status, updated: now,
    }),
    view: tenantView,
    tenantOf: (t) => t.id,
    alsoNamed: (snapshot, ref) => snapshot.tenantsByCustomerId.get(ref),
    // Its users' data goes with it, and the keys bound to it: the erasure's record is written
    // before, the keys revoked and its log entries appended after, and the workers erase the data
    // (src/engine/erasure/tenant.ts), so the answer waits for no walk of the keyspace. The
    // answer's item names the erasure.
    beforeDelete: async (t) => ({ erasureId: await startTenantErasure(deps, t.id) }),
    afterDelete: async (t, { erasureId }) => {
      for (const k of store.current.list('apikeys').filter((x) => x.tenantId === t.id)) await store.delete('apikeys', k.id);
      await logTenantErasure(deps, erasureId, t.id, deps.clock.now());
    },
  });

  /** Whether the request may see or revoke a key: a key bound to a tenant, only keys bound to it. */
  const keyVisible = (req: Request, k: ApiKeyRecord): boolean => {
    const { bound } = principalOf(req);
    return bound === null || k.tenantId === bound;
  };
  /**
   * The tenant a new key is bound to: the one the item names (by id or customer id), else none; a
   * key bound to a tenant creates keys bound to its own tenant only (naming none binds to it).
   * A string refuses the item: its message, and whether it is a 403 rather than a 422.
   */
  const bindingOf = (req: Request, item: ApiKeyCreate): { tenantId: string | null } | { refused: string; forbidden: boolean } => {
    const { bound } = principalOf(req);
    if (item.tenantId == null) {
      if (bound !== null && item.tenantId === null) {
        return { refused: 'it creates keys bound to its own tenant only, not tenantId null', forbidden: true };
      }
      return { tenantId: bound };
    }
    const tenant = findTenant(store.current, item.tenantId);
    if (bound !== null && tenant?.id !== bound) {
      return { refused: `it creates keys bound to its own tenant only, not to "${item.tenantId}"`, forbidden: true };
    }
    if (tenant === undefined) return { refused: `Tenant "${item.tenantId}" not found`, forbidden: false };
    return { tenantId: tenant.id };
  };

  const apiKeys: Route[] = [
    {
      method: 'post', path: '/api-keys', family: 'admin', reach: 'rows',
      doc: {
        summary: 'Create API keys, each answered once with its secret',
        description: 'One key alone is answered as the key (201); an array as { created, issues }.',
        body: { check: checkApiKeyCreate, batch: MAX_BATCH, orOne: true }, success: [201, 200], refusals: [422],
      },
      handler: async (req) => {
        const body = parseJson(req.body);
        const single = !Array.isArray(body);
        const items = single ? [body] : batchOf(req);
        const created: unknown[] = [];
        const issues: Issue[] = [];
        for (let index = 0; index < items.length; index++) {
          const item = items[index];
          if (!checkApiKeyCreate(item)) {
            if (single) throw refusalOf(checkApiKeyCreate);
            issues.push({ index, severity: 'error', message: lastError(checkApiKeyCreate) });
            continue;
          }
          const binding = bindingOf(req, item);
          if ('refused' in binding) {
            const refusal = binding.forbidden ? fail('outside_tenant', binding.refused) : fail('unprocessable', binding.refused);
            if (single) throw refusal;
            issues.push({ index, severity: 'error', message: refusal.message });
            continue;
          }
          const fresh = generateKey(item.kind, item.name ?? `${item.kind} key`, binding.tenantId, nowIso());
          await store.put('apikeys', 'create', fresh.record);
          created.push({ ...apiKeyView(fresh.record), key: fresh.key });
        }
        if (single) return json(201, created[0]);
        return json(created.length > 0 ? 201 : 200, { created, issues });
      },
    },
    {
      method: 'get', path: '/api-keys', family: 'admin', reach: 'rows',
      doc: { summary: 'List API keys (without their secrets)', query: PAGE_QUERY, success: [200], response: { type: 'array' } },
      handler: (req) => {
        const { limit, skip } = pageOf(queryOf(req));
        return ok(store.current.list('apikeys').filter((k) => keyVisible(req, k)).slice(skip, skip + limit).map(apiKeyView));
      },
    },
    {
      method: 'get', path: '/api-keys/:id', family: 'admin', reach: 'rows',
      doc: { summary: 'Get an API key (without its secret)', params: { id: ID_PARAM }, success: [200] },
      handler: (req) => {
        const k = store.current.apiKeys.get(req.params[0]);
        if (k === undefined || !keyVisible(req, k)) throw fail('not_found', `API key "${req.params[0]}"`);
        return ok(apiKeyView(k));
      },
    },
    {
      method: 'del', path: '/api-keys', family: 'admin', reach: 'rows',
      doc: { summary: 'Revoke API keys (never the last admin key)', query: [IDS_QUERY], success: [200], response: batchAnswer('deleted') },
      handler: async (req) => {
        refuseBody(req.body);
        const deleted: { id: string }[] = [];
        const issues: Issue[] = [];
        for (const id of idsOf(queryOf(req))) {
          const found = store.current.apiKeys.get(id);
          const k = found !== undefined && keyVisible(req, found) ? found : undefined;
          const admins = store.current.list('apikeys').filter((x) => x.kind === 'admin' && x.tenantId === null);
          if (k && k.kind === 'admin' && k.tenantId === null && admins.length <= 1) {
            issues.push({ id, severity: 'error', message: 'The last admin key cannot be revoked; create another admin key first' });
          } else if (k !== undefined && await store.delete('apikeys', id)) {
            deleted.push({ id });
          } else {
            issues.push({ id, severity: 'error', message: `API key "${id}" not found` });
          }
        }
        return ok({ deleted, issues });
      },
    },
  ];

  const clockRoutes: Route[] = [
    {
      method: 'put', path: '/clock', family: 'admin', reach: 'account',
      doc: { summary: 'Set the manual clock (LAUREL_CLOCK=manual only; a 404 otherwise)', body: { check: validateClock }, success: [200] },
      handler: async (req) => {
        if (settings.clock !== 'manual') throw fail('route_not_found', req.method, req.url);
        const body = validateClock(parseJson(req.body));
        const ms = parseInstant(body.now);
        if (ms === null) {
          throw fail('invalid_body', `now must be an ISO-8601 date-time of a day that exists, from 1970-01-01 to 9999-12-31, such as 2026-01-31T12:00:00Z, got "${body.now}"`);
        }
        await store.setClock(ms);
        return ok({ now: new Date(ms).toISOString(), mode: 'manual' });
      },
    },
    {
      method: 'get', path: '/clock', family: 'admin', reach: 'configuration',
      doc: { summary: 'Read the manual clock (LAUREL_CLOCK=manual only; a 404 otherwise)', success: [200] },
      handler: (req) => {
        if (settings.clock !== 'manual') throw fail('route_not_found', req.method, req.url);
        return ok({ now: nowIso(), mode: 'manual' });
      },
    },
  ];

  return [...metrics, ...attributes, ...tenants, ...apiKeys, ...clockRoutes];
}
