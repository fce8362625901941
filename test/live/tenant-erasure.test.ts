/**
 * A deleted tenant's live topics ([api.md](../../docs/api.md#tenants-and-keys)), on single Redis
 * and on the Cluster, with the workers: the api process whose sockets still hold the tenant's
 * topics (a user's and a board's), and whose other socket let another user's topic go a moment
 * before (the process keeps it `LAUREL_LIVE_LINGER`), drops them all on the tenant's erasure
 * notice: saying again what it holds (its refresh, every 30 s) writes nothing of the tenant's
 * topics back into Redis.
 */
import { describe, expect, it } from 'vitest';
import { erasureDone } from '../support/admin.js';
import { lingeringLive } from '../support/lingering-live.js';
import { targets } from '../support/server.js';

describe.each(targets())('a deleted tenant\'s live topics on %s', (target) => {
  const live = lingeringLive(target);

  it('are dropped by the api process that holds them', { timeout: 120_000 }, async () => {
    const { s, held, gone } = await live.start();
    const tag = s.prefix.slice(1);
    const ids = await s.metrics('lessons');
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1 }],
    });
    expect(board.status, board.text).toBe(201);
    const created = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `acme-${tag}`, name: 'Acme' }] });
    expect(created.status, created.text).toBe(201);
    const acme = created.body.created[0].id as string;
    const acmeRef = `acme-${tag}`;
    for (const user of [held, gone]) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { tenant: acmeRef, body: { user: { id: user }, value: 1 } });
      expect(r.status, r.text).toBe(201);
    }
    await live.hold(s, [`user:${held}`, 'leaderboard:daily'], [`user:${gone}`], acmeRef);
    const { redis, keys } = s.api.services;
    const holds = async () => (await redis.zrange(keys.live.wanted, 0, -1)).filter((h) => h.includes(`|${acme}|`));
    await expect.poll(holds).toHaveLength(3);
    // What names the tenant's topics: their holds, and their keys (sequence, history, wanted mark),
    // one at a time (a Cluster's slots).
    const topicKeys = [`user:${held}`, `user:${gone}`, 'leaderboard:daily'].flatMap((t) => {
      const k = keys.liveTopic(acme, t);
      return [k.seq, k.history, k.want];
    });
    const liveTraces = async () => {
      const left: string[] = await holds();
      for (const k of topicKeys) if ((await redis.exists(k)) === 1) left.push(k);
      return left;
    };
    expect(await liveTraces()).not.toEqual([]);

    const del = await s.request('DELETE', `/admin/v1/tenants?ids=${acme}`);
    expect(del.status, del.text).toBe(200);
    await erasureDone(s, del.body.deleted[0].erasureId as string);
    // Once the notice is heard, a refresh writes nothing of them again (before it, one may have: the
    // notice takes that out too).
    await expect.poll(async () => {
      await s.api.fanout.refresh();
      return liveTraces();
    }).toEqual([]);
    await s.api.fanout.refresh();
    expect(await liveTraces()).toEqual([]);
    expect(await holds()).toEqual([]);
  });
});
