/**
 * Reads that follow a 201 see that event, with no worker running: the streak rankings, a user's
 * streak rank, several users' streaks (src/engine/streaks/rankings.ts) and the points summary
 * (lua/includes/points.lua), on single Redis and on the Cluster; and the order of two writes of one
 * user's standing (a later write of an earlier event changes nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';
import { rankStreak, streakStanding } from '../../src/engine/streaks/rankings.js';

describe.each(targets())('reads after a write on %s', (target) => {
  let s: TestServer;

  beforeAll(async () => {
    // No workers: nothing drains the log, so only the event's own request can have written.
    s = await startTestServer({ target, clock: 'manual', workers: false });
    await s.setClock('2026-05-04T10:00:00Z');
    const ids = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    const r = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(r.status, r.text).toBe(201);
  });
  afterAll(async () => { await s?.close(); });

  it('sees each event in the streak rankings, the user streak and the points summary at once', async () => {
    expect(s.workers).toBeNull();
    const first = await s.event('lessons', { id: 'ann', name: 'Ann' }, 3);
    expect(first.currentStreak).toMatchObject({ length: 1, extended: true });
    expect((await s.request('GET', '/v1/streaks/rankings')).body).toEqual([{ userId: 'ann', name: 'Ann', streakLength: 1 }]);
    expect((await s.request('GET', '/v1/users/ann/streak')).body).toMatchObject({ length: 1, rank: 1 });
    expect((await s.request('GET', '/v1/streaks?userIds=ann')).body).toEqual([
      { userId: 'ann', streakLength: 1, extended: '2026-05-04T10:00:00.000Z' },
    ]);
    const summary = async () => ((await s.request('GET', '/api/points/xp/summary')).body as { from: number; to: number; users: number }[])
      .filter((x) => x.users > 0).map((x) => [x.from, x.to, x.users]);
    expect(await summary()).toEqual([[21, 30, 1]]);

    await s.setClock('2026-05-05T10:00:00Z');
    await s.event('lessons', { id: 'bob', name: 'Bob' }, 1);
    await s.event('lessons', 'ann', 1);
    expect((await s.request('GET', '/v1/streaks/rankings?type=longest')).body).toEqual([
      { userId: 'ann', name: 'Ann', streakLength: 2 },
      { userId: 'bob', name: 'Bob', streakLength: 1 },
    ]);
    expect((await s.request('GET', '/v1/users/bob/streak')).body).toMatchObject({ length: 1, rank: 2 });
    expect(await summary()).toEqual([[1, 10, 1], [31, 40, 1]]);
  });

  it('ranks equal streaks by arrival while the clock stands still, whatever the user ids', async () => {
    await s.setClock('2026-05-06T10:00:00Z');
    // ann (2 days) and bob (1) extend again: 3 and 2. Then newcomers, in an order against their ids.
    await s.event('lessons', 'bob', 1);
    for (const id of ['zoe', 'max', 'abe']) await s.event('lessons', { id, name: id.toUpperCase() }, 1);
    await s.event('lessons', 'ann', 1);
    const ranking = (await s.request('GET', '/v1/streaks/rankings?limit=10')).body as { userId: string; streakLength: number }[];
    expect(ranking.map((r) => [r.userId, r.streakLength])).toEqual([['ann', 3], ['bob', 2], ['zoe', 1], ['max', 1], ['abe', 1]]);
    const ranks = await Promise.all(['zoe', 'max', 'abe'].map(async (id) => (await s.request('GET', `/v1/users/${id}/streak`)).body.rank));
    expect(ranks).toEqual([3, 4, 5]);
    // The longest: ann 3, bob 2, then the newcomers' 1 in the order they reached it.
    const longest = (await s.request('GET', '/v1/streaks/rankings?type=longest&limit=10')).body as { userId: string }[];
    expect(longest.map((r) => r.userId)).toEqual(['ann', 'bob', 'zoe', 'max', 'abe']);
  });

  it('keeps the later of two writes of one user\'s standing, whatever order they arrive in', async () => {
    const { redis, keys } = s.api.services;
    const k = keys.streakRankings('_');
    const standing = (seq: string, length: number) =>
      rankStreak(s.api.services, '_', 'cat', { length, longest: length, expiry: 9e12 }, 0, seq);
    const held = async () => (await streakStanding(s.api.services, '_', 'cat'))!;
    const active = async () => Number(await redis.zscore(k.active, (await held()).active!));
    expect(await standing('1700000000000-5', 4)).toBe(1);
    // Earlier (by the id's time, then its sequence) or the same: nothing changes.
    expect(await standing('1700000000000-4', 3)).toBe(0);
    expect(await standing('999999999999-9', 3)).toBe(0);
    expect(await standing('1700000000000-5', 3)).toBe(0);
    expect(await active()).toBe(4);
    expect(await standing('1700000000001-0', 2)).toBe(1);
    expect(await active()).toBe(2);
    // One member per user in each ranking; the longest kept at 4.
    expect((await redis.zrange(k.active, 0, -1)).filter((m) => m.endsWith('|cat'))).toHaveLength(1);
    expect((await redis.zrange(k.longest, 0, -1)).filter((m) => m.endsWith('|cat'))).toHaveLength(1);
    expect(await redis.zscore(k.longest, (await held()).longest!)).toBe('4');
  });
});
