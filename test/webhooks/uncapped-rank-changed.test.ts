/**
 * `leaderboard.rank_changed` below an uncapped board's first 1,000 (docs/webhooks.md), on Redis and
 * on the Cluster, on a board of one ranking and one of 3 shards fed the same events: 1,100 users
 * placed through the batch events, each reported once with their exact rank (those past 1,000
 * because the drain noted them); a user at rank 1,050 who moves gets one webhook with their exact
 * rank before and after, once however many passes run; a move in the window's last minute waits
 * for the next window; the users it overtook below 1,000 get none; an erased user's note is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, batchApplied } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';

const USERS = 1100;
/** User i (0-based) plays i + 1 times: rank USERS - i. */
const id = (i: number) => `u${String(i).padStart(4, '0')}`;
const BOARDS = ['open', 'spread'];

interface RankChanged {
  user: { id: string };
  leaderboard: { key: string; rank: number; value: number; previousRank: number | null; previousValue: number | null };
}

describe.each(targets())('leaderboard.rank_changed below an uncapped board\'s first 1,000 on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;

  const work = async () => { await s.workers!.testing.drainNow(); return s.workers!.testing.webhooksNow(); };
  const got = (): RankChanged[] => hook.at('/ranks').map((r) => JSON.parse(r.body) as RankChanged & { type: string })
    .filter((b) => b.type === 'leaderboard.rank_changed');
  const of = (userId: string, key: string) => got().filter((b) => b.user.id === userId && b.leaderboard.key === key);
  const rankOn = async (userId: string, key: string) => {
    const r = await s.request('GET', `/v1/users/${userId}/leaderboards/${key}`);
    expect(r.status, r.text).toBe(200);
    return r.body as { rank: number; value: number };
  };

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    for (const [key, shards] of [['open', 1], ['spread', 3]] as const) {
      await adminCreateOne(s, '/admin/v1/leaderboards', {
        name: key, key, rankBy: 'metric', metricId: plays, maxParticipants: null, shards, status: 'active', start: '2026-01-01',
      });
    }
    const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Ranks', url: hook.url('/ranks'), events: ['leaderboard.rank_changed'] }] });
    expect(w.status, w.text).toBe(201);
    // This window's pass made now, before the users are placed (a process makes one a window): the
    // second call waits for a pass begun after the endpoint was known.
    await work();
    await work();
    const items = Array.from({ length: USERS }, (_, i) => ({ key: 'plays', user: { id: id(i), name: `Player ${i}` }, value: i + 1 }));
    await batchApplied(s, items, 550);
    await work();
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('reports every user once with their exact rank, past 1,000 too', async () => {
    await s.setClock('2026-05-04T10:15:00Z');
    await work();
    await eventually(async () => {
      await work();
      expect(got()).toHaveLength(USERS * BOARDS.length);
    }, 60_000);
    for (const key of BOARDS) {
      const ranks = got().filter((b) => b.leaderboard.key === key).map((b) => [b.user.id, b.leaderboard.rank, b.leaderboard.previousRank]);
      expect(ranks.sort((a, b) => (a[1] as number) - (b[1] as number)))
        .toEqual(Array.from({ length: USERS }, (_, r) => [id(USERS - 1 - r), r + 1, null]));
    }
  }, 120_000);

  it('sends a user at rank 1,050 who moves their exact ranks, once; a move in the last minute in the next window', async () => {
    const low = id(50);
    const late = id(20);
    const before = got().length;
    expect(await rankOn(low, 'open')).toEqual(expect.objectContaining({ rank: 1050, value: 51 }));
    await s.setClock('2026-05-04T10:20:00Z');
    await s.event('plays', low, 10);
    // In the window's last minute: read by the window after.
    await s.setClock('2026-05-04T10:29:30Z');
    await s.event('plays', late, 5);
    await work();
    const placed = await rankOn(low, 'open');
    expect(placed.rank).toBeGreaterThan(1000);
    expect(placed.rank).toBeLessThan(1050);

    await s.setClock('2026-05-04T10:30:00Z');
    await eventually(async () => {
      await work();
      expect(got().length - before).toBe(2);
    }, 30_000);
    for (const key of BOARDS) {
      expect((await rankOn(low, key)).rank).toBe(placed.rank);
      expect(of(low, key).slice(1).map((b) => [b.leaderboard.rank, b.leaderboard.value, b.leaderboard.previousRank, b.leaderboard.previousValue]))
        .toEqual([[placed.rank, 61, 1050, 51]]);
    }
    // A pass made again in the window records nothing more; those the user overtook below 1,000 get nothing.
    await work();
    expect(got().length - before).toBe(2);

    await s.setClock('2026-05-04T10:45:00Z');
    await eventually(async () => {
      await work();
      expect(got().length - before).toBe(4);
    }, 30_000);
    const lateRank = await rankOn(late, 'open');
    expect(lateRank).toEqual(expect.objectContaining({ value: 26 }));
    for (const key of BOARDS) {
      expect(of(late, key).slice(1).map((b) => [b.leaderboard.rank, b.leaderboard.value, b.leaderboard.previousRank, b.leaderboard.previousValue]))
        .toEqual([[lateRank.rank, 26, 1080, 21]]);
      expect(of(low, key)).toHaveLength(2);
    }
    await s.setClock('2026-05-04T11:00:00Z');
    await work();
    await work();
    expect(got().length - before).toBe(4);
  }, 120_000);

  it('erases a user from the notes', async () => {
    const user = id(30);
    const { keys, redis, store } = s.api.services;
    const noted = BOARDS.map((key) => {
      const lb = [...store.current.leaderboards.values()].find((b) => b.key === key)!;
      return keys.leaderboardIndex(DEFAULT_TENANT, lb.id).noted(lb.start);
    });
    await s.event('plays', user, 3);
    await s.workers!.testing.drainNow();
    for (const key of noted) expect(await redis.zscore(key, user), key).not.toBeNull();
    const erased = await s.request('DELETE', `/admin/v1/users/${user}`);
    expect(erased.status, erased.text).toBe(202);
    await eventually(async () => {
      expect((await s.request('GET', `/admin/v1/erasures/${erased.body.erasureId}`)).body.status).toBe('done');
    }, 60_000);
    for (const key of noted) expect(await redis.zscore(key, user), key).toBeNull();
  }, 120_000);
});
