/**
 * Deleting a tenant (docs/api.md, "Tenants and keys"), on Redis and on the Cluster: at once, the
 * keys bound to it and the keys scoped to its users are revoked (401) and no longer listed; once
 * the workers' erasure pass is done, its users' data is gone from Redis (no key names the tenant,
 * no member of the partitions' due sets does); the default tenant's user of the same id, and its data, stay. A placement that
 * meets a ranking erased before its members entry places the user anew.
 */
import { describe, expect, it } from 'vitest';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';
import { rowsOf } from '../support/rankings.js';
import { primaries } from '../../src/redis/client.js';
import { eventually } from '../support/eventually.js';

describe.each(targets())('deleting a tenant on %s', (target) => {
  const s = useTestServer({ target, workers: true });


  /** Every key of the installation that holds `text` in its name, and every due-set member that does. */
  async function traces(text: string): Promise<string[]> {
    const { redis, keys } = s.api.services;
    const found: string[] = [];
    for (const node of primaries(redis)) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', `${keys.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        for (const k of batch) {
          if (k.includes(text)) found.push(k);
          if (k.endsWith('ptdue') || k.endsWith('anndue')) {
            for (const m of await node.zrange(k, 0, -1)) if (m.includes(text)) found.push(`${k} ${m}`);
          }
        }
      } while (cursor !== '0');
    }
    return found;
  }

  it('removes its users\' data and its keys, and leaves the default tenant\'s', async () => {
    const { lessons } = await s.metrics('lessons');
    const setup = [
      await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [
        { type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, status: 'active' },
      ] }] }),
      await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Top', key: 'top', rankBy: 'metric', metricId: lessons, status: 'active', start: '2020-01-01' }] }),
      await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] }),
    ];
    for (const r of setup) expect(r.status, r.text).toBe(201);
    const acme = setup[2].body.created[0].id as string;
    for (const id of ['ada', 'bob']) {
      const r = await s.request('POST', '/v1/metrics/lessons/event', {
        tenant: 'acme', body: { user: { id, email: `${id}@acme.test`, name: id.toUpperCase(), tz: 'UTC' }, value: 3, idempotencyKey: `k-${id}` },
      });
      expect(r.status, r.text).toBe(201);
    }
    const home = await s.request('POST', '/v1/metrics/lessons/event', { body: { user: { id: 'ada', email: 'ada@home.test' }, value: 1 } });
    expect(home.status, home.text).toBe(201);
    const userKey = await s.request('POST', '/admin/v1/application-api-keys', { tenant: 'acme', body: [{ userId: 'ada' }] });
    expect(userKey.status, userKey.text).toBe(201);
    const bound = await s.request('POST', '/admin/v1/api-keys', { body: [{ name: 'Acme ops', kind: 'admin', tenantId: acme }] });
    expect(bound.status, bound.text).toBe(201);
    const boundKey = bound.body.created[0].key as string;
    expect((await s.request('GET', '/v1/users/ada', { tenant: 'acme', key: userKey.body.created[0].key })).status).toBe(200);
    expect(await traces(acme)).not.toEqual([]);

    const del = await s.request('DELETE', `/admin/v1/tenants?ids=${acme}`);
    expect(del.status, del.text).toBe(200);
    // The item names the erasure of its users (test/ops/tenant-erasure.test.ts follows it to the end).
    expect(del.body.deleted).toEqual([{ id: acme, erasureId: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);

    // At once, before the workers erase anything, no key reaches the tenant's data.
    expect((await s.request('GET', '/v1/users/ada', { key: userKey.body.created[0].key })).status).toBe(401);
    expect((await s.request('GET', '/admin/v1/users', { key: boundKey })).status).toBe(401);
    const { erasureId } = del.body.deleted[0] as { erasureId: string };
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return (await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status;
    }, { timeout: 60_000 }).toBe('done');
    expect(await traces(acme)).toEqual([]);
    const listed = (await s.request('GET', '/admin/v1/api-keys?limit=100')).body as { id: string; tenantId: string | null }[];
    expect(listed.filter((k) => k.tenantId === acme)).toEqual([]);
    // The default tenant's Ada keeps her data.
    const ada = await s.request('GET', '/v1/users/ada');
    expect(ada.status, ada.text).toBe(200);
    expect(ada.body.email).toBe('ada@home.test');
    expect((await s.request('GET', '/v1/users/ada/metrics/lessons')).body.current).toBe(1);
    // A tenant of the same customer id made again starts empty.
    const again = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(again.status, again.text).toBe(201);
    expect((await s.request('GET', '/v1/users/bob', { tenant: 'acme' })).status).toBe(404);
  });

  it('places a user anew whose ranking an erasure took away before their members entry, never an error', async () => {
    const board = (await s.request('GET', '/admin/v1/leaderboards')).body.find((b: { key: string }) => b.key === 'top');
    expect((await s.request('POST', '/v1/metrics/lessons/event', { body: { user: { id: 'cy' }, value: 2 } })).status).toBe(201);
    const { redis, keys } = s.api.services;
    const k = keys.leaderboard('_', board.id, '2020-01-01', '');
    await eventually(async () => expect(await redis.hget(k.members, 'cy')).not.toBeNull());
    // The erasure's order: the ranking gone, the members hash not yet.
    await redis.del(k.ranking);
    const r = await s.request('POST', '/v1/metrics/lessons/event', { body: { user: { id: 'cy' }, value: 1 } });
    expect(r.status, r.text).toBe(201);
    await eventually(async () => {
      const top = await s.request('GET', '/v1/leaderboards/top');
      expect(rowsOf(top.body)).toEqual([{ userId: 'cy', userName: null, rank: 1, value: 3 }]);
    });
  });
});
