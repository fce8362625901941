/**
 * Application API keys scoped to one user (`/admin/v1/application-api-keys`, trophy-admin 1.21.1):
 * created in batches with issues, answered once and stored as a hash, acting for their user only
 * (403 for another user's data, the shared reads open), bound to a tenant, revoked at once in
 * every api process; on Redis and on the Cluster.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/app/api.js';
import { MISSING, startTestServer, targets, UUID, type TestServer } from '../support/server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(targets())('application API keys on %s', (target) => {
  let s: TestServer;
  let other: TestServer;

  /** Creates one key for each user id (in the tenant given); answers the keys in order. */
  async function keysFor(userIds: string[], tenant?: string): Promise<{ id: string; key: string; prefix: string }[]> {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: userIds.map((userId) => ({ userId })), tenant });
    expect(r.status, r.text).toBe(201);
    expect(r.body.issues).toEqual([]);
    return r.body.created;
  }

  const event = (key: string, user: unknown, tenant?: string) =>
    s.request('POST', '/api/metrics/lessons/event', { key, body: { user, value: 1 }, tenant });

  const total = async (user: string, tenant?: string): Promise<number | null> => {
    const r = await s.request('GET', `/api/users/${user}/metrics/lessons`, { tenant });
    return r.status === 404 ? null : r.body.current;
  };

  beforeAll(async () => {
    s = await startTestServer({ target });
    // A second api process on the same Redis and prefix.
    other = await startTestServer({ target, env: { LAUREL_PREFIX: s.prefix, LAUREL_ADMIN_KEY: s.adminKey } });
    await s.metrics('lessons');
    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
    await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Top', key: 'top', rankBy: 'metric', metricKey: 'lessons', status: 'active' }],
    });
  });
  afterAll(async () => {
    await other?.close();
    await s?.close();
  });

  it('creates keys in a batch: 201 with the keys once and issues for the bad items, 200 when none was made', async () => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', {
      body: [{ userId: 'ada' }, { userId: 'bob' }, {}, { userId: '' }, { userId: 5 }, { userId: 'x'.repeat(256) }, 'ada'],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.created).toEqual([
      { id: UUID, userId: 'ada', key: expect.stringMatching(/^lrl_usr_[0-9a-f]{32}\.[A-Za-z0-9_-]+$/), prefix: expect.stringMatching(/^lrl_usr_[0-9a-f]{32}$/) },
      { id: UUID, userId: 'bob', key: expect.any(String), prefix: expect.any(String) },
    ]);
    for (const k of r.body.created) expect(k.key.startsWith(`${k.prefix}.`)).toBe(true);
    expect(r.body.created[0].key).not.toBe(r.body.created[1].key);
    expect(r.body.issues).toEqual([
      { index: 2, severity: 'error', message: 'userId is required' },
      { index: 3, userId: '', severity: 'error', message: 'userId must have 1 to 255 characters' },
      { index: 4, severity: 'error', message: 'userId must be string' },
      { index: 5, userId: 'x'.repeat(256), severity: 'error', message: 'userId must have 1 to 255 characters' },
      { index: 6, severity: 'error', message: 'body must be object' },
    ]);

    const none = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: '' }] });
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual({ created: [], issues: [{ index: 0, userId: '', severity: 'error', message: expect.any(String) }] });

    expect((await s.request('POST', '/admin/v1/application-api-keys', { body: { userId: 'ada' } })).status).toBe(400);
    expect((await s.request('POST', '/admin/v1/application-api-keys', { body: [] })).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => ({ userId: `u${i}` }));
    expect((await s.request('POST', '/admin/v1/application-api-keys', { body: many })).status).toBe(400);
  });

  it('stores only the hash of a key, which no listing shows', async () => {
    const [k] = await keysFor(['hidden']);
    const secret = k.key.split('.')[1];
    const record = await s.api.services.redis.hgetall(s.api.services.keys.apiKey(k.id).record);
    expect(record).toEqual({ h: sha256(k.key), u: 'hidden', t: '_', c: expect.any(String) });
    expect(JSON.stringify(record)).not.toContain(secret);
    const listed = await s.request('GET', '/admin/v1/api-keys?limit=100');
    expect(listed.text).not.toContain(k.id);
    expect(listed.text).not.toContain(secret);
  });

  it("acts for its own user: events, identification and the user's reads", async () => {
    const [{ key }] = await keysFor(['ada']);
    const r = await event(key, { id: 'ada', name: 'Ada' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.total).toBe(1);
    expect(await total('ada')).toBe(1);
    for (const path of ['/api/users/ada', '/v1/users/ada/metrics', '/api/users/ada/metrics/lessons', '/api/users/ada/preferences',
      '/api/users/ada/streak', '/api/users/ada/achievements', '/api/users/ada/leaderboards/top', '/api/users/ada/wrapped',
      '/api/streaks?userIds=ada']) {
      const read = await s.request('GET', path, { key });
      expect(read.status, `${path}: ${read.text}`).toBe(200);
    }
    expect((await s.request('PATCH', '/api/users/ada', { key, body: { name: 'Ada L.' } })).status).toBe(200);
    expect((await s.request('PUT', '/api/users/ada', { key, body: { tz: 'Europe/London' } })).status).toBe(200);
    expect((await s.request('PATCH', '/api/users/ada/preferences', { key, body: { notifications: { recap: ['email'] } } })).status).toBe(200);
    const [{ key: newcomer }] = await keysFor(['newcomer']);
    expect((await s.request('POST', '/api/users', { key: newcomer, body: { id: 'newcomer' } })).status).toBe(201);
  });

  it('reads what every user of the app sees: achievements, leaderboards and their rankings, streak rankings, points', async () => {
    const [{ key }] = await keysFor(['ada']);
    for (const path of ['/api/achievements', '/api/leaderboards', '/api/leaderboards/top', '/api/leaderboards/top?userId=bob',
      '/api/streaks/rankings']) {
      const read = await s.request('GET', path, { key });
      expect(read.status, `${path}: ${read.text}`).toBe(200);
    }
    // An unknown points system: past the key's checks, the route's own 404.
    expect((await s.request('GET', '/api/points/none', { key })).status).toBe(404);
  });

  it("refuses another user's data with 403, and applies nothing", async () => {
    const [{ key }] = await keysFor(['ada']);
    await s.event('lessons', 'bob', 1);
    const before = await total('bob');
    const refused = [
      await event(key, { id: 'bob' }),
      await s.request('POST', '/api/achievements/none/complete', { key, body: { user: { id: 'bob' } } }),
      await s.request('POST', '/api/users', { key, body: { id: 'bob' } }),
      await s.request('PUT', '/api/users/bob', { key, body: { name: 'Not Bob' } }),
      await s.request('PATCH', '/api/users/bob/preferences', { key, body: { notifications: { recap: [] } } }),
      await s.request('GET', '/api/users/bob', { key }),
      await s.request('GET', '/v1/users/bob/metrics/lessons', { key }),
      await s.request('GET', '/api/users/bob/wrapped', { key }),
      await s.request('GET', '/api/streaks?userIds=ada,bob', { key }),
      await s.request('GET', '/api/streaks?userIds=ada&userIds=bob', { key }),
    ];
    for (const r of refused) {
      expect(r.status, r.text).toBe(403);
      expect(r.body).toEqual({ error: expect.stringMatching(/^This API key acts for one user only: it acts for "ada", not for "bob"$/), code: 'wrong_user' });
    }
    expect(await total('bob')).toBe(before);
    expect((await s.request('GET', '/api/users/bob')).body.name).not.toBe('Not Bob');

    // A body or query that names no user is refused too (the key cannot act for nobody)...
    for (const body of [{ value: 1 }, { user: 'ada', value: 1 }, { user: { id: 7 }, value: 1 }, [1]]) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { key, body });
      expect(r.status, r.text).toBe(403);
      expect(r.body.code).toBe('wrong_user');
    }
    expect((await s.request('GET', '/api/streaks', { key })).status).toBe(403);
    // ...and a body that is not JSON is the 400 it is with any key.
    expect((await s.request('POST', '/api/metrics/lessons/event', { key, raw: '{"user":' })).status).toBe(400);
    // The Admin API is not for it.
    const admin = await s.request('GET', '/admin/v1/metrics', { key });
    expect(admin.status).toBe(403);
    expect(admin.body.code).toBe('wrong_key_kind');
  });

  it('answers any body sent with it a 4xx or a success, never a 5xx', async () => {
    const [{ key }] = await keysFor(['ada']);
    const body = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ user: fc.jsonValue({ maxDepth: 2 }), id: fc.jsonValue({ maxDepth: 1 }), value: fc.constant(1) }));
    await fc.assert(fc.asyncProperty(body, fc.constantFrom('/api/metrics/lessons/event', '/api/users', '/api/achievements/none/complete'), async (b, path) => {
      const r = await s.request('POST', path, { key, raw: JSON.stringify(b) });
      expect(r.status, r.text).toBeLessThan(500);
      if (r.status >= 400) expect(typeof r.body.error).toBe('string');
    }), { numRuns: 60 });
  });

  it('is bound to the tenant it was created in', async () => {
    const [{ key: inAcme }] = await keysFor(['ada'], 'acme');
    const [{ key: inDefault }] = await keysFor(['ada']);
    const before = await total('ada');
    expect((await event(inAcme, { id: 'ada' })).status).toBe(201);
    expect((await event(inAcme, { id: 'ada' }, 'acme')).status).toBe(201);
    expect(await total('ada', 'acme')).toBe(2);
    expect(await total('ada')).toBe(before);
    const elsewhere = await event(inDefault, { id: 'ada' }, 'acme');
    expect(elsewhere.status, elsewhere.text).toBe(403);
    expect(elsewhere.body.code).toBe('wrong_tenant');
    expect((await event(inAcme, { id: 'ada' }, 'globex')).status).toBe(403);
    expect(await total('ada', 'acme')).toBe(2);
  });

  it('answers 401 for a key it does not hold', async () => {
    const [k] = await keysFor(['ada']);
    const wrongSecret = `${k.prefix}.${'A'.repeat(32)}`;
    const unknownId = `lrl_usr_${MISSING.replace(/-/g, '')}.${k.key.split('.')[1]}`;
    for (const key of [wrongSecret, unknownId, `${k.prefix}.`, 'lrl_usr_123.abc']) {
      for (const path of ['/api/users/ada', '/admin/v1/metrics']) {
        const r = await s.request('GET', path, { key });
        expect(r.status, `${key} ${path}`).toBe(401);
        expect(r.body.code).toBe('unauthorized');
      }
    }
  });

  it('revokes keys by id: 401 from the next request on, in every api process', async () => {
    const [k, kept] = await keysFor(['ada', 'ada']);
    for (const server of [s, other]) expect((await server.request('GET', '/api/users/ada', { key: k.key })).status).toBe(200);
    const del = await s.request('DELETE', `/admin/v1/application-api-keys?ids=${k.id},${MISSING}&ids=not-a-uuid`);
    expect(del.status, del.text).toBe(200);
    expect(del.body).toEqual({
      deleted: [{ id: k.id }],
      issues: [
        { id: MISSING, severity: 'error', message: `Application API key "${MISSING}" not found` },
        { id: 'not-a-uuid', severity: 'error', message: 'Application API key "not-a-uuid" not found' },
      ],
    });
    // The other process caches no such key: it refuses it at once.
    for (const server of [other, s]) {
      const r = await server.request('GET', '/api/users/ada', { key: k.key });
      expect(r.status, r.text).toBe(401);
    }
    expect((await other.request('GET', '/api/users/ada', { key: kept.key })).status).toBe(200);
    const again = await s.request('DELETE', `/admin/v1/application-api-keys?ids=${k.id}`);
    expect(again.body).toEqual({ deleted: [], issues: [{ id: k.id, severity: 'error', message: expect.stringMatching(/not found/) }] });
    expect((await s.request('DELETE', '/admin/v1/application-api-keys')).status).toBe(400);
  });

  it("revokes a tenant's keys only through that tenant", async () => {
    const [k] = await keysFor(['ada'], 'acme');
    const elsewhere = await s.request('DELETE', `/admin/v1/application-api-keys?ids=${k.id}`);
    expect(elsewhere.body.deleted).toEqual([]);
    expect((await s.request('GET', '/api/users/ada', { key: k.key })).status).toBe(200);
    const there = await s.request('DELETE', `/admin/v1/application-api-keys?ids=${k.id}`, { tenant: 'acme' });
    expect(there.body.deleted).toEqual([{ id: k.id }]);
    expect((await s.request('GET', '/api/users/ada', { key: k.key })).status).toBe(401);
  });

  it('knows, for every Application API route, whose data it touches', () => {
    const routes = apiRoutes(s.api.services, { scriptsLoaded: true }).filter((r) => r.family === 'app');
    expect(routes.length).toBeGreaterThan(20);
    for (const r of routes) expect(r.subject, `${r.method} ${r.path}`).toBeDefined();
    for (const r of routes.filter((x) => x.path.startsWith('/users/:id'))) expect(r.subject, r.path).toBe('path');
  });
});
