/**
 * Leaderboards on the event path, on single Redis and on the Cluster: metric boards ranked in
 * phase 2 (capped, ties by who reached a value first, breakdown groups, daily and monthly runs
 * kept and queryable), the event response, and the reads.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, putStreakSettings } from '../support/admin.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';
import { rowsOf } from '../support/rankings.js';
import { orderOf } from '../../src/domain/leaderboards/runs.js';
import { clockArg, userTime } from '../../src/domain/clock.js';

describe.each(targets())('a user\'s leaderboard history on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  const KIRITIMATI = 'Pacific/Kiritimati'; // UTC+14: its July 2nd starts at 10:00 UTC on July 1st

  beforeAll(async () => {
    await s.setClock('2026-07-01T08:00:00Z');
    await s.metrics('pages');
    await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Pages', key: 'pages-all', rankBy: 'metric', metricKey: 'pages', status: 'active' });
  });

  const at = async (iso: string, user: string | Record<string, unknown>, value: number) => {
    await s.setClock(iso);
    return s.event('pages', user, value);
  };
  const history = async (query = '') => {
    const r = await s.request('GET', `/v1/users/kai/leaderboards/pages-all${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body.history;
  };

  it('gives one entry a day of the user\'s own zone, oldest first: the day\'s last rank and value, and those before its first change', async () => {
    await at('2026-07-01T09:00:00Z', { id: 'kai', tz: KIRITIMATI }, 5); // July 1st, 23:00 in Kiritimati: rank 1
    await at('2026-07-01T11:00:00Z', 'lou', 10); // lou passes kai, which kai's history does not record
    await at('2026-07-01T11:30:00Z', 'kai', 2); // July 2nd there: rank 2 with 7
    await at('2026-07-01T12:00:00Z', 'kai', 5); // rank 1 with 12
    await at('2026-07-03T12:00:00Z', 'kai', 1); // July 4th there: 13
    const days = [
      { date: '2026-07-01', timestamp: '2026-06-30T10:00:00.000Z', previousRank: null, rank: 1, previousValue: null, value: 5 },
      { date: '2026-07-02', timestamp: '2026-07-01T10:00:00.000Z', previousRank: 2, rank: 1, previousValue: 5, value: 12 },
      { date: '2026-07-04', timestamp: '2026-07-03T10:00:00.000Z', previousRank: 1, rank: 1, previousValue: 12, value: 13 },
    ];
    expect(await history()).toEqual(days);
    // numEvents counts days: the latest ones.
    expect(await history('?numEvents=2')).toEqual(days.slice(1));
    expect(await history('?numEvents=0')).toEqual([]);
    // In UTC, the first four changes were all on July 1st.
    const moved = await s.request('PATCH', '/v1/users/kai', { body: { tz: 'UTC' } });
    expect(moved.status, moved.text).toBe(200);
    expect(await history()).toEqual([
      { date: '2026-07-01', timestamp: '2026-07-01T00:00:00.000Z', previousRank: null, rank: 1, previousValue: null, value: 12 },
      { date: '2026-07-03', timestamp: '2026-07-03T00:00:00.000Z', previousRank: 1, rank: 1, previousValue: 12, value: 13 },
    ]);
  });
});

describe.each(targets())('leaderboards on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  let ids: Record<string, string>;
  let regionId: string;

  const event = (user: string | Record<string, unknown>, value: number, metric = 'lessons') => s.event(metric, user, value);
  const board = async (body: Record<string, unknown>): Promise<{ id: string; key: string; start: string }> =>
    adminCreateOne(s, '/admin/v1/leaderboards', { status: 'active', ...body });
  const rankings = async (key: string, query = '') => {
    const r = await s.request('GET', `/api/leaderboards/${key}${query}`);
    expect(r.status, r.text).toBe(200);
    return rowsOf(r.body);
  };

  beforeAll(async () => {
    await s.setClock('2026-07-01T10:00:00Z');
    ids = await s.metrics('lessons', 'quizzes', 'runs', 'sales');
    ({ region: regionId } = await s.attributes('user', 'region'));
  });

  it('ranks a perpetual board by the metric total and answers rank, previous rank and threshold', async () => {
    await board({ name: 'Lessons', key: 'lessons-all', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 3 });
    const first = await event({ id: 'ann', name: 'Ann' }, 5);
    expect(first.leaderboards['lessons-all']).toMatchObject({
      key: 'lessons-all', name: 'Lessons', status: 'active', rankBy: 'metric', metricKey: 'lessons', maxParticipants: 3,
      start: '2026-07-01', end: null, startTime: null, endTime: null, runUnit: null, rank: 1, previousRank: null, threshold: 0,
    });
    // A board without breakdown has no group to name (the spec's breakdownAttributeValue is a string, never null).
    expect(Object.keys(first.leaderboards['lessons-all']).filter((k) => k.startsWith('breakdownAttributeValue'))).toEqual([]);
    await event({ id: 'bob', name: 'Bob' }, 7);
    const cy = await event('cy', 3);
    expect(cy.leaderboards['lessons-all']).toMatchObject({ rank: 3, threshold: 3 });
    // Full: a newcomer must beat the lowest (3); 3 does not, 4 does and pushes cy out.
    expect((await event('dee', 3)).leaderboards).toEqual({});
    expect((await event('eve', 4)).leaderboards['lessons-all']).toMatchObject({ rank: 3, threshold: 4 });
    expect(await rankings('lessons-all')).toEqual([
      { userId: 'bob', userName: 'Bob', rank: 1, value: 7 },
      { userId: 'ann', userName: 'Ann', rank: 2, value: 5 },
      { userId: 'eve', userName: null, rank: 3, value: 4 },
    ]);
    // Ann passes Bob: previous rank 2, rank 1.
    expect((await event('ann', 3)).leaderboards['lessons-all']).toMatchObject({ rank: 1, previousRank: 2 });
  });

  it('lists only the boards an event changed: none for a value of 0, or one a metric\'s limit ignored whole', async () => {
    const m = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Capped', key: 'capped', limits: { max: 2, period: 'day' } }] });
    expect(m.status, m.text).toBe(201);
    const capped = m.body.created[0].id as string;
    await board({ name: 'Capped', key: 'capped-all', rankBy: 'metric', metricId: capped, maxParticipants: 5 });
    await board({ name: 'Capped daily', key: 'capped-day', rankBy: 'metric', metricId: capped, maxParticipants: 5, runUnit: 'day', runInterval: 1 });
    expect(Object.keys((await event('gus', 1, 'capped')).leaderboards).sort()).toEqual(['capped-all', 'capped-day']);
    expect((await event('gus', 0, 'capped')).leaderboards).toEqual({});
    // 1 of 3 counts (the day's limit is 2), then nothing of 4.
    expect(Object.keys((await event('gus', 3, 'capped')).leaderboards).sort()).toEqual(['capped-all', 'capped-day']);
    const ignored = await event('gus', 4, 'capped');
    expect(ignored.limited).toEqual({ counted: 0, ignored: 4 });
    expect(ignored.leaderboards).toEqual({});
    expect(await rankings('capped-all')).toEqual([{ userId: 'gus', userName: null, rank: 1, value: 2 }]);
  });

  it('breaks ties by who reached the value first, with ranks 1, 2, 3 without gaps', async () => {
    await board({ name: 'Quizzes', key: 'quizzes-all', rankBy: 'metric', metricId: ids.quizzes });
    await s.setClock('2026-07-01T11:00:00Z');
    await event('q1', 2, 'quizzes');
    await s.setClock('2026-07-01T11:00:01Z');
    await event('q2', 2, 'quizzes');
    await s.setClock('2026-07-01T11:00:02Z');
    await event('q3', 1, 'quizzes');
    await event('q3', 1, 'quizzes');
    expect((await rankings('quizzes-all')).map((r) => [r.userId, r.rank, r.value])).toEqual([['q1', 1, 2], ['q2', 2, 2], ['q3', 3, 2]]);
  });

  it('breaks ties by arrival when the clock stands still (users in any order of their ids, on any partitions)', async () => {
    const { arrivals } = await s.metrics('arrivals');
    await board({ name: 'Arrivals', key: 'arrivals-all', rankBy: 'metric', metricId: arrivals });
    await s.setClock('2026-07-01T12:00:00Z');
    // Ids that sort against arrival, then with it, and users of several partitions.
    const order = ['zed', 'mia', 'amy', 'bo', 'cal', 'xia', 'dan', 'eli'];
    for (const user of order) await event(user, 3, 'arrivals');
    expect((await rankings('arrivals-all')).map((r) => r.userId)).toEqual(order);
    // A later arrival at the same value still ranks after them; a higher value before all.
    await event('aaa', 3, 'arrivals');
    await event('yves', 4, 'arrivals');
    expect((await rankings('arrivals-all', '?limit=10')).map((r) => r.userId)).toEqual(['yves', ...order, 'aaa']);
    const { keys } = s.api.services;
    expect(new Set(order.map((u) => keys.partitionOf('_', u))).size).toBeGreaterThan(1);
  });

  it('never lets a capped board exceed its maximum, with 200 users racing into a board of 10', async () => {
    await board({ name: 'Sales', key: 'sales-top', rankBy: 'metric', metricId: ids.sales, maxParticipants: 10 });
    const values = Array.from({ length: 200 }, (_, i) => ((i * 37) % 200) + 1);
    const results = await Promise.all(values.map((v, i) => s.request('POST', '/api/metrics/sales/event', {
      body: { user: { id: `racer-${i}` }, value: v },
    })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const top = await rankings('sales-top', '?limit=10');
    expect(top).toHaveLength(10);
    expect(top.map((r) => r.value)).toEqual([200, 199, 198, 197, 196, 195, 194, 193, 192, 191]);
    const { redis, keys } = s.api.services;
    const k = keys.leaderboard('_', (await s.request('GET', '/admin/v1/leaderboards?limit=100')).body
      .find((b: any) => b.key === 'sales-top').id, '2026-07-01', '');
    expect(await redis.zcard(k.ranking)).toBe(10);
    expect(await redis.hlen(k.members)).toBe(10);
  });

  it('ranks users in separate groups by their breakdown attribute, each group capped', async () => {
    await board({ name: 'Runs by region', key: 'runs-region', rankBy: 'metric', metricId: ids.runs, breakdownAttributes: [regionId], maxParticipants: 2 });
    for (const [id, region, v] of [['r1', 'eu', 5], ['r2', 'eu', 3], ['r3', 'us', 1], ['r4', 'eu', 4]] as const) {
      await event({ id, attributes: { region } }, v, 'runs');
    }
    const noRegion = await event('r5', 9, 'runs');
    expect(noRegion.leaderboards).toEqual({});
    expect((await rankings('runs-region', '?userAttributes=region:eu')).map((r) => [r.userId, r.rank])).toEqual([['r1', 1], ['r4', 2]]);
    expect((await rankings('runs-region', '?userAttributes=region:us')).map((r) => [r.userId, r.rank])).toEqual([['r3', 1]]);
    expect((await s.request('GET', '/api/leaderboards/runs-region')).status).toBe(422);
    // Every pair must match: one key with two values names no group.
    const both = await s.request('GET', '/api/leaderboards/runs-region?userAttributes=region:eu,region:us');
    expect(both.status, both.text).toBe(422);
    expect(both.body.error).toMatch(/userAttributes gives region twice, as "eu" and "us"/);
    expect((await rankings('runs-region', '?userAttributes=region:eu,region:eu')).map((r) => r.userId)).toEqual(['r1', 'r4']);
    const mine = await s.request('GET', '/api/users/r4/leaderboards/runs-region');
    expect(mine.body).toMatchObject({ rank: 2, value: 4 });
    // An empty value is no value, for the event's placement and for the reads alike: in no group.
    expect((await event({ id: 'r6', attributes: { region: '' } }, 8, 'runs')).leaderboards).toEqual({});
    for (const user of ['r5', 'r6']) {
      const r = await s.request('GET', `/api/users/${user}/leaderboards/runs-region`);
      expect(r.status, r.text).toBe(200);
      expect(r.body, user).toMatchObject({ rank: null });
    }
  });

  it('starts a new run every day of a daily board, keeps old runs queryable, and ranks each run by its own sum', async () => {
    await s.setClock('2026-07-02T08:00:00Z');
    await board({ name: 'Daily lessons', key: 'lessons-daily', rankBy: 'metric', metricId: ids.lessons, start: '2026-07-02', runUnit: 'day', runInterval: 1 });
    await event('d1', 2);
    await event('d2', 5);
    await s.setClock('2026-07-03T08:00:00Z');
    const next = await event('d1', 1);
    // The event's board is the current run: its start and end, not the board's first start.
    expect(next.leaderboards['lessons-daily']).toMatchObject({ rank: 1, start: '2026-07-03', end: '2026-07-03' });
    // Read, `end` is the board's (null: it runs forever); the run's bounds are `run` and `runEnd`.
    expect((await s.request('GET', '/api/leaderboards/lessons-daily')).body).toMatchObject({ end: null, run: '2026-07-03', runEnd: '2026-07-03' });
    expect((await s.request('GET', '/api/users/d1/leaderboards/lessons-daily?run=2026-07-02')).body)
      .toMatchObject({ end: null, run: '2026-07-02', runEnd: '2026-07-02', rank: 2, value: 2 });
    expect((await rankings('lessons-daily')).map((r) => [r.userId, r.value])).toEqual([['d1', 1]]);
    expect((await rankings('lessons-daily', '?run=2026-07-02')).map((r) => [r.userId, r.value])).toEqual([['d2', 5], ['d1', 2]]);
  });

  it('runs a monthly board month by month, and a user in UTC+14 is in the next month earlier', async () => {
    await s.setClock('2026-07-31T09:00:00Z');
    await board({ name: 'Monthly', key: 'lessons-monthly', rankBy: 'metric', metricId: ids.lessons, start: '2026-07-01', runUnit: 'month', runInterval: 1 });
    // 09:00 UTC on July 31st is 23:00 that day in Kiritimati (UTC+14): still July.
    await event({ id: 'kiri', tz: 'Pacific/Kiritimati' }, 3);
    await s.setClock('2026-07-31T11:00:00Z'); // 01:00 on August 1st in Kiritimati, still July 31st in UTC
    expect((await event({ id: 'kiri', tz: 'Pacific/Kiritimati' }, 4)).leaderboards['lessons-monthly'])
      .toMatchObject({ start: '2026-08-01', end: '2026-08-31' });
    expect((await event({ id: 'utc' }, 1)).leaderboards['lessons-monthly']).toMatchObject({ start: '2026-07-01', end: '2026-07-31' });
    expect((await rankings('lessons-monthly', '?run=2026-07-15')).map((r) => [r.userId, r.value])).toEqual([['kiri', 3], ['utc', 1]]);
    expect((await rankings('lessons-monthly', '?run=2026-08-01')).map((r) => [r.userId, r.value])).toEqual([['kiri', 4]]);
    // Without a run, a user's own read is of the run of the user's own date, where their events go.
    const mine = async (user: string) => (await s.request('GET', `/v1/users/${user}/leaderboards/lessons-monthly`)).body;
    expect(await mine('kiri')).toMatchObject({ run: '2026-08-01', rank: 1, value: 4 });
    expect(await mine('utc')).toMatchObject({ run: '2026-07-01', rank: 2, value: 1 });
    expect((await s.request('GET', '/v1/users/kiri/leaderboards/lessons-monthly?run=2026-07-31')).body).toMatchObject({ run: '2026-07-01', rank: 1, value: 3 });
  });

  it('counts only the events inside a board\'s daily window, in each user\'s own time of day', async () => {
    await s.setClock('2026-08-10T08:00:00Z');
    const steps = (await s.metrics('steps')).steps;
    await board({ name: 'Office hours', key: 'steps-day', rankBy: 'metric', metricId: steps, startTime: '09:00', endTime: '17:00' });
    await board({ name: 'Night owls', key: 'steps-night', rankBy: 'metric', metricId: steps, startTime: '22:00', endTime: '02:00' });
    const step = (user: string | Record<string, unknown>, value: number) => event(user, value, 'steps');
    // 08:00 UTC: before the day window, outside the night one.
    expect((await step('ana', 2)).leaderboards).toEqual({});
    await s.setClock('2026-08-10T10:00:00Z');
    expect((await step('ana', 5)).leaderboards['steps-day']).toMatchObject({ rank: 1 });
    // 10:00 UTC is 00:00 on the 11th in Kiritimati (UTC+14): the night window, not the day one.
    const kiri = await step({ id: 'kiri', tz: 'Pacific/Kiritimati' }, 4);
    expect(Object.keys(kiri.leaderboards)).toEqual(['steps-night']);
    await s.setClock('2026-08-10T17:00:00Z'); // the window's end is not in it
    expect((await step('ana', 7)).leaderboards).toEqual({});
    await s.setClock('2026-08-10T23:30:00Z'); // over midnight: 22:00 to 02:00
    expect((await step('ana', 1)).leaderboards['steps-night']).toMatchObject({ rank: 2 });
    expect((await rankings('steps-day')).map((r) => [r.userId, r.value])).toEqual([['ana', 5]]);
    expect((await rankings('steps-night')).map((r) => [r.userId, r.value])).toEqual([['kiri', 4], ['ana', 1]]);
    // The metric itself counts every event.
    expect((await s.request('GET', '/api/users/ana/metrics/steps')).body.current).toBe(15);
  });

  it('lists the boards users see and a user\'s rank with its history', async () => {
    const hidden = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Hidden', key: 'hidden', rankBy: 'metric', metricId: ids.lessons }] });
    expect(hidden.status, hidden.text).toBe(201);
    expect(hidden.body.created[0].status).toBe('inactive');
    const list = await s.request('GET', '/api/leaderboards');
    expect(list.body.map((b: any) => b.key)).toContain('lessons-all');
    expect(list.body.map((b: any) => b.key)).not.toContain('hidden');
    expect(list.body.every((b: any) => b.status === 'active')).toBe(true);
    expect((await s.request('GET', '/api/leaderboards/hidden')).status).toBe(404);
    const ann = await s.request('GET', '/api/users/ann/leaderboards/lessons-all?numEvents=5');
    expect(ann.status, ann.text).toBe(200);
    expect(ann.body).toMatchObject({ key: 'lessons-all', status: 'active', rank: 1, value: 8 });
    // Both of Ann's changes were on July 1st (UTC, her zone): one day, from off the board to rank 1.
    expect(ann.body.history).toEqual([
      { date: '2026-07-01', timestamp: '2026-07-01T00:00:00.000Z', previousRank: null, rank: 1, previousValue: null, value: 8 },
    ]);
    expect((await s.request('GET', '/api/users/nobody/leaderboards/lessons-all')).status).toBe(404);
    const none = await s.request('GET', '/api/users/ann/leaderboards/lessons-all?numEvents=0');
    expect(none.status, none.text).toBe(200);
    expect(none.body).toMatchObject({ rank: 1, value: 8, history: [] });
    expect((await s.request('GET', '/api/users/ann/leaderboards/lessons-all?numEvents=101')).status).toBe(422);
    // Offsets from a user: bob is second (kiri's 7 came after his), so one from him is kiri.
    expect((await rankings('lessons-all', '?userId=bob&limit=1')).map((r) => [r.userId, r.rank])).toEqual([['bob', 2]]);
    expect((await rankings('lessons-all', '?userId=bob&offset=1&limit=5')).map((r) => [r.userId, r.rank])).toEqual([['kiri', 3]]);
    expect(await rankings('lessons-all', '?userId=cy')).toEqual([]);
  });

  it('ends on the user\'s total after many concurrent events of one user, some of them lowering it', async () => {
    await board({ name: 'Runs', key: 'runs-all', rankBy: 'metric', metricId: ids.runs, maxParticipants: 5 });
    const values = Array.from({ length: 60 }, (_, i) => (i % 4 === 3 ? -7 : (i * 13) % 9 + 1));
    const results = await Promise.all(values.map((value) => s.request('POST', '/api/metrics/runs/event', {
      body: { user: { id: 'rush' }, value },
    })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const total = values.reduce((a, b) => a + b, 0);
    expect((await s.request('GET', '/api/users/rush/metrics/runs')).body.current).toBe(total);
    expect(await rankings('runs-all')).toEqual([{ userId: 'rush', userName: null, rank: 1, value: total }]);
  });

  it('keeps the value of a user\'s latest event when the placements of two events arrive the other way round', async () => {
    const { redis, keys } = s.api.services;
    const b = await board({ name: 'Order', key: 'order', rankBy: 'metric', metricId: ids.quizzes, maxParticipants: 2 });
    const k = keys.leaderboard('_', b.id, b.start, '');
    const now = Date.parse('2026-07-01T10:00:00Z');
    // Phase 2 of one user's events, as the api sends them: the value, and the event's log entry id.
    const rank = (user: string, value: number, seq: string) => redis.leaderboardRank(
      k.ranking, k.members, k.history(user), k.awards(user), k.expiry, k.falls, k.sequences, k.stats,
      user, String(value), String(999_999_999_999_999 - now), 2, now, '', seq,
    );
    const score = async (user: string) => {
      const member = await redis.hget(k.members, user);
      return member === null ? null : Number(await redis.zscore(k.ranking, member));
    };
    // The second event (total 6) is placed first; the first one's (total 5) comes late and changes nothing.
    expect(await rank('ola', 6, '1782900000000-1')).toEqual([1, 0, '0', '']);
    expect(await rank('ola', 5, '1782900000000-0')).toEqual([1, 1, '0', '']);
    expect(await score('ola')).toBe(6);
    expect((await redis.lrange(k.history('ola'), 0, -1))).toHaveLength(1);
    // A later event applies, also one that lowers the value; an id of an earlier millisecond is older.
    expect(await rank('ola', 4, '1782900000001-0')).toEqual([1, 1, '0', '']);
    expect(await rank('ola', 9, '1782899999999-7')).toEqual([1, 1, '0', '']);
    expect(await score('ola')).toBe(4);
    // Without an id (awards, or a value worked out from the state at once) the placement applies.
    expect(await rank('ola', 3, '')).toEqual([1, 1, '0', '']);
    expect(await score('ola')).toBe(3);
    // A member pushed out takes their id along, as the streak boards' prune does.
    await rank('pia', 7, '1782900000002-0');
    expect(await redis.hget(k.sequences, 'ola')).toBe('1782900000001-0');
    expect((await rank('quinn', 8, '1782900000003-0'))[0]).toBe(1);
    expect(await redis.hget(k.members, 'ola')).toBeNull();
    expect(await redis.hget(k.sequences, 'ola')).toBeNull();
    expect(await redis.hgetall(k.sequences)).toEqual({ pia: '1782900000002-0', quinn: '1782900000003-0' });
  });

  it('ranks a sum of awards by when its latest award was made, whatever order the awards\' placements arrive in', async () => {
    const { redis, keys } = s.api.services;
    const b = await board({ name: 'Award order', key: 'award-order', rankBy: 'metric', metricId: ids.quizzes, maxParticipants: 5 });
    const t = Date.parse('2026-07-01T10:00:00Z');
    // An award's placement: its order from its event's log entry id (the event path's), its number and points.
    const award = (k: ReturnType<typeof keys.leaderboard>, user: string, ms: number, n: number, points: number) => redis.leaderboardRank(
      k.ranking, k.members, k.history(user), k.awards(user), k.expiry, k.falls, k.sequences, k.stats,
      user, '0', orderOf(ms, `${ms}-0`), 5, ms, '', '', String(n), String(points),
    );
    const ranking = async (k: ReturnType<typeof keys.leaderboard>) => (await redis.zrevrange(k.ranking, 0, -1)).map((m) => m.slice(m.indexOf('|') + 1));
    // Tia reaches 5 with her second award (t + 3); Uma reaches 5 at t + 2, first.
    for (const [run, late] of [['2026-07-01', false], ['2026-07-02', true]] as const) {
      const k = keys.leaderboard('_', b.id, run, '');
      await award(k, 'uma', t + 2, 1, 5);
      if (late) {
        // Tia's second award placed before her first (phase 2 runs after the answer).
        await award(k, 'tia', t + 3, 2, 3);
        await award(k, 'tia', t + 1, 1, 2);
      } else {
        await award(k, 'tia', t + 1, 1, 2);
        await award(k, 'tia', t + 3, 2, 3);
      }
      expect(await ranking(k), run).toEqual(['uma', 'tia']);
      expect(await redis.hget(k.members, 'tia'), run).toBe(`${orderOf(t + 3, `${t + 3}-0`)}|tia`);
    }
  });

  it('holds each member\'s latest event\'s value, whatever order the placements of several users\' events arrive in (fast-check)', async () => {
    const { redis, keys } = s.api.services;
    const now = Date.parse('2026-07-01T10:00:00Z');
    let run = 0;
    await fc.assert(fc.asyncProperty(
      // Each user's events, in the order phase 1 ran them (their ids rise), with the totals they set;
      // then the order their placements arrive in.
      fc.array(fc.array(fc.integer({ min: -20, max: 60 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
      fc.infiniteStream(fc.nat()),
      async (users, picks) => {
        const k = keys.leaderboard('_', 'order-property', `2026-01-${String(++run).padStart(2, '0')}`, '');
        const pending = users.flatMap((totals, u) => totals.map((total, i) => ({ user: `o${u}`, total, seq: `${1782900000000 + i}-${u}` })));
        const pick = picks[Symbol.iterator]();
        while (pending.length > 0) {
          const [p] = pending.splice(pick.next().value % pending.length, 1);
          await redis.leaderboardRank(k.ranking, k.members, k.history(p.user), k.awards(p.user), k.expiry, k.falls, k.sequences, k.stats,
            p.user, String(p.total), String(999_999_999_999_999 - now), 10, now, '', p.seq);
        }
        // A board of 10 holds every user: each with the total of their last event.
        for (const [u, totals] of users.entries()) {
          const member = await redis.hget(k.members, `o${u}`);
          expect(member).not.toBeNull();
          expect(Number(await redis.zscore(k.ranking, member!))).toBe(totals[totals.length - 1]);
        }
      },
    ), { numRuns: 25 });
  });

  describe('the entry gate, with two api processes', () => {
    // Two api processes on one Redis (one key prefix): each learns thresholds from its own phase 2
    // answers, while the other may lower them.
    let a: TestServer;
    let b: TestServer;
    const send = async (via: TestServer, metric: string, user: Record<string, unknown>, value: number) => {
      // One key for both: `b` serves `a`'s configuration.
      const r = await via.request('POST', `/api/metrics/${metric}/event`, { body: { user, value }, key: a.adminKey });
      expect(r.status, r.text).toBe(201);
      return r.body.leaderboards as Record<string, { rank: number | null; previousRank: number | null; threshold: number }>;
    };
    const skipped = () => a.api.services.metrics.leaderboards.skipped + b.api.services.metrics.leaderboards.skipped;
    /** A board's entry in an event's answer, as the comparison sees it (null: not in the answer). */
    const standing = (entry: { rank: number | null; previousRank: number | null; threshold: number } | undefined) =>
      entry === undefined ? null : [entry.rank, entry.previousRank, entry.threshold];
    const rows = async (key: string, query = '') =>
      ((await a.request('GET', `/api/leaderboards/${key}${query}`)).body.rankings as { userId: string; rank: number; value: number }[])
        .map((x) => [x.userId, x.rank, x.value]);
    /** Creates boards through `a` and waits until `b` has loaded them. */
    const boards = async (...list: Record<string, unknown>[]) => {
      const r = await a.request('POST', '/admin/v1/leaderboards', { body: list.map((x) => ({ status: 'active', ...x })) });
      expect(r.status, r.text).toBe(201);
      const ids = (r.body.created as { id: string }[]).map((x) => x.id);
      for (let i = 0; i < 100 && !ids.every((id) => b.api.services.store.current.leaderboards.has(id)); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(ids.every((id) => b.api.services.store.current.leaderboards.has(id))).toBe(true);
    };

    beforeAll(async () => {
      a = await startTestServer({ target });
      b = await startTestServer({ target, env: { LAUREL_PREFIX: a.prefix, LAUREL_ADMIN_KEY: a.adminKey } });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    type Answer = Awaited<ReturnType<typeof send>>;
    /** Creates a user attribute; its id. */
    const attributeId = async (key: string) => (await a.attributes('user', key))[key];
    /**
     * The gate on a full board of 3 (`key`): 10, 20 and 30 through `a`; 5 cannot enter and `a` does
     * not ask Redis; the other process brings the lowest down by 8, to 2, while `a` still holds 10
     * as the threshold; the falls counter tells `a` that threshold is stale, so 5 now enters and
     * pushes the lowest out; learnt again from that answer, 4 is skipped.
     */
    const gateScenario = async (
      key: string, user: string,
      raise: (via: TestServer, id: string, by: number) => Promise<Answer>, lower: (via: TestServer, id: string, by: number) => Promise<Answer>,
    ) => {
      await raise(a, `${user}1`, 10);
      await raise(a, `${user}2`, 20);
      expect((await raise(a, `${user}3`, 30))[key]).toMatchObject({ rank: 1, threshold: 10 });
      const before = skipped();
      expect(await raise(a, `${user}4`, 5)).toEqual({});
      expect(skipped()).toBe(before + 1);
      expect((await lower(b, `${user}1`, 8))[key]).toMatchObject({ rank: 3, previousRank: 3, threshold: 2 });
      expect((await raise(a, `${user}5`, 5))[key]).toMatchObject({ rank: 3, previousRank: null, threshold: 5 });
      expect(skipped()).toBe(before + 1);
      expect(await rows(key)).toEqual([[`${user}3`, 1, 30], [`${user}2`, 2, 20], [`${user}5`, 3, 5]]);
      expect(await raise(a, `${user}6`, 4)).toEqual({});
      expect(skipped()).toBe(before + 2);
    };

    it('counts in the falls counter every change that can lower a full ranking\'s threshold, and nothing else', async () => {
      const { redis, keys } = a.api.services;
      const k = keys.leaderboard('_', 'falls-board', '2026-01-01', '');
      const place = async (user: string, value: number, max: number) => {
        const [rank, , threshold, falls] = await redis.leaderboardRank(
          k.ranking, k.members, k.history(user), k.awards(user), k.expiry, k.falls, k.sequences, k.stats, user, String(value), '000000000000001', max, 0, '', '');
        return { rank, threshold, falls };
      };
      await place('f1', 10, 3);
      await place('f2', 20, 3);
      const full = await place('f3', 30, 3);
      expect(full).toMatchObject({ rank: 1, threshold: '10' });
      // Refused, and an evicting newcomer: the lowest value only rises.
      expect(await place('f4', 5, 3)).toEqual({ rank: 0, threshold: '10', falls: full.falls });
      expect(await place('f5', 15, 3)).toEqual({ rank: 3, threshold: '15', falls: full.falls });
      // A raised maximum lets a newcomer in below the lowest value, without pushing anyone out.
      const raised = await place('f4', 5, 4);
      expect(raised).toMatchObject({ rank: 4, threshold: '5' });
      expect(raised.falls).not.toBe(full.falls);
      // A member's value going down.
      const down = await place('f3', 1, 4);
      expect(down).toMatchObject({ rank: 4, threshold: '1' });
      expect(down.falls).not.toBe(raised.falls);
      // A member's value going up does not count.
      expect((await place('f3', 50, 4)).falls).toBe(down.falls);
    });

    it('skips the placements that cannot change a full board, and places again once another process lowered its threshold', async () => {
      const { gated } = await a.metrics('gated');
      await boards({ name: 'Gated', key: 'gated-top', rankBy: 'metric', metricId: gated, maxParticipants: 3 });
      await gateScenario('gated-top', 'g',
        (via, id, by) => send(via, 'gated', { id }, by), (via, id, by) => send(via, 'gated', { id }, -by));
    });

    it('gates a perpetual points board the same way: points spent through the other process lower its threshold', async () => {
      const { gplay, gspend } = await a.metrics('gplay', 'gspend');
      const system = await a.request('POST', '/admin/v1/points', {
        body: [{
          name: 'Gate XP', key: 'gxp',
          triggers: [
            { type: 'metric', metricId: gplay, metricThreshold: 1, points: 1, status: 'active' },
            { type: 'metric', metricId: gspend, metricThreshold: 1, points: -1, status: 'active' },
          ],
        }],
      });
      expect(system.status, system.text).toBe(201);
      await boards({ name: 'Gate XP', key: 'gxp-top', rankBy: 'points', pointsSystemId: system.body.created[0].id, maxParticipants: 3 });
      await gateScenario('gxp-top', 'x',
        (via, id, by) => send(via, 'gplay', { id }, by), (via, id, by) => send(via, 'gspend', { id }, by));
    });

    it('answers every points event as if no placement were skipped (against a points board with breakdown)', async () => {
      const crewId = await attributeId('crew');
      const before = skipped();
      let run = 0;
      await fc.assert(fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(7), fc.boolean(), fc.integer({ min: 1, max: 6 }), fc.boolean()), { minLength: 40, maxLength: 100 }),
        async (events) => {
          const play = `pplay${run}`;
          const spend = `pspend${run++}`;
          const ids = await a.metrics(play, spend);
          const system = await a.request('POST', '/admin/v1/points', {
            body: [{
              name: `XP ${play}`, key: `xp-${play}`,
              triggers: [
                { type: 'metric', metricId: ids[play], metricThreshold: 1, points: 2, status: 'active' },
                { type: 'metric', metricId: ids[spend], metricThreshold: 1, points: -1, status: 'active' },
              ],
            }],
          });
          expect(system.status, system.text).toBe(201);
          const pointsSystemId = system.body.created[0].id;
          await boards(
            { name: 'Plain', key: `${play}-plain`, rankBy: 'points', pointsSystemId, maxParticipants: 3 },
            { name: 'Crew', key: `${play}-crew`, rankBy: 'points', pointsSystemId, maxParticipants: 3, breakdownAttributes: [crewId] },
          );
          for (const [user, spends, value, viaA] of events) {
            const answer = await send(viaA ? a : b, spends ? spend : play, { id: `q${user}`, attributes: { crew: 'x' } }, value);
            expect(standing(answer[`${play}-plain`])).toEqual(standing(answer[`${play}-crew`]));
          }
          expect(await rows(`${play}-plain`)).toEqual(await rows(`${play}-crew`, '?userAttributes=crew:x'));
        },
      ), { numRuns: 4 });
      expect(skipped()).toBeGreaterThan(before);
    });

    it('answers every event as if no placement were skipped (a board with breakdown, never gated, as the reference)', async () => {
      const teamId = await attributeId('team');
      const before = skipped();
      let run = 0;
      await fc.assert(fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(7), fc.integer({ min: -3, max: 6 }), fc.boolean()), { minLength: 40, maxLength: 100 }),
        async (events) => {
          const metric = `mixed${run++}`;
          const { [metric]: metricId } = await a.metrics(metric);
          // The same board twice: without breakdown (gated), and with one group every user is in.
          await boards(
            { name: 'Plain', key: `${metric}-plain`, rankBy: 'metric', metricId, maxParticipants: 3 },
            { name: 'Team', key: `${metric}-team`, rankBy: 'metric', metricId, maxParticipants: 3, breakdownAttributes: [teamId] },
          );
          for (const [user, value, viaA] of events) {
            const answer = await send(viaA ? a : b, metric, { id: `m${user}`, attributes: { team: 'x' } }, value);
            expect(standing(answer[`${metric}-plain`])).toEqual(standing(answer[`${metric}-team`]));
          }
          expect(await rows(`${metric}-plain`)).toEqual(await rows(`${metric}-team`, '?userAttributes=team:x'));
        },
      ), { numRuns: 5 });
      // The comparison covered skipped placements.
      expect(skipped()).toBeGreaterThan(before);
    });
  });

  describe('a user whose breakdown attribute changes', () => {
    let mv: Record<string, string>;
    const rows = async (key: string, region: string) =>
      (await rankings(key, `?userAttributes=region:${region}`)).map((r) => [r.userId, r.value]);

    beforeAll(async () => {
      mv = await s.metrics('mv-patch', 'mv-event', 'mv-plain', 'mv-race');
    });

    it('leaves the old group on PATCH /users, letting the next user into the capped group, and enters the new one on the next event', async () => {
      const created = await board({ name: 'Moves', key: 'moves-patch', rankBy: 'metric', metricId: mv['mv-patch'], breakdownAttributes: [regionId], maxParticipants: 2 });
      await event({ id: 'mp1', attributes: { region: 'eu' } }, 5, 'mv-patch');
      await event({ id: 'mp2', attributes: { region: 'eu' } }, 4, 'mv-patch');
      expect((await event({ id: 'mp3', attributes: { region: 'eu' } }, 3, 'mv-patch')).leaderboards).toEqual({});
      expect(await rows('moves-patch', 'eu')).toEqual([['mp1', 5], ['mp2', 4]]);
      const patched = await s.request('PATCH', '/api/users/mp1', { body: { attributes: { region: 'us' } } });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.attributes).toEqual({ region: 'us' });
      expect(await rows('moves-patch', 'eu')).toEqual([['mp2', 4]]);
      expect(await rows('moves-patch', 'us')).toEqual([]);
      // Its history in the old group says it left rank 1 (value 5) for no rank.
      const { redis, keys } = s.api.services;
      const eu = keys.leaderboard('_', created.id, created.start, 'eu');
      expect((await redis.lindex(eu.history('mp1'), 0))!.split('|').slice(1)).toEqual(['1', '0', '5', '']);
      // A place is free: mp3 enters, with less than mp1 had.
      expect((await event('mp3', 1.5, 'mv-patch')).leaderboards['moves-patch']).toMatchObject({
        rank: 1, breakdownAttributeValue: 'eu', breakdownAttributeValues: [{ key: 'region', value: 'eu' }],
      });
      expect(await rows('moves-patch', 'eu')).toEqual([['mp3', 4.5], ['mp2', 4]]);
      // The same value again changes nothing; PUT moves too, and moving back works.
      expect((await s.request('PUT', '/api/users/mp1', { body: { attributes: { region: 'us' } } })).status).toBe(200);
      expect((await event('mp1', 1, 'mv-patch')).leaderboards['moves-patch']).toMatchObject({ rank: 1, breakdownAttributeValue: 'us' });
      expect(await rows('moves-patch', 'us')).toEqual([['mp1', 6]]);
      expect((await s.request('GET', '/api/users/mp1/leaderboards/moves-patch')).body).toMatchObject({ rank: 1, value: 6 });
      expect((await s.request('PUT', '/api/users/mp1', { body: { attributes: { region: 'eu' } } })).status).toBe(200);
      expect(await rows('moves-patch', 'us')).toEqual([]);
      expect(await rows('moves-patch', 'eu')).toEqual([['mp3', 4.5], ['mp2', 4]]);
      expect((await event('mp1', 1, 'mv-patch')).leaderboards['moves-patch']).toMatchObject({ rank: 1, breakdownAttributeValue: 'eu' });
      expect(await rows('moves-patch', 'eu')).toEqual([['mp1', 7], ['mp3', 4.5]]);
    });

    it('leaves the old group when an event\'s user.attributes move the user, whatever the event\'s metric', async () => {
      await board({ name: 'Moves by event', key: 'moves-event', rankBy: 'metric', metricId: mv['mv-event'], breakdownAttributes: [regionId], maxParticipants: 2 });
      await event({ id: 'me1', attributes: { region: 'eu' } }, 5, 'mv-event');
      await event({ id: 'me2', attributes: { region: 'eu' } }, 4, 'mv-event');
      const moved = await event({ id: 'me1', attributes: { region: 'us' } }, 1, 'mv-event');
      expect(moved.leaderboards['moves-event']).toMatchObject({ rank: 1, breakdownAttributeValue: 'us' });
      expect(await rows('moves-event', 'eu')).toEqual([['me2', 4]]);
      expect(await rows('moves-event', 'us')).toEqual([['me1', 6]]);
      // An event of a metric no board ranks moves the user too (the plain event script).
      expect((await event({ id: 'me2', attributes: { region: 'us' } }, 1, 'mv-plain')).leaderboards).toEqual({});
      expect(await rows('moves-event', 'eu')).toEqual([]);
      expect(await rows('moves-event', 'us')).toEqual([['me1', 6]]);
      expect((await event('me2', 1, 'mv-event')).leaderboards['moves-event']).toMatchObject({ rank: 2, breakdownAttributeValue: 'us' });
      expect(await rows('moves-event', 'us')).toEqual([['me1', 6], ['me2', 5]]);
      // And an API completion's user.attributes.
      const a = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Moved', key: 'moved-api', trigger: 'api' }] });
      expect(a.status, a.text).toBe(201);
      const done = await s.request('POST', '/api/achievements/moved-api/complete', { body: { user: { id: 'me1', attributes: { region: 'eu' } } } });
      expect(done.status, done.text).toBe(201);
      expect(await rows('moves-event', 'us')).toEqual([['me2', 5]]);
    });

    it('refuses in the old group a placement of an event from before the move that arrives after it', async () => {
      const { redis, keys } = s.api.services;
      const created = await board({ name: 'Moves race', key: 'moves-race', rankBy: 'metric', metricId: mv['mv-race'], breakdownAttributes: [regionId], maxParticipants: 5 });
      await event({ id: 'mr1', attributes: { region: 'eu' } }, 5, 'mv-race');
      const eu = keys.leaderboard('_', created.id, created.start, 'eu');
      const first = (await redis.hget(eu.sequences, 'mr1'))!;
      // A second event's phase 1 ran before the move (its seq between the first's and the move's),
      // its placement arrives after the move.
      const ms = Number(first.split('-')[0]);
      const pending = `${ms}-${Number(first.split('-')[1]) + 1}`;
      expect((await s.request('PATCH', '/api/users/mr1', { body: { attributes: { region: 'us' } } })).status).toBe(200);
      const move = (await redis.hget(eu.sequences, 'mr1'))!;
      expect(move).not.toBe(first);
      expect(await rows('moves-race', 'eu')).toEqual([]);
      const now = Date.parse(`${created.start}T10:00:00Z`);
      const late = await redis.leaderboardRank(eu.ranking, eu.members, eu.history('mr1'), eu.awards('mr1'), eu.expiry, eu.falls, eu.sequences, eu.stats,
        'mr1', '6', orderOf(now), '-5', String(now), '', pending);
      expect(late[0]).toBe(0);
      // An award sum of such an event too.
      const sum = await redis.leaderboardRank(eu.ranking, eu.members, eu.history('mr1'), eu.awards('mr1'), eu.expiry, eu.falls, eu.sequences, eu.stats,
        'mr1', '0', orderOf(now), '-5', String(now), '', pending, '1', '10');
      expect(sum[0]).toBe(0);
      expect(await rows('moves-race', 'eu')).toEqual([]);
      expect(await redis.hget(eu.sequences, 'mr1')).toBe(move);
      // A departure older than the place the user holds changes nothing (they came back since).
      const later = `${Number(move.split('-')[0]) + 1}-0`;
      expect((await redis.leaderboardRank(eu.ranking, eu.members, eu.history('mr1'), eu.awards('mr1'), eu.expiry, eu.falls, eu.sequences, eu.stats,
        'mr1', '8', orderOf(now), '-5', String(now), '', later))[0]).toBe(1);
      expect(await redis.leaderboardLeave(eu.ranking, eu.members, eu.history('mr1'), eu.expiry, eu.falls, eu.sequences, 'mr1', move, String(now))).toBe(0);
      expect(await rows('moves-race', 'eu')).toEqual([['mr1', 8]]);
    });
  });

  describe('points and streak boards', () => {
    let p: TestServer;
    const play = async (user: string, value = 1) => (await p.event('plays', user, value)).leaderboards;
    const ranked = async (key: string, query = '') => {
      const r = await p.request('GET', `/api/leaderboards/${key}${query}`);
      expect(r.status, r.text).toBe(200);
      return (r.body.rankings as { userId: string; value: number }[]).map((x) => [x.userId, x.value]);
    };

    beforeAll(async () => {
      p = await startTestServer({ target, clock: 'manual' });
      await p.setClock('2026-09-01T10:00:00Z');
      const ids = await p.metrics('plays');
      const ach = await p.request('POST', '/admin/v1/achievements', { body: [{ name: 'Bonus', key: 'bonus', trigger: 'api' }] });
      const system = await p.request('POST', '/admin/v1/points', {
        body: [{
          name: 'XP', key: 'xp',
          triggers: [
            { type: 'metric', metricId: ids.plays, metricThreshold: 1, points: 10, status: 'active' },
            { type: 'achievement', achievementId: ach.body.created[0].id, points: 100, status: 'active' },
          ],
        }],
      });
      expect(system.status, system.text).toBe(201);
      const xp = system.body.created[0].id;
      await putStreakSettings(p, { frequency: 'daily', metrics: [{ metricId: ids.plays, threshold: 1 }] });
      const boards = await p.request('POST', '/admin/v1/leaderboards', {
        body: [
          { name: 'XP all time', key: 'xp-all', rankBy: 'points', pointsSystemId: xp, status: 'active' },
          { name: 'XP today', key: 'xp-daily', rankBy: 'points', pointsSystemId: xp, status: 'active', runUnit: 'day', runInterval: 1 },
          { name: 'Streaks', key: 'streaky', rankBy: 'streak', status: 'active' },
        ],
      });
      expect(boards.status, boards.text).toBe(201);
    });
    afterAll(async () => { await p?.close(); });

    it('ranks points boards by the total (perpetual) or the points gained in the run, from events and API completions', async () => {
      const first = await play('u1', 2);
      expect(first['xp-all']).toMatchObject({ rankBy: 'points', pointsSystemKey: 'xp', pointsSystemName: 'XP', rank: 1 });
      expect(first['xp-daily']).toMatchObject({ rank: 1, end: '2026-09-01' });
      await play('u2');
      // Each placement of a total carries the log entry id of the script that made it, the API
      // completion's too: a later one's, so an event placed late cannot take the total back.
      const { redis, keys } = p.api.services;
      const all = ((await p.request('GET', '/admin/v1/leaderboards?limit=100')).body as { id: string; key: string; start: string }[])
        .find((b) => b.key === 'xp-all')!;
      const k = keys.leaderboard('_', all.id, all.start, '');
      const idOf = async () => (await redis.hget(k.sequences, 'u2'))!.split('-').map(Number);
      const afterEvent = await idOf();
      const bonus = await p.request('POST', '/api/achievements/bonus/complete', { body: { user: { id: 'u2' } } });
      expect(bonus.status).toBe(201);
      const afterCompletion = await idOf();
      expect(afterCompletion[0] > afterEvent[0] || (afterCompletion[0] === afterEvent[0] && afterCompletion[1] > afterEvent[1])).toBe(true);
      expect(await ranked('xp-all')).toEqual([['u2', 110], ['u1', 20]]);
      await p.setClock('2026-09-02T10:00:00Z');
      await play('u1');
      expect(await ranked('xp-all')).toEqual([['u2', 110], ['u1', 30]]);
      expect(await ranked('xp-daily')).toEqual([['u1', 10]]);
      expect(await ranked('xp-daily', '?run=2026-09-01')).toEqual([['u2', 110], ['u1', 20]]);
    });

    it('ranks streak boards by the current length, and drops a streak once it is lost', async () => {
      expect(await ranked('streaky')).toEqual([['u1', 2], ['u2', 1]]);
      await p.setClock('2026-09-03T10:00:00Z');
      // u2's one-day streak of September 1st ended with September 2nd.
      expect(await ranked('streaky')).toEqual([['u1', 2]]);
      await p.setClock('2026-09-05T10:00:00Z');
      expect(await ranked('streaky')).toEqual([]);
      expect((await play('u2'))['streaky']).toMatchObject({ rank: 1 });
      expect(await ranked('streaky')).toEqual([['u2', 1]]);
      // An admin's restore brings u1's streak back to its longest: the board shows it.
      const restore = await p.request('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'u1' }] } });
      expect(restore.body.restoredUsers).toEqual(['u1']);
      expect(await ranked('streaky')).toEqual([['u1', 2], ['u2', 1]]);
    });

    it('drops lost streaks when an event ranks a streak board too, not only when the board is read', async () => {
      const made = await p.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Best streak', key: 'streak-one', rankBy: 'streak', maxParticipants: 1, status: 'active' }],
      });
      expect(made.status, made.text).toBe(201);
      await p.setClock('2026-09-10T10:00:00Z');
      expect((await play('s1'))['streak-one']).toMatchObject({ rank: 1 });
      // s1's streak of September 10th is lost once the 11th has passed. Nobody reads the board
      // (a read removes lost streaks too): s2's event finds the board holding s1, and lets s2 in.
      await p.setClock('2026-09-12T10:00:00Z');
      expect((await play('s2'))['streak-one']).toMatchObject({ rank: 1, previousRank: null });
      expect(await ranked('streak-one')).toEqual([['s2', 1]]);
      // s3's two days push s2 out. When s2's streak is lost later, nobody leaves the board: the
      // falls counter (the entry gate's) stays as it was.
      await play('s3');
      await p.setClock('2026-09-13T10:00:00Z');
      expect((await play('s3'))['streak-one']).toMatchObject({ rank: 1 });
      const board = made.body.created[0] as { id: string; start: string };
      const { redis, keys } = p.api.services;
      const k = keys.leaderboard('_', board.id, board.start, '');
      const falls = await redis.get(k.falls);
      await p.setClock('2026-09-14T10:00:00Z');
      expect(await ranked('streak-one')).toEqual([['s3', 2]]);
      expect(await redis.get(k.falls)).toBe(falls);
      expect(await redis.zscore(k.expiry, 's2')).toBeNull();
    });

    it('counts only the points awarded inside a points board\'s daily window, from events and API completions, in the user\'s zone', async () => {
      const made = await p.request('POST', '/admin/v1/leaderboards', {
        body: [
          { name: 'XP office', key: 'xp-office', rankBy: 'points', pointsSystemKey: 'xp', status: 'active', startTime: '09:00', endTime: '17:00' },
          { name: 'XP office today', key: 'xp-office-day', rankBy: 'points', pointsSystemKey: 'xp', status: 'active', startTime: '09:00', endTime: '17:00', runUnit: 'day', runInterval: 1 },
        ],
      });
      expect(made.status, made.text).toBe(201);
      await p.setClock('2026-09-20T08:00:00Z');
      expect(Object.keys(await play('w1'))).not.toContain('xp-office');
      await p.setClock('2026-09-20T10:00:00Z');
      expect((await play('w1'))['xp-office']).toMatchObject({ rank: 1 });
      const bonus = await p.request('POST', '/api/achievements/bonus/complete', { body: { user: { id: 'w1' } } });
      expect(bonus.status, bonus.text).toBe(201);
      // 10:00 UTC is 00:00 the next day in Kiritimati: outside the window.
      const kiri = await p.request('POST', '/api/metrics/plays/event', { body: { user: { id: 'w2', tz: 'Pacific/Kiritimati' }, value: 3 } });
      expect(Object.keys(kiri.body.leaderboards)).not.toContain('xp-office');
      await p.setClock('2026-09-20T17:00:00Z');
      expect(Object.keys(await play('w1'))).not.toContain('xp-office');
      // w1 holds 130 points in all (the bonus and three plays); 110 of them were made in the window.
      expect((await p.request('GET', '/api/users/w1/points/xp')).body.total).toBe(130);
      expect(await ranked('xp-office')).toEqual([['w1', 110]]);
      expect(await ranked('xp-office-day')).toEqual([['w1', 110]]);
    });

    it('keeps a windowed or repeating points board\'s awards bounded: past 200, the oldest fold into a sum that a repeat cannot add to again', async () => {
      const { redis, keys } = p.api.services;
      const k = keys.leaderboard('_', 'fold-board', '2026-01-01', '');
      const awards = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => [String(from + i), String(from + i)]).flat();
      const place = async (pairs: string[]) => (await redis.leaderboardRank(
        k.ranking, k.members, k.history('fu'), k.awards('fu'), k.expiry, k.falls, k.sequences, k.stats, 'fu', '0', '000000000000001', 10, 0, '', '', ...pairs))[0];
      const sum = (n: number) => (n * (n + 1)) / 2;
      expect(await place(awards(1, 150))).toBe(1);
      expect(await redis.zscore(k.ranking, (await redis.hget(k.members, 'fu'))!)).toBe(String(sum(150)));
      await place(awards(151, 250));
      expect(await redis.zscore(k.ranking, (await redis.hget(k.members, 'fu'))!)).toBe(String(sum(250)));
      const fields = await redis.hkeys(k.awards('fu'));
      expect(fields.length).toBe(102);
      expect(await redis.hget(k.awards('fu'), 'w')).toBe('150');
      // Every award placed again, folded or not: nothing added. A new one adds.
      await place(awards(1, 250));
      expect(await redis.zscore(k.ranking, (await redis.hget(k.members, 'fu'))!)).toBe(String(sum(250)));
      await place(['251', '1000']);
      expect(await redis.zscore(k.ranking, (await redis.hget(k.members, 'fu'))!)).toBe(String(sum(250) + 1000));
    });
  });

  describe('finalisation', () => {
    let f: TestServer;
    const play = (user: Record<string, unknown>) => f.request('POST', '/api/metrics/plays/event', { body: { user, value: 1 } });
    const runOfDay = (date: string) => f.request('GET', `/api/leaderboards/daily?run=${date}`);

    beforeAll(async () => {
      f = await startTestServer({ target, clock: 'manual', workers: true });
      await f.setClock('2026-10-01T12:00:00Z');
      const ids = await f.metrics('plays');
      const r = await f.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Daily', key: 'daily', rankBy: 'metric', metricId: ids.plays, status: 'active', runUnit: 'day', runInterval: 1, start: '2026-10-01', end: '2026-10-03' }],
      });
      expect(r.status, r.text).toBe(201);
    });
    afterAll(async () => { await f?.close(); });

    it('counts each user in the run of their local date and finalises a run once the last zone has finished it', async () => {
      // 12:00 UTC on October 1st: 02:00 on the 2nd in Kiritimati (UTC+14), 01:00 on the 1st in Pago Pago (UTC-11).
      expect((await play({ id: 'east', tz: 'Pacific/Kiritimati' })).status).toBe(201);
      expect((await play({ id: 'west', tz: 'Pacific/Pago_Pago' })).status).toBe(201);
      expect((await runOfDay('2026-10-01')).body.rankings.map((x: any) => x.userId)).toEqual(['west']);
      expect((await runOfDay('2026-10-02')).body.rankings.map((x: any) => x.userId)).toEqual(['east']);
      // 10:30 UTC on the 2nd: still 23:30 on the 1st in Pago Pago, so west's event counts in the 1st's run.
      await f.setClock('2026-10-02T10:30:00Z');
      await play({ id: 'west2', tz: 'Pacific/Pago_Pago' });
      expect((await runOfDay('2026-10-01')).body.rankings.map((x: any) => x.userId)).toEqual(['west', 'west2']);
      await f.workers!.testing.finaliseNow();
      expect((await runOfDay('2026-10-01')).body).toMatchObject({ run: '2026-10-01', finalised: null, winners: null });
      // 36 hours after the 1st began in UTC, the last zone has finished it.
      await f.setClock('2026-10-02T12:00:00Z');
      // (The workers' own pass may get there first: look at the result, not at who did it.)
      await f.workers!.testing.finaliseNow();
      const done = (await runOfDay('2026-10-01')).body;
      expect(done.finalised).toBe('2026-10-02T12:00:00.000Z');
      expect(done.winners).toEqual([{ userId: 'west', rank: 1, value: 1 }, { userId: 'west2', rank: 2, value: 1 }]);
      expect((await runOfDay('2026-10-02')).body.finalised).toBeNull();
      // A pass that gets there late records when the run became final, not when it ran (a
      // restore's pass records the same as the original's).
      await f.setClock('2026-10-03T15:30:00Z');
      await f.workers!.testing.finaliseNow();
      expect((await runOfDay('2026-10-02')).body.finalised).toBe('2026-10-03T12:00:00.000Z');
    });

    it('finishes the board after its last run: gone from the list, its runs still readable', async () => {
      await f.setClock('2026-10-04T11:59:00Z');
      expect((await f.request('GET', '/api/leaderboards')).body.map((b: any) => b.key)).toEqual(['daily']);
      await f.setClock('2026-10-04T12:00:00Z');
      await f.workers!.testing.finaliseNow();
      expect((await runOfDay('2026-10-03')).body.finalised).toBe('2026-10-04T12:00:00.000Z');
      expect((await f.request('GET', '/api/leaderboards')).body).toEqual([]);
      const all = await f.request('GET', '/api/leaderboards?includeFinished=true');
      expect(all.body.map((b: any) => [b.key, b.status])).toEqual([['daily', 'finished']]);
      expect((await runOfDay('2026-10-02')).body).toMatchObject({ status: 'finished', winners: [{ userId: 'east', rank: 1 }] });
    });

    it('finalises a board an admin finished at once, up to the run of that day', async () => {
      await f.setClock('2026-10-05T09:00:00Z');
      const created = await f.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Forever', key: 'forever', rankBy: 'metric', metricKey: 'plays', status: 'active' }],
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.created[0].id as string;
      await play({ id: 'f1' });
      await play({ id: 'f2' });
      await play({ id: 'f2' });
      await f.workers!.testing.finaliseNow();
      expect((await f.request('GET', '/api/leaderboards/forever')).body.finalised).toBeNull();
      await f.setClock('2026-10-05T10:00:00Z');
      const finished = await f.request('PATCH', '/admin/v1/leaderboards', { body: [{ id, status: 'finished' }] });
      expect(finished.body.updated[0].status, finished.text).toBe('finished');
      // A board without an end, finished by hand: no end date passes, yet its run is over.
      await f.setClock('2026-10-05T10:00:05Z');
      await f.workers!.testing.finaliseNow();
      const board = (await f.request('GET', '/api/leaderboards/forever')).body;
      expect(board).toMatchObject({ status: 'finished', finalised: '2026-10-05T10:00:05.000Z' });
      expect(board.winners).toEqual([{ userId: 'f2', rank: 1, value: 2 }, { userId: 'f1', rank: 2, value: 1 }]);
      // Events no longer rank on it.
      await play({ id: 'f3' });
      expect((await f.request('GET', '/api/leaderboards/forever')).body.rankings.map((x: any) => x.userId)).toEqual(['f2', 'f1']);
      // Its one run is final once: later passes find nothing to do, and it keeps its moment.
      await f.setClock('2026-10-05T11:00:00Z');
      expect((await f.workers!.testing.finaliseNow()).runs).toBe(0);
      expect((await f.request('GET', '/api/leaderboards/forever')).body.finalised).toBe('2026-10-05T10:00:05.000Z');
    });

    it('finalises a board of one run created already ended once, and never again', async () => {
      await f.setClock('2026-10-06T09:00:00Z');
      const created = await f.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Ended', key: 'ended', rankBy: 'metric', metricKey: 'plays', status: 'active', start: '2026-09-01', end: '2026-09-20' }],
      });
      expect(created.status, created.text).toBe(201);
      // The workers' own pass may take it first: one of the two passes finalised one run.
      const first = (await f.workers!.testing.finaliseNow()).runs;
      expect(first).toBeLessThanOrEqual(1);
      expect((await f.request('GET', '/api/leaderboards/ended?includeFinished=true')).body.finalised).toBe('2026-09-21T12:00:00.000Z');
      await f.setClock('2026-10-07T08:00:00Z');
      expect((await f.workers!.testing.finaliseNow()).runs).toBe(0);
    });

    it('reads a repeating board an admin finished at its last run, and no run after it', async () => {
      await f.setClock('2026-10-07T09:00:00Z');
      const created = await f.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Daily', key: 'daily-stopped', rankBy: 'metric', metricKey: 'plays', status: 'active', runUnit: 'day', runInterval: 1 }],
      });
      expect(created.status, created.text).toBe(201);
      await play({ id: 'ds1' });
      const finished = await f.request('PATCH', '/admin/v1/leaderboards', { body: [{ id: created.body.created[0].id, status: 'finished' }] });
      expect(finished.body.updated[0].status, finished.text).toBe('finished');
      await f.setClock('2026-10-09T12:00:00Z');
      const board = (await f.request('GET', '/api/leaderboards/daily-stopped')).body;
      expect(board).toMatchObject({ run: '2026-10-07', runEnd: '2026-10-07', status: 'finished' });
      expect(board.rankings.map((x: any) => x.userId)).toEqual(['ds1']);
      expect((await f.request('GET', '/api/users/ds1/leaderboards/daily-stopped')).body).toMatchObject({ run: '2026-10-07', rank: 1 });
      for (const run of ['2026-10-08', '2030-01-01']) {
        expect((await f.request('GET', `/api/leaderboards/daily-stopped?run=${run}`)).status, run).toBe(404);
      }
    });
  });

  describe('phase 2 after a crash', () => {
    let c: TestServer;

    beforeAll(async () => {
      // One heartbeat at start-up: the test decides when the process looks dead.
      c = await startTestServer({ target, workers: true, env: { LAUREL_HEARTBEAT_MS: '3600000' } });
      const ids = await c.metrics('plays');
      const r = await c.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Plays', key: 'plays', rankBy: 'metric', metricId: ids.plays, status: 'active' }],
      });
      expect(r.status, r.text).toBe(201);
    });
    afterAll(async () => { await c?.close(); });

    it('lets the log drainer place the events of an api process that died before its phase 2', async () => {
      const { redis, keys, processId } = c.api.services;
      const board = (await c.request('GET', '/admin/v1/leaderboards')).body[0] as { id: string; start: string; metricId: string };
      const k = keys.leaderboard('_', board.id, board.start, '');
      // A live process: an event whose phase 2 went missing stays missing (phase 2 is its process's).
      await redis.hset(keys.apiProcesses, processId, String(Date.now()));
      expect((await c.request('POST', '/api/metrics/plays/event', { body: { user: { id: 'p1' }, value: 4 } })).status).toBe(201);
      await redis.del(k.ranking, k.members);
      await c.workers!.testing.drainNow();
      expect(await redis.zcard(k.ranking)).toBe(0);
      // A process that died after phase 1: its event in the log, and no phase 2 ever ran.
      await redis.hset(keys.apiProcesses, 'dead-process', String(Date.now() - 60_000));
      const u = keys.forUser('_', 'p2');
      const now = Date.now();
      const day = new Date(now).toISOString().slice(0, 10);
      const entry = JSON.stringify({ e: 'e-dead', t: '_', u: 'p2', m: board.metricId, v: 3, ts: now, d: day, p: 'dead-process' });
      const r = await redis.recordEvent(u.user, keys.userMetric(u, board.metricId), u.users, u.log,
        `0010|m:${board.metricId}|3|d:${day}||${now}|${clockArg(userTime('', null, now))}|`, '', new Date(now).toISOString() + 'p2', entry);
      expect(r).toMatch(/^3\n1\n\n\n0\n\n\n\d+-\d+\n$/);
      await c.workers!.testing.drainNow();
      const rankings = rowsOf((await c.request('GET', '/api/leaderboards/plays')).body);
      expect(rankings).toEqual([{ userId: 'p2', userName: null, rank: 1, value: 3 }]);
      // Placed in the order of the user's events, by the replayed entry's id: a placement of an
      // earlier event that arrives after it changes nothing.
      const seq = (r as string).split('\n')[7];
      expect(await redis.hget(k.sequences, 'p2')).toBe(seq);
      const earlier = `${Number(seq.split('-')[0]) - 1}-0`;
      const late = await redis.leaderboardRank(k.ranking, k.members, k.history('p2'), k.awards('p2'), k.expiry, k.falls, k.sequences, k.stats,
        'p2', '1', orderOf(now - 1), '1000', String(now), '', earlier);
      expect(late[0]).toBe(1);
      expect(rowsOf((await c.request('GET', '/api/leaderboards/plays')).body)).toEqual([{ userId: 'p2', userName: null, rank: 1, value: 3 }]);
    });

    it('places the events of a process that dies after the drainer copied them, once', async () => {
      const { redis, keys } = c.api.services;
      const board = (await c.request('GET', '/admin/v1/leaderboards')).body[0] as { id: string; start: string; metricId: string };
      const k = keys.leaderboard('_', board.id, board.start, '');
      const onBoard = async () => ((await c.request('GET', '/api/leaderboards/plays')).body.rankings as { userId: string; value: number }[])
        .filter((x) => x.userId === 'lc1').map((x) => x.value);
      // Alive when its event (phase 1 only) is copied to Postgres: phase 2 is still its own.
      const beat = String(Date.now());
      await redis.hset(keys.apiProcesses, 'dies-later', beat);
      const u = keys.forUser('_', 'lc1');
      const now = Date.now();
      const day = new Date(now).toISOString().slice(0, 10);
      const entry = JSON.stringify({ e: 'e-dies-later', t: '_', u: 'lc1', m: board.metricId, v: 5, ts: now, d: day, p: 'dies-later' });
      await redis.recordEvent(u.user, keys.userMetric(u, board.metricId), u.users, u.log,
        `0010|m:${board.metricId}|5|d:${day}||${now}|${clockArg(userTime('', null, now))}|`, '', new Date(now).toISOString() + 'lc1', entry);
      await c.workers!.testing.drainNow();
      expect(await onBoard()).toEqual([]);
      // It falls silent: its last heartbeat 20 s ago. The entry, copied already, is still in the log.
      const last = String(Date.now() - 20_000);
      await redis.hset(keys.apiProcesses, 'dies-later', last);
      await c.workers!.testing.drainNow();
      expect(await onBoard()).toEqual([5]);
      expect(await redis.hget(keys.apiReplayed, 'dies-later')).toBe(last);
      // Once for that heartbeat: taken off the board, it stays off.
      await redis.del(k.ranking, k.members, k.sequences);
      await c.workers!.testing.drainNow();
      expect(await onBoard()).toEqual([]);
    });

    it('places such an event on a board with a daily window only when it was made inside the window', async () => {
      const { redis, keys } = c.api.services;
      const metricId = ((await c.request('GET', '/admin/v1/metrics')).body as { id: string; key: string }[]).find((m) => m.key === 'plays')!.id;
      const now = Date.now();
      const hour = new Date(now).getUTCHours();
      const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
      // The user has no zone: UTC. One window holds this hour, the other does not.
      const r = await c.request('POST', '/admin/v1/leaderboards', {
        body: [
          { name: 'Now', key: 'plays-now', rankBy: 'metric', metricId, startTime: hh(hour), endTime: hh(hour + 2), status: 'active' },
          { name: 'Later', key: 'plays-later', rankBy: 'metric', metricId, startTime: hh(hour + 3), endTime: hh(hour + 5), status: 'active' },
        ],
      });
      expect(r.status, r.text).toBe(201);
      const [inside, outside] = r.body.created as { id: string; start: string }[];
      // What phase 1 wrote for the event: the total, and the in-window sums (phase 1 adds the
      // value only to the boards whose window holds the event; both here, to see the drainer choose).
      const u = keys.forUser('_', 'p3');
      const day = new Date(now).toISOString().slice(0, 10);
      const entry = JSON.stringify({ e: 'e-dead-2', t: '_', u: 'p3', m: metricId, v: 2, ts: now, d: day, p: 'dead-process' });
      expect((await redis.recordEvent(u.user, keys.userMetric(u, metricId), u.users, u.log,
        `0010|m:${metricId}|2|d:${day}||${now}|${clockArg(userTime('', null, now))}|`, '', new Date(now).toISOString() + 'p3', entry))).toMatch(/^2\n1\n\n\n0\n\n\n\d+-\d+\n$/);
      await redis.hset(keys.userMetric(u, metricId), `r:${inside.id}:${inside.start}`, '2', `r:${outside.id}:${outside.start}`, '2');
      await c.workers!.testing.drainNow();
      expect(rowsOf((await c.request('GET', '/api/leaderboards/plays-now')).body)).toEqual([{ userId: 'p3', userName: null, rank: 1, value: 2 }]);
      expect((await c.request('GET', '/api/leaderboards/plays-later')).body.rankings).toEqual([]);
    });

    it('places the points awards of such an event too: the total on a perpetual board, only awards made inside a points board\'s window', async () => {
      const { redis, keys } = c.api.services;
      const metricId = ((await c.request('GET', '/admin/v1/metrics')).body as { id: string; key: string }[]).find((m) => m.key === 'plays')!.id;
      const system = await c.request('POST', '/admin/v1/points', {
        body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 10, status: 'active' }] }],
      });
      expect(system.status, system.text).toBe(201);
      const systemId = system.body.created[0].id as string;
      const triggerId = system.body.created[0].triggers[0].id as string;
      const now = Date.now();
      const hour = new Date(now).getUTCHours();
      const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
      const r = await c.request('POST', '/admin/v1/leaderboards', {
        body: [
          { name: 'XP', key: 'xp-total', rankBy: 'points', pointsSystemId: systemId, status: 'active' },
          { name: 'XP now', key: 'xp-now', rankBy: 'points', pointsSystemId: systemId, startTime: hh(hour), endTime: hh(hour + 2), status: 'active' },
          { name: 'XP later', key: 'xp-later', rankBy: 'points', pointsSystemId: systemId, startTime: hh(hour + 3), endTime: hh(hour + 5), status: 'active' },
        ],
      });
      expect(r.status, r.text).toBe(201);
      // The log entry of an event whose process died after phase 1: its second award, 20 in all.
      const u = keys.forUser('_', 'p4');
      const day = new Date(now).toISOString().slice(0, 10);
      const entry = JSON.stringify({ e: 'e-dead-3', t: '_', u: 'p4', m: metricId, v: 1, ts: now, d: day, p: 'dead-process', pa: [[systemId, triggerId, 10, 20, 2, '']] });
      await redis.xadd(u.log, '*', 'event', entry);
      await c.workers!.testing.drainNow();
      const rows = async (key: string) => ((await c.request('GET', `/api/leaderboards/${key}`)).body.rankings as { userId: string; value: number }[])
        .map((x) => [x.userId, x.value]);
      expect(await rows('xp-total')).toEqual([['p4', 20]]);
      expect(await rows('xp-now')).toEqual([['p4', 10]]);
      expect(await rows('xp-later')).toEqual([]);
    });
  });
});
