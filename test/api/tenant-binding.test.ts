/**
 * A key bound to a tenant never acts outside it (docs/api.md, "Tenants and keys";
 * src/http/authorize.ts): an admin key bound to tenant B walks every operation of /openapi.json
 * against tenant A's data (A's user, keys, tenant, webhook deliveries named in paths, queries and
 * bodies) and gets 403 for everything account-wide but reading configuration, and only B's rows
 * elsewhere; A's data and the account's configuration are the same after the walk. Then the
 * ways out of a bound key's tenant, one by one: an unbound key made by a bound one, a misspelt
 * `tenantId`, archiving and deleting other tenants, other tenants' users in the webhook delivery
 * lists, a webhook added for every tenant's events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

/** What only tenant A's data holds: never in a 2xx answered to B's key. */
const A_NAME = 'Alice Of Tenant A';
const A_EMAIL = 'alice-of-a@example.com';
const A_CUSTOMER = 'acme-tenant-a';
const A_TENANT_NAME = 'Acme Tenant A';

interface Operation {
  method: string;
  /** The path as the document writes it, below its server. */
  path: string;
  /** The path as sent: its server's prefix and the path. */
  url: string;
  body: unknown;
  /** Query parameters the operation takes. */
  query: string[];
}

describe('a key bound to a tenant', () => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let tenantA: string;
  let tenantB: string;
  let keyB: string;
  let keyBId: string;
  let keyA: { id: string; prefix: string };
  let webhookId: string;
  let deliveryA: string;
  let aliceKey: { id: string; key: string };
  let ids: Record<string, string> = {};

  /** A request as the key bound to B. */
  const asB = (method: string, path: string, opts: { body?: unknown; tenant?: string } = {}) => s.request(method, path, { ...opts, key: keyB });
  const work = async () => { await s.workers!.testing.drainNow(); return s.workers!.testing.webhooksNow(); };
  const allDeliveries = async (key?: string) =>
    (await s.request('GET', `/admin/v1/webhooks/${webhookId}/deliveries?limit=100`, { key })).body as
      { id: string; tenant: string; userId: string; payload: unknown }[];

  /** Everything of A and of the account a bound key could change: read as the account's key. */
  const stateOfA = async (): Promise<unknown> => {
    const read = async (path: string, tenant?: string) => {
      const r = await s.request('GET', path, { tenant });
      return { path, status: r.status, body: r.body };
    };
    return Promise.all([
      ...['/api/users/alice', '/api/users/alice/streak', '/api/users/alice/achievements', '/api/users/alice/metrics',
        '/api/users/alice/points/xp', '/api/users/alice/preferences', '/api/leaderboards/top', '/api/streaks/rankings']
        .map((p) => read(p, A_CUSTOMER)),
      ...['/admin/v1/tenants?limit=100', '/admin/v1/api-keys?limit=100', '/admin/v1/webhooks?limit=100', '/admin/v1/metrics?limit=100',
        '/admin/v1/attributes?limit=100', '/admin/v1/achievements?limit=100', '/admin/v1/points?limit=100',
        `/admin/v1/points/${ids.xp}/levels?limit=100`, '/admin/v1/leaderboards?limit=100', '/admin/v1/streaks/settings',
        '/admin/v1/notifications/settings', '/admin/v1/notifications/templates?limit=100', '/admin/v1/clock'].map((p) => read(p)),
      (async () => ({ aliceKey: (await s.request('GET', '/api/users/alice', { key: aliceKey.key })).status }))(),
    ]);
  };

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2026-06-01T10:00:00Z');
    ids = await s.metrics('lessons');
    const made = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'First', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 }],
    });
    expect(made.status, made.text).toBe(201);
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }],
        levels: [{ name: 'Bronze', key: 'bronze', points: 20 }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    ids.xp = xp.body.created[0].id;
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Top', key: 'top', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, status: 'active' }],
    });
    expect(board.status, board.text).toBe(201);
    const hookMade = await s.request('POST', '/admin/v1/webhooks', {
      body: [{ name: 'All', url: hook.url('/all'), events: ['achievement.completed', 'streak.started'] }],
    });
    expect(hookMade.status, hookMade.text).toBe(201);
    webhookId = hookMade.body.created[0].id;

    const tenants = await s.request('POST', '/admin/v1/tenants', {
      body: [{ customerId: A_CUSTOMER, name: A_TENANT_NAME }, { customerId: 'bravo-b', name: 'Bravo B' }],
    });
    expect(tenants.status, tenants.text).toBe(201);
    [tenantA, tenantB] = (tenants.body.created as { id: string }[]).map((t) => t.id);

    const bound = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: 'bravo-b', name: 'B admin' } });
    expect(bound.status, bound.text).toBe(201);
    expect(bound.body.tenantId).toBe(tenantB);
    keyB = bound.body.key;
    keyBId = bound.body.id;
    const a = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', tenantId: tenantA, name: 'A app' } });
    expect(a.status, a.text).toBe(201);
    keyA = { id: a.body.id, prefix: a.body.prefix };

    // A's user, with a name and an email only A's data holds; B's own user.
    const alice = await s.request('POST', '/api/metrics/lessons/event', {
      tenant: A_CUSTOMER, body: { user: { id: 'alice', name: A_NAME, email: A_EMAIL }, value: 1 },
    });
    expect(alice.status, alice.text).toBe(201);
    const bob = await s.request('POST', '/api/metrics/lessons/event', { tenant: 'bravo-b', body: { user: { id: 'bob', name: 'Bob B' }, value: 1 } });
    expect(bob.status, bob.text).toBe(201);
    const userKeys = await s.request('POST', '/admin/v1/application-api-keys', { tenant: A_CUSTOMER, body: [{ userId: 'alice' }] });
    expect(userKeys.status, userKeys.text).toBe(201);
    aliceKey = userKeys.body.created[0];

    await eventually(async () => {
      await work();
      const all = await allDeliveries();
      expect(all.filter((d) => d.tenant === tenantA).length).toBeGreaterThan(0);
      expect(all.filter((d) => d.tenant === tenantB).length).toBeGreaterThan(0);
      expect(JSON.stringify(all)).toContain(A_EMAIL);
    });
    deliveryA = (await allDeliveries()).find((d) => d.tenant === tenantA)!.id;
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  /** Every keyed operation of the document, its path parameters and body naming A's data. */
  const operations = async (): Promise<Operation[]> => {
    const doc = (await s.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: unknown[]; parameters?: { in?: string; name?: string; $ref?: string }[];
        requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }> & { servers?: { url: string }[] }>;
    };
    const out: Operation[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const op = item[method];
        if (op === undefined || (Array.isArray(op.security) && op.security.length === 0)) continue;
        const prefix = item.servers?.[0]?.url ?? '';
        const url = prefix + path.replace(/\{(\w+)\}/g, (_all, name: string) => encodeURIComponent(paramFor(path, name)));
        const schema = op.requestBody?.content['application/json']?.schema;
        const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name!);
        out.push({ method: method.toUpperCase(), path, url, body: schema === undefined ? undefined : sample(schema, ''), query });
      }
    }
    return out;
  };

  /** A path parameter naming A's data where the path has any. */
  const paramFor = (path: string, name: string): string => {
    if (name === 'key') return path.includes('/points/') ? 'xp' : path.includes('/leaderboards/') ? 'top' : path.includes('/achievements/') ? 'first' : 'lessons';
    if (name === 'systemId') return ids.xp;
    if (name === 'deliveryId') return deliveryA;
    if (path.startsWith('/admin/v1/tenants/')) return tenantA;
    if (path.startsWith('/admin/v1/api-keys/')) return keyA.id;
    if (path.startsWith('/admin/v1/webhooks/')) return webhookId;
    if (path.startsWith('/admin/v1/metrics/')) return ids.lessons;
    if (path.startsWith('/admin/v1/points/')) return ids.xp;
    return 'alice';
  };

  /** A body of a schema, each field aimed at A: its user, its tenant, its keys. */
  const sample = (schema: Record<string, unknown>, name: string): unknown => {
    const options = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
    if (options !== undefined) return sample(options[0], name);
    if (Array.isArray(schema.enum)) return schema.enum[0];
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'object': {
        const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
        return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v, k)]));
      }
      case 'array':
        return [sample((schema.items ?? {}) as Record<string, unknown>, name)];
      case 'integer':
      case 'number':
        return typeof schema.minimum === 'number' ? schema.minimum : 1;
      case 'boolean':
        return true;
      case 'string':
        if (/^tenant/i.test(name)) return tenantA;
        if (/^(user)?id$|userId/i.test(name)) return 'alice';
        if (/email/i.test(name)) return 'someone@example.com';
        if (/date|now|start|end|time/i.test(name)) return '2026-06-02T00:00:00Z';
        if (/url/i.test(name)) return hook.url('/b');
        return 'alice';
      default:
        return null;
    }
  };

  it('walks every operation of /openapi.json: 403 for the account-wide ones, and nothing of tenant A anywhere', async () => {
    const before = await stateOfA();
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(80);
    const refusedByRule: string[] = [];
    const seen: string[] = [];
    // Everything B sent so far: the audit log shows B its own writes, as sent.
    let sentByB = '';
    // Admin operations a bound key may call: every read, and the writes of its tenant's data or rows
    // (a user's erasure among them).
    const boundMay = (op: Operation) => op.method === 'GET' || !op.path.startsWith('/admin/') ||
      /^\/admin\/v1\/(api-keys|application-api-keys|metrics\/events|import|events\/void|users\/\{id\}(\/achievements\/\{key\}|\/exclusion)?|streaks\/(pauses|freezes|restore|reset)|webhooks\/\{id\}\/deliveries\/\{deliveryId\}\/retry)$/.test(op.path);
    for (const op of ops) {
      const query = op.query.includes('ids') ? `?ids=${encodeURIComponent([keyA.id, aliceKey.id, tenantA, webhookId].join(','))}`
        : op.query.includes('userId') ? '?userId=alice' : op.query.includes('userIds') ? '?userIds=alice' : '';
      for (const tenant of [undefined, A_CUSTOMER]) {
        const r = await asB(op.method, op.url + query, { body: op.body, tenant });
        sentByB += op.url + query + JSON.stringify(op.body ?? null);
        const what = `${op.method} ${op.url}${query}${tenant === undefined ? '' : ' (Tenant-ID A)'}: ${r.status} ${r.text.slice(0, 300)}`;
        seen.push(`${op.method} ${op.path} ${r.status}`);
        expect(r.status, what).toBeLessThan(500);
        if (tenant !== undefined) {
          // Naming another tenant is refused outright.
          expect(r.status, what).toBe(403);
          continue;
        }
        if (!boundMay(op)) {
          expect(r.status, what).toBe(403);
          expect(r.body.code, what).toBe('outside_tenant');
          refusedByRule.push(`${op.method} ${op.path}`);
          continue;
        }
        // Allowed, though a body that names A may still be refused (a key bound to A asked for).
        if (r.status === 403) expect(r.body.code, what).toBe('outside_tenant');
        if (r.status < 300) {
          // What the request itself named may be echoed (an issue naming an id it did not find), and
          // the audit log echoes what B's writes named.
          const sent = op.path === '/admin/v1/audit' ? sentByB : op.url + query + JSON.stringify(op.body ?? null);
          for (const secret of [A_NAME, A_EMAIL, A_CUSTOMER, A_TENANT_NAME, keyA.prefix, tenantA].filter((x) => !sent.includes(x))) {
            expect(r.text, `${what}\nholds tenant A's "${secret}"`).not.toContain(secret);
          }
        }
      }
    }
    // The account-wide writes were all refused: configuration, tenants, webhooks, the clock.
    for (const op of ['POST /admin/v1/metrics', 'PATCH /admin/v1/achievements', 'DELETE /admin/v1/tenants', 'PATCH /admin/v1/tenants',
      'POST /admin/v1/tenants', 'POST /admin/v1/webhooks', 'POST /admin/v1/webhooks/{id}/secret', 'PUT /admin/v1/clock',
      'PUT /admin/v1/streaks/settings', 'PUT /admin/v1/notifications/settings', 'POST /admin/v1/notifications/templates',
      'POST /admin/v1/points', 'POST /admin/v1/leaderboards']) {
      expect(refusedByRule, op).toContain(op);
    }
    expect(await stateOfA()).toEqual(before);
    // The walk met answers other than refusals (the allowed operations ran).
    expect(seen.filter((x) => / 2\d\d$/.test(x)).length).toBeGreaterThan(30);
  }, 120_000);

  it('creates keys bound to its own tenant only, whatever the body says', async () => {
    // No tenantId: bound to B (it used to make a key of the whole account).
    const plain = await asB('POST', '/admin/v1/api-keys', { body: { kind: 'admin' } });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.tenantId).toBe(tenantB);
    const readA = await s.request('GET', '/api/users/alice', { key: plain.body.key, tenant: A_CUSTOMER });
    expect(readA.status).toBe(403);
    expect((await s.request('GET', '/api/users/alice', { key: plain.body.key })).status).toBe(404);
    for (const body of [{ kind: 'admin', tenantId: null }, { kind: 'admin', tenantId: tenantA }, { kind: 'application', tenantId: A_CUSTOMER }]) {
      const r = await asB('POST', '/admin/v1/api-keys', { body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.code).toBe('outside_tenant');
    }
    const batch = await asB('POST', '/admin/v1/api-keys', { body: [{ kind: 'application', tenantId: tenantA }, { kind: 'application' }] });
    expect(batch.status, batch.text).toBe(201);
    expect(batch.body.created).toHaveLength(1);
    expect(batch.body.created[0].tenantId).toBe(tenantB);
    expect(batch.body.issues).toEqual([expect.objectContaining({ index: 0, severity: 'error', message: expect.stringContaining('own tenant') })]);
    // Its lists and reads show B's keys only; A's keys cannot be read or revoked.
    const listed = (await asB('GET', '/admin/v1/api-keys?limit=100')).body as { id: string; tenantId: string | null }[];
    expect(listed.length).toBeGreaterThan(1);
    expect(listed.every((k) => k.tenantId === tenantB)).toBe(true);
    expect(listed.map((k) => k.id)).toContain(keyBId);
    expect((await asB('GET', `/admin/v1/api-keys/${keyA.id}`)).status).toBe(404);
    const revoke = await asB('DELETE', `/admin/v1/api-keys?ids=${keyA.id}`);
    expect(revoke.body).toEqual({ deleted: [], issues: [expect.objectContaining({ id: keyA.id })] });
    expect((await s.request('GET', `/admin/v1/api-keys/${keyA.id}`)).status).toBe(200);
  });

  it('neither archives nor deletes another tenant, and lists its own only', async () => {
    for (const [method, path, body] of [
      ['PATCH', '/admin/v1/tenants', [{ id: tenantA, status: 'archived' }]],
      ['DELETE', `/admin/v1/tenants?ids=${tenantA}`, undefined],
      ['POST', '/admin/v1/tenants', [{ customerId: 'c-made-by-b', name: 'C' }]],
    ] as const) {
      const r = await asB(method, path, { body });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    expect((await s.request('GET', `/admin/v1/tenants/${tenantA}`)).body.status).toBe('active');
    expect((await asB('GET', '/admin/v1/tenants?limit=100')).body).toEqual([expect.objectContaining({ id: tenantB })]);
    expect((await asB('GET', `/admin/v1/tenants/${tenantA}`)).status).toBe(404);
    expect((await asB('GET', `/admin/v1/tenants/${tenantB}`)).body).toMatchObject({ id: tenantB, customerId: 'bravo-b' });
  });

  it('sees its own tenant\'s webhook deliveries only, and adds no webhook', async () => {
    const mine = await allDeliveries(keyB);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((d) => d.tenant === tenantB)).toBe(true);
    expect(JSON.stringify(mine)).not.toContain(A_EMAIL);
    expect(JSON.stringify(mine)).not.toContain(A_NAME);
    const retry = await asB('POST', `/admin/v1/webhooks/${webhookId}/deliveries/${deliveryA}/retry`);
    expect(retry.status).toBe(404);
    const own = await asB('POST', `/admin/v1/webhooks/${webhookId}/deliveries/${mine[0].id}/retry`);
    expect(own.status, own.text).toBe(200);
    const added = await asB('POST', '/admin/v1/webhooks', { body: [{ name: 'Mine', url: hook.url('/b'), events: ['streak.started'] }] });
    expect(added.status).toBe(403);
    expect((await asB('GET', '/admin/v1/webhooks?limit=100')).body).toHaveLength(1);
  });

  it('scopes the account key\'s webhook deliveries to the tenant its Tenant-ID names, and refuses a retry\'s body', async () => {
    const every = await allDeliveries();
    expect(new Set(every.map((d) => d.tenant))).toEqual(new Set([tenantA, tenantB]));
    const ofA = (await s.request('GET', `/admin/v1/webhooks/${webhookId}/deliveries?limit=100`, { tenant: A_CUSTOMER })).body as { tenant: string }[];
    expect(ofA.length).toBeGreaterThan(0);
    expect(ofA.every((d) => d.tenant === tenantA)).toBe(true);
    const ofB = every.find((d) => d.tenant === tenantB)!;
    expect((await s.request('POST', `/admin/v1/webhooks/${webhookId}/deliveries/${ofB.id}/retry`, { tenant: A_CUSTOMER })).status).toBe(404);
    const withField = await s.request('POST', `/admin/v1/webhooks/${webhookId}/deliveries/${deliveryA}/retry`, { body: { x: 1 } });
    expect(withField.status, withField.text).toBe(400);
    expect(withField.body.code).toBe('unknown_field');
    const rotate = await s.request('POST', `/admin/v1/webhooks/${webhookId}/secret`, { body: { keepOld: true } });
    expect(rotate.status, rotate.text).toBe(400);
    expect(rotate.body.code).toBe('unknown_field');
  });

  it('manages its own tenant\'s users, and never another tenant\'s', async () => {
    const freeze = await asB('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: 'bob' }] } });
    expect(freeze.status, freeze.text).toBe(200);
    const userKey = await asB('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'bob' }] });
    expect(userKey.status, userKey.text).toBe(201);
    expect((await s.request('GET', '/api/users/bob', { key: userKey.body.created[0].key })).status).toBe(200);
    // Revoking alice's key (of A) through B finds nothing.
    const revoke = await asB('DELETE', `/admin/v1/application-api-keys?ids=${aliceKey.id}`);
    expect(revoke.body.deleted).toEqual([]);
    expect((await s.request('GET', '/api/users/alice', { key: aliceKey.key })).status).toBe(200);
    // An application key bound to A cannot be used for B either way.
    expect((await asB('GET', '/api/users/alice')).status).toBe(404);
    expect((await asB('GET', '/api/users/bob')).status).toBe(200);
  });
});
