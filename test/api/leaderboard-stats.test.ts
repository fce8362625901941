/**
 * A board's statistics (docs/api.md, "A board's statistics"), on single Redis and on the Cluster:
 * a capped daily board's participants, rank changes (entries, moves by a user's own value, a user
 * pushed out of the full ranking) and score distribution in whole buckets; the runs before it; a
 * grouped board summing its groups; decimal values in ten buckets; a streak board; refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, putStreakSettings } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('a board\'s statistics on %s', (target) => {
  let s: TestServer;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-06-01T10:00:00Z');
    const { lessons, km } = await s.metrics('lessons', 'km');
    const { team } = await s.attributes('user', 'team');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    const common = { status: 'active', start: '2026-05-30' };
    for (const board of [
      { name: 'Daily three', key: 'daily-three', rankBy: 'metric', metricId: lessons, maxParticipants: 3, runUnit: 'day', runInterval: 1 },
      { name: 'Teams', key: 'teams', rankBy: 'metric', metricId: lessons, maxParticipants: null, breakdownAttributes: [team] },
      { name: 'Distance', key: 'distance', rankBy: 'metric', metricId: km, maxParticipants: null },
      { name: 'Streaks', key: 'streaks', rankBy: 'streak' },
    ]) ids[board.key] = (await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, ...board })).id;
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const stats = async (key: string, query = '') => {
    const r = await s.request('GET', `/admin/v1/leaderboards/${ids[key]}/stats${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  it('counts a capped run\'s entries, moves and push-outs as it moves, and its distribution', async () => {
    const user = (id: string) => ({ id, attributes: { team: id < 'c' ? 'red' : 'blue' } });
    for (const [id, value] of [['a', 1], ['b', 2], ['c', 3], ['d', 4]] as const) await s.event('lessons', user(id), value);
    // b moves from the third place to the first by their own value (the daily sum 2 + 5).
    await s.event('lessons', user('b'), 5);
    const expected = {
      leaderboardId: ids['daily-three'], key: 'daily-three', run: '2026-06-01', runEnd: '2026-06-01', participants: 3, groups: 0,
      rankChanges: { entered: 4, moved: 1, pushedOut: 1 },
      // c 3, d 4, b 7: whole buckets of one from 3 to 7, the last holding 7.
      distribution: [
        { from: 3, to: 4, participants: 1 }, { from: 4, to: 5, participants: 1 }, { from: 5, to: 6, participants: 0 },
        { from: 6, to: 7, participants: 0 }, { from: 7, to: 7, participants: 1 },
      ],
      runs: [{ run: '2026-06-01', runEnd: '2026-06-01', participants: 3 }, { run: '2026-05-31', runEnd: '2026-05-31', participants: 0 }, { run: '2026-05-30', runEnd: '2026-05-30', participants: 0 }],
    };
    await eventually(async () => expect(await stats('daily-three')).toEqual(expected));
    const ranked = await s.request('GET', '/v1/leaderboards/daily-three?limit=3');
    expect(ranked.body.rankings.map((r: { userId: string }) => r.userId)).toEqual(['b', 'd', 'c']);

    // The next day: a run of its own; the first one's figures stay, read by any of its days.
    await s.setClock('2026-06-02T10:00:00Z');
    await s.event('lessons', user('e'), 10);
    await eventually(async () => expect(await stats('daily-three')).toMatchObject({
      run: '2026-06-02', participants: 1, rankChanges: { entered: 1, moved: 0, pushedOut: 0 },
      distribution: [{ from: 10, to: 10, participants: 1 }],
      runs: [{ run: '2026-06-02', participants: 1 }, { run: '2026-06-01', participants: 3 }, { run: '2026-05-31', participants: 0 }, { run: '2026-05-30', participants: 0 }],
    }));
    expect(await stats('daily-three', '?run=2026-06-01')).toEqual(expected);
    // The board named by its key as well.
    expect((await s.request('GET', '/admin/v1/leaderboards/daily-three/stats?run=2026-06-01')).body).toEqual(expected);
  });

  it('sums a grouped board\'s groups', async () => {
    // a, b red; c, d, e blue: every one placed on the perpetual board of totals.
    await eventually(async () => expect(await stats('teams')).toMatchObject({
      participants: 5, groups: 2, rankChanges: { entered: 5, pushedOut: 0 },
      runs: [{ run: '2026-05-30', runEnd: null, participants: 5 }],
    }));
    const body = await stats('teams');
    // a 1, c 3, d 4, b 7, e 10: ten whole buckets of one from 1 to 10.
    expect(body.distribution).toHaveLength(10);
    expect(body.distribution.map((b: { participants: number }) => b.participants)).toEqual([1, 0, 1, 1, 0, 0, 1, 0, 0, 1]);
  });

  it('splits decimal values into ten buckets, and an empty board into none', async () => {
    expect(await stats('distance')).toMatchObject({ participants: 0, distribution: [], rankChanges: { entered: 0, moved: 0, pushedOut: 0 } });
    for (const [id, km] of [['r1', 0.5], ['r2', 1.5], ['r3', 5.5], ['r4', 5.5]] as const) await s.event('km', id, km);
    const body = await stats('distance');
    expect(body.distribution).toHaveLength(10);
    expect(body.distribution[0]).toEqual({ from: 0.5, to: 1, participants: 1 });
    expect(body.distribution[2]).toEqual({ from: 1.5, to: 2, participants: 1 });
    expect(body.distribution[9]).toEqual({ from: 5, to: 5.5, participants: 2 });
    expect(body.distribution.reduce((sum: number, b: { participants: number }) => sum + b.participants, 0)).toBe(4);
  });

  it('counts a streak board\'s participants by their streak', async () => {
    await eventually(async () => expect(await stats('streaks')).toMatchObject({ participants: 5, distribution: [{ from: 1, to: 1, participants: 5 }] }));
  });

  it('refuses an unknown board, a day outside the board and a malformed run', async () => {
    expect((await s.request('GET', '/admin/v1/leaderboards/nope/stats')).status).toBe(404);
    expect((await s.request('GET', `/admin/v1/leaderboards/${ids['daily-three']}/stats?run=2026-01-01`)).status).toBe(404);
    const bad = await s.request('GET', `/admin/v1/leaderboards/${ids['daily-three']}/stats?run=June`);
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_query');
    const app = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application' } });
    expect((await s.request('GET', `/admin/v1/leaderboards/${ids['daily-three']}/stats`, { key: app.body.key })).status).toBe(403);
  });
});
