/**
 * Admin API resources, API keys and tenants: the `{ created, issues }` pattern, key kinds, hashed
 * storage, tenant-bound keys and tenant isolation.
 */
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';

const s = useTestServer();


describe('admin resources', () => {
  it('creates metrics from an array: 201 with created and per-item issues', async () => {
    const r = await s.request('POST', '/admin/v1/metrics', {
      body: [
        { name: 'Lessons', key: 'lessons' },
        { name: 'Revenue', key: 'revenue', unitType: 'currency', units: 'EUR' },
        { name: 'Bad key', key: 'no spaces' },
        { name: 'Dup', key: 'lessons' },
        { name: 'Money', key: 'money', unitType: 'currency' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.created).toEqual([
      { id: expect.any(String), name: 'Lessons', key: 'lessons', unitType: 'number', units: '', status: 'active' },
      { id: expect.any(String), name: 'Revenue', key: 'revenue', unitType: 'currency', units: 'EUR', status: 'active' },
    ]);
    expect(r.body.issues).toEqual([
      { index: 2, severity: 'error', message: expect.stringContaining('key') },
      { index: 3, severity: 'error', message: 'A metric with key "lessons" already exists' },
      { index: 4, severity: 'error', message: expect.stringContaining('currency') },
    ]);
  });

  it('answers 200 when nothing was created', async () => {
    const r = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Again', key: 'lessons' }] });
    expect(r.status).toBe(200);
    expect(r.body.created).toEqual([]);
  });

  it('refuses bodies that are not arrays of 1 to 100 items', async () => {
    expect((await s.request('POST', '/admin/v1/metrics', { body: { name: 'x', key: 'x' } })).status).toBe(400);
    expect((await s.request('POST', '/admin/v1/metrics', { body: [] })).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => ({ name: `m${i}`, key: `m${i}` }));
    expect((await s.request('POST', '/admin/v1/metrics', { body: many })).status).toBe(400);
  });

  it('lists with limit and skip, gets by id, 404 for unknown ids', async () => {
    await s.request('POST', '/admin/v1/attributes', {
      body: ['a1', 'a2', 'a3'].map((key) => ({ name: key.toUpperCase(), key, type: key === 'a3' ? 'event' : 'user' })),
    });
    const page = await s.request('GET', '/admin/v1/attributes?limit=2&skip=1');
    expect(page.body.map((a: any) => a.key)).toEqual(['a2', 'a3']);
    const one = await s.request('GET', `/admin/v1/attributes/${page.body[1].id}`);
    expect(one.body).toEqual({ id: page.body[1].id, name: 'A3', key: 'a3', type: 'event' });
    expect((await s.request('GET', '/admin/v1/attributes/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await s.request('GET', '/admin/v1/attributes?limit=0')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/attributes?limit=101')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/attributes?skip=-1')).status).toBe(400);
  });

  it('refuses to delete an attribute that achievements, points triggers or boosts filter by, naming them', async () => {
    await s.attributes('user', 'tier');
    await s.attributes('event', 'channel');
    const all = (await s.request('GET', '/admin/v1/attributes?limit=100')).body;
    const tier = all.find((a: any) => a.key === 'tier').id as string;
    const channel = all.find((a: any) => a.key === 'channel').id as string;
    const { strides: steps } = await s.metrics('strides');
    const a = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'Walker', key: 'walker', trigger: 'metric', metricId: steps, metricValue: 10, userAttributes: [{ attributeId: tier, attributeValue: 'gold' }] }],
    });
    expect(a.status, a.text).toBe(201);
    const p = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'Steps XP', key: 'steps-xp',
        triggers: [{ type: 'metric', points: 1, metricId: steps, metricThreshold: 1, eventAttributes: [{ attributeId: channel, attributeValue: 'app' }] }],
        boosts: [{ name: 'Gold week', start: '2024-06-01', multiplier: 2, userAttributes: [{ attributeId: tier, attributeValue: 'gold' }] }],
      }],
    });
    expect(p.status, p.text).toBe(201);
    const d = await s.request('DELETE', `/admin/v1/attributes?ids=${tier},${channel}`);
    expect(d.status, d.text).toBe(200);
    expect(d.body).toEqual({
      deleted: [],
      issues: [
        { id: tier, severity: 'error', message: 'Attribute "tier" is used by achievement "walker", boost "Gold week" of points system "steps-xp"; change those first' },
        { id: channel, severity: 'error', message: 'Attribute "channel" is used by a trigger of points system "steps-xp"; change those first' },
      ],
    });
    // Once nothing names them, they go.
    await s.request('DELETE', `/admin/v1/points?ids=${p.body.created[0].id}`);
    await s.request('DELETE', `/admin/v1/achievements?ids=${a.body.created[0].id}`);
    expect((await s.request('DELETE', `/admin/v1/attributes?ids=${tier},${channel}`)).body.deleted).toEqual([{ id: tier }, { id: channel }]);
  });

  it('updates from an array of { id, ...changes } and deletes by ids', async () => {
    const list = await s.request('GET', '/admin/v1/metrics?limit=100');
    const lessons = list.body.find((m: any) => m.key === 'lessons');
    const upd = await s.request('PATCH', '/admin/v1/metrics', {
      body: [{ id: lessons.id, name: 'Lessons done' }, { id: 'missing', name: 'x' }, { name: 'no id' }],
    });
    expect(upd.status).toBe(200);
    expect(upd.body.updated).toEqual([{ ...lessons, name: 'Lessons done' }]);
    expect(upd.body.issues.map((i: any) => i.id ?? i.index)).toEqual(['missing', 2]);

    const revenue = list.body.find((m: any) => m.key === 'revenue');
    const del = await s.request('DELETE', `/admin/v1/metrics?ids=${revenue.id},unknown`);
    expect(del.body).toEqual({ deleted: [{ id: revenue.id }], issues: [{ id: 'unknown', severity: 'error', message: expect.any(String) }] });
    expect((await s.request('GET', `/admin/v1/metrics/${revenue.id}`)).status).toBe(404);
    // The key is free again.
    expect((await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Revenue', key: 'revenue' }] })).status).toBe(201);
    expect((await s.request('DELETE', '/admin/v1/metrics')).status).toBe(400);
  });

  it('archives a metric: it refuses events and leaves the user metric lists', async () => {
    const created = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Old', key: 'old' }] });
    const id = created.body.created[0].id;
    expect((await s.request('POST', '/api/metrics/old/event', { body: { user: { id: 'arch' }, value: 1 } })).status).toBe(201);
    await s.request('PATCH', '/admin/v1/metrics', { body: [{ id, status: 'archived' }] });
    expect((await s.request('POST', '/api/metrics/old/event', { body: { user: { id: 'arch' }, value: 1 } })).status).toBe(422);
    const metrics = await s.request('GET', '/v1/users/arch/metrics');
    expect(metrics.body.map((m: any) => m.key)).not.toContain('old');
  });
});

describe('API keys', () => {
  it('refuses calls without a key or with an unknown one (401)', async () => {
    for (const key of [null, 'nope', '']) {
      const r = await s.request('GET', '/admin/v1/metrics', { key });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/API key/);
      expect((await s.request('GET', '/v1/users/x', { key })).status).toBe(401);
    }
  });

  it('creates keys shown once and stored hashed; application keys may not call the Admin API', async () => {
    const r = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', name: 'backend' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'application', name: 'backend', tenantId: null, key: expect.stringMatching(/^lrl_app_/) });
    const appKey: string = r.body.key;

    const listed = await s.request('GET', '/admin/v1/api-keys?limit=100');
    expect(listed.text).not.toContain(appKey);
    expect(listed.text).not.toContain(appKey.split('.')[1]);
    expect(listed.body.find((k: any) => k.id === r.body.id)).toMatchObject({ prefix: appKey.split('.')[0] });

    const redis = new Redis(s.settings.redisUrl);
    const stored = await redis.hgetall(`${s.prefix}:{cfg}:apikeys`);
    redis.disconnect();
    expect(JSON.stringify(stored)).not.toContain(appKey.split('.')[1]);
    expect(JSON.stringify(stored)).not.toContain(s.adminKey);

    expect((await s.request('PUT', '/v1/users/k1', { key: appKey, body: { name: 'K' } })).status).toBe(201);
    const admin = await s.request('GET', '/admin/v1/metrics', { key: appKey });
    expect(admin.status).toBe(403);
    expect(admin.body.error).toMatch(/admin/);

    const revoked = await s.request('DELETE', `/admin/v1/api-keys?ids=${r.body.id}`);
    expect(revoked.body.deleted).toEqual([{ id: r.body.id }]);
    expect((await s.request('GET', '/v1/users/k1', { key: appKey })).status).toBe(401);
  });

  it('creates admin keys in a batch and never revokes the last admin key', async () => {
    const r = await s.request('POST', '/admin/v1/api-keys', { body: [{ kind: 'admin' }, { kind: 'root' }] });
    expect(r.status).toBe(201);
    expect(r.body.created).toHaveLength(1);
    expect(r.body.issues).toEqual([{ index: 1, severity: 'error', message: expect.stringContaining('kind') }]);
    const second: string = r.body.created[0].key;
    expect((await s.request('GET', '/admin/v1/metrics', { key: second })).status).toBe(200);

    const keys = (await s.request('GET', '/admin/v1/api-keys?limit=100')).body.filter((k: any) => k.kind === 'admin');
    expect(keys).toHaveLength(2);
    // Revoke the new key first, then the test's own: the latter is the last one and stays.
    const newId = r.body.created[0].id;
    const ownId = keys.find((k: any) => k.id !== newId).id;
    const del = await s.request('DELETE', `/admin/v1/api-keys?ids=${newId}&ids=${ownId}`);
    expect(del.body.deleted).toEqual([{ id: newId }]);
    expect(del.body.issues).toEqual([{ id: ownId, severity: 'error', message: expect.stringMatching(/last admin key/) }]);
    expect((await s.request('GET', '/admin/v1/metrics', { key: second })).status).toBe(401);
  });
});

describe('tenants', () => {
  let acme: { id: string; customerId: string };

  beforeAll(async () => {
    await s.metrics('steps');
    const r = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }, { customerId: 'globex', name: 'Globex' }] });
    expect(r.status).toBe(201);
    acme = r.body.created[0];
    expect(acme).toMatchObject({ customerId: 'acme', name: 'Acme', status: 'active', id: expect.any(String) });
  });

  it('keeps customer ids unique', async () => {
    const r = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Again' }] });
    expect(r.status).toBe(200);
    expect(r.body.issues[0].message).toMatch(/already exists/);
  });

  it('isolates users, totals and idempotency keys per tenant', async () => {
    const ev = (tenant: string | undefined, value: number, key?: string) => s.request('POST', '/api/metrics/steps/event', {
      tenant, body: { user: { id: 'same-id', name: tenant ?? 'default' }, value }, headers: key ? { 'Idempotency-Key': key } : {},
    });
    expect((await ev(undefined, 1, 'k')).body.total).toBe(1);
    expect((await ev('acme', 10, 'k')).status).toBe(201);
    expect((await ev('globex', 100, 'k')).status).toBe(201);
    expect((await ev('acme', 10)).body.total).toBe(20);
    expect((await s.request('GET', '/v1/users/same-id')).body.name).toBe('default');
    expect((await s.request('GET', '/v1/users/same-id', { tenant: 'acme' })).body.name).toBe('acme');
    expect((await s.request('GET', '/v1/users/same-id/metrics/steps', { tenant: 'globex' })).body.current).toBe(100);
    expect((await s.request('GET', '/v1/users/same-id/metrics/steps')).body.current).toBe(1);
    expect((await s.request('PUT', '/v1/users/only-acme', { tenant: 'acme', body: { name: 'A' } })).status).toBe(201);
    expect((await s.request('GET', '/v1/users/only-acme')).status).toBe(404);
    expect((await s.request('GET', '/v1/users/only-acme', { tenant: 'globex' })).status).toBe(404);
  });

  it('keeps Tenant-ID and Idempotency-Key to printable ASCII, the only headers the HTTP layer reads as sent', async () => {
    // uWebSockets.js drops bytes above 0x7F at either end of a value: 'acm\u00e9' would arrive as
    // 'acm'. A customerId that could not be sent is refused; one that shows is a 400.
    const made = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acm\u00e9', name: 'Accent' }, { customerId: ' acme2', name: 'Space' }] });
    expect(made.status, made.text).toBe(200);
    expect(made.body.issues.map((i: any) => i.message)).toEqual([expect.stringMatching(/customerId/), expect.stringMatching(/customerId/)]);
    const header = await s.request('GET', '/v1/users/same-id', { tenant: 'ac\u00e9me' });
    expect(header.status, header.text).toBe(400);
    expect(header.body).toMatchObject({ code: 'invalid_header', error: expect.stringMatching(/Tenant-ID must be printable ASCII/) });
    const keyed = await s.request('POST', '/api/metrics/steps/event', {
      body: { user: { id: 'ascii' }, value: 1 }, headers: { 'Idempotency-Key': 'lesson-\u00e9-1' },
    });
    expect(keyed.status, keyed.text).toBe(400);
    expect(keyed.body.error).toMatch(/Idempotency-Key must be printable ASCII/);
    expect((await s.request('GET', '/v1/users/ascii')).status).toBe(404);
  });

  it('answers 404 for an unknown or archived tenant', async () => {
    const r = await s.request('GET', '/v1/users/same-id', { tenant: 'initech' });
    expect(r.status).toBe(404);
    expect(r.body.error).toContain('initech');
    const created = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'gone', name: 'Gone' }] });
    await s.request('PATCH', '/admin/v1/tenants', { body: [{ id: created.body.created[0].id, status: 'archived' }] });
    expect((await s.request('PUT', '/v1/users/x', { tenant: 'gone', body: {} })).status).toBe(404);
  });

  it('binds keys to a tenant: used without a header for that tenant, refused for another', async () => {
    const r = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', tenantId: 'acme' } });
    expect(r.status).toBe(201);
    expect(r.body.tenantId).toBe(acme.id);
    const key: string = r.body.key;
    expect((await s.request('GET', '/v1/users/only-acme', { key })).status).toBe(200);
    expect((await s.request('GET', '/v1/users/only-acme', { key, tenant: 'acme' })).status).toBe(200);
    const other = await s.request('GET', '/v1/users/same-id', { key, tenant: 'globex' });
    expect(other.status).toBe(403);
    const unknownTenant = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', tenantId: 'nope' } });
    expect(unknownTenant.status).toBe(422);
  });
});
