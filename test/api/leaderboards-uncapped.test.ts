/**
 * Boards without a cap (docs/api.md, "Boards without a cap"), on single Redis and on the Cluster:
 * 1,500 users placed through the batch events and the event path on uncapped boards (metric,
 * points, streak, repeating, breakdown groups) every one ranked exactly, beside a capped board
 * that keeps its 1,000; every user's participants and percentile, the window around a user, a
 * friends board, and the refusals of bad queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, batchApplied, putStreakSettings } from '../support/admin.js';
import { sdkClient } from '../support/sdk.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { percentileOf } from '../../src/domain/leaderboards/cap.js';

const USERS = 1500;
/** User i (0-based) plays i + 1 times: rank USERS - i. */
const id = (i: number) => `u${String(i).padStart(4, '0')}`;
const rankOf = (i: number) => USERS - i;

describe.each(targets())('boards without a cap on %s', (target) => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    const { region } = await s.attributes('user', 'region');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: plays, threshold: 1 }] });
    const xp = await adminCreateOne(s, '/admin/v1/points', {
      name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: plays, metricThreshold: 1, points: 1, status: 'active' }],
    });
    const common = { status: 'active', start: '2026-01-01' };
    for (const board of [
      { name: 'Open', key: 'open', rankBy: 'metric', metricId: plays, maxParticipants: null },
      { name: 'Open daily', key: 'open-daily', rankBy: 'metric', metricId: plays, uncapped: true, runUnit: 'day', runInterval: 1 },
      { name: 'Open regions', key: 'open-regions', rankBy: 'metric', metricId: plays, maxParticipants: null, breakdownAttributes: [region] },
      { name: 'Open XP', key: 'open-xp', rankBy: 'points', pointsSystemId: xp.id, uncapped: true },
      { name: 'Open streaks', key: 'open-streaks', rankBy: 'streak', maxParticipants: null },
      { name: 'Capped', key: 'capped', rankBy: 'metric', metricId: plays },
    ]) await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, ...board });
    // 1,500 users through the batch events, two batches.
    const items = Array.from({ length: USERS }, (_, i) => ({
      key: 'plays', user: { id: id(i), name: `Player ${i}`, attributes: { region: i % 2 === 0 ? 'north' : 'south' } }, value: i + 1,
    }));
    await batchApplied(s, items, 750);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const read = async (path: string) => {
    const r = await s.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  const refused = async (path: string, message: RegExp) => {
    const r = await s.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(422);
    expect(r.body.code).toBe('invalid_query');
    expect(r.body.error).toMatch(message);
  };

  it('ranks every participant exactly, where a capped board keeps its 1,000', async () => {
    for (const key of ['open', 'open-daily', 'open-xp']) {
      const first = await read(`/v1/leaderboards/${key}?limit=1000`);
      const rest = await read(`/v1/leaderboards/${key}?offset=1000&limit=1000`);
      expect(first.participants).toBe(USERS);
      const rows = [...first.rankings, ...rest.rankings];
      expect(rows).toHaveLength(USERS);
      rows.forEach((row: { userId: string; rank: number; value: number; userName: string }, k: number) => {
        const i = USERS - 1 - k;
        expect(row, key).toEqual({ userId: id(i), userName: `Player ${i}`, rank: k + 1, value: i + 1, percentile: percentileOf(k + 1, USERS) });
      });
    }
    // Every user has a streak of one: all ranked, none left out.
    expect((await read('/v1/leaderboards/open-streaks?limit=1')).participants).toBe(USERS);
    const capped = await read('/v1/leaderboards/capped?offset=990&limit=1000');
    expect(capped.participants).toBe(1000);
    expect(capped.rankings).toHaveLength(10);
    expect(capped.rankings.at(-1)).toMatchObject({ userId: id(500), rank: 1000, value: 501 });
    expect(capped.maxParticipants).toBe(1000);
    expect(capped.uncapped).toBeUndefined();
    // An uncapped board shows a number the SDK takes, and says it is uncapped.
    expect((await read('/v1/leaderboards/open?limit=0')).maxParticipants).toBe(Number.MAX_SAFE_INTEGER);
    expect((await read('/v1/leaderboards/open?limit=0')).uncapped).toBe(true);
  });

  it('answers each user\'s participants and percentile, below the first 1,000 too', async () => {
    const place = (user: number, key = 'open') => read(`/v1/users/${id(user)}/leaderboards/${key}?numEvents=0`);
    expect(await place(1499)).toMatchObject({ rank: 1, value: 1500, participants: USERS, percentile: 100 });
    expect(await place(299)).toMatchObject({ rank: 1201, value: 300, participants: USERS, percentile: 20 });
    expect(await place(0)).toMatchObject({ rank: 1500, value: 1, participants: USERS, percentile: 0 });
    // A group's count: 750 in each region; the south's best is user 1499.
    expect(await place(1499, 'open-regions')).toMatchObject({ rank: 1, participants: 750, percentile: 100 });
    expect(await place(1, 'open-regions')).toMatchObject({ rank: 750, participants: 750, percentile: 0.1 });
    // Off a capped board: no rank, the board's count.
    expect(await place(0, 'capped')).toMatchObject({ rank: null, value: null, participants: 1000, percentile: null });
    expect(await place(1000, 'capped')).toMatchObject({ rank: 500, participants: 1000, percentile: 50.1 });
  });

  it('places through the event path below and above the first 1,000, the capped board pushing its lowest out', async () => {
    // u0001 (2 plays, rank 1499) plays 1,200 more: 1,202, which u1201 reached first, is rank 300.
    const answer = await s.event('plays', id(1), 1200);
    expect(answer.leaderboards.open).toMatchObject({ rank: 300, previousRank: 1499, threshold: 0, uncapped: true });
    expect(answer.leaderboards.capped).toMatchObject({ rank: 300, previousRank: null, threshold: 502 });
    expect(await read(`/v1/users/${id(1)}/leaderboards/open?numEvents=0`)).toMatchObject({ rank: 300, value: 1202, participants: USERS });
    expect(await read(`/v1/users/${id(1201)}/leaderboards/open?numEvents=0`)).toMatchObject({ rank: 299, value: 1202 });
    const capped = await read('/v1/leaderboards/capped?offset=999&limit=1');
    expect(capped).toMatchObject({ participants: 1000, rankings: [{ userId: id(501), rank: 1000, value: 502 }] });
    expect(await read(`/v1/users/${id(500)}/leaderboards/capped?numEvents=0`)).toMatchObject({ rank: null, participants: 1000 });
    // A newcomer on the uncapped board: always enters, at the bottom.
    const newcomer = await s.event('plays', { id: 'late', attributes: { region: 'north' } }, 1);
    expect(newcomer.leaderboards.open).toMatchObject({ rank: USERS + 1, threshold: 0 });
    expect(newcomer.leaderboards.capped).toBeUndefined();
    expect(await read('/v1/users/late/leaderboards/open-regions?numEvents=0')).toMatchObject({ participants: 751 });
  });

  it('reads the window around any user, clamped at the top', async () => {
    // u0200: 201 plays, rank 1,300 (or 1,301 once late's 1 and u0001's move counted: read it).
    const me = await read(`/v1/users/${id(200)}/leaderboards/open?numEvents=0`);
    const window = await read(`/v1/leaderboards/open?userId=${id(200)}&offset=-5&limit=11`);
    expect(window.rankings.map((r: { rank: number }) => r.rank)).toEqual(Array.from({ length: 11 }, (_, k) => me.rank - 5 + k));
    expect(window.rankings[5]).toMatchObject({ userId: id(200), value: 201 });
    expect(window.percentile).toBe(me.percentile);
    expect(window.participants).toBe(me.participants);
    // Each row's own name, the user read around (whose name is read beside their place) too.
    const nameOf = (userId: string) => `Player ${Number(userId.slice(1))}`;
    for (const row of window.rankings as { userId: string; userName: string }[]) expect(row.userName, row.userId).toBe(nameOf(row.userId));
    // The user alone (a user's own rank), and a page below them, which they are not on.
    const own = await read(`/v1/leaderboards/open?userId=${id(200)}&limit=1`);
    expect(own).toMatchObject({ rankings: [{ userId: id(200), userName: 'Player 200', rank: me.rank, value: 201 }], percentile: me.percentile });
    const below = await read(`/v1/leaderboards/open?userId=${id(200)}&offset=1&limit=2`);
    expect(below.rankings.map((r: { rank: number }) => r.rank)).toEqual([me.rank + 1, me.rank + 2]);
    for (const row of below.rankings as { userId: string; userName: string }[]) expect(row.userName, row.userId).toBe(nameOf(row.userId));
    // Rank 2: from the top, still 11 rows.
    const top = await read(`/v1/leaderboards/open?userId=${id(1498)}&offset=-5&limit=11`);
    expect(top.rankings.map((r: { rank: number }) => r.rank)).toEqual(Array.from({ length: 11 }, (_, k) => k + 1));
    expect(top.rankings[1].userId).toBe(id(1498));
    // Someone not on the board: nothing around them.
    expect(await read('/v1/leaderboards/open?userId=nobody&offset=-5&limit=11')).toMatchObject({ rankings: [], percentile: null });
    // A breakdown group's window.
    const south = await read(`/v1/leaderboards/open-regions?userAttributes=region:south&userId=${id(1497)}&offset=-1&limit=3`);
    expect(south.rankings.map((r: { userId: string }) => r.userId)).toEqual([id(1499), id(1497), id(1495)]);
    expect(south.participants).toBe(750);
  });

  it('ranks a friends board among themselves, each with their place on the whole board', async () => {
    const friends = [id(3), id(1400), 'nobody', id(700), id(700)].join(',');
    const board = await read(`/v1/leaderboards/open?userIds=${friends}`);
    const place = async (user: string) => (await read(`/v1/users/${user}/leaderboards/open?numEvents=0`)) as { rank: number; percentile: number };
    const [a, b, c] = await Promise.all([place(id(1400)), place(id(700)), place(id(3))]);
    expect(board.participants).toBe(USERS + 1);
    expect(board.rankings).toEqual([
      { userId: id(1400), userName: 'Player 1400', rank: 1, boardRank: a.rank, value: 1401, percentile: a.percentile },
      { userId: id(700), userName: 'Player 700', rank: 2, boardRank: b.rank, value: 701, percentile: b.percentile },
      { userId: id(3), userName: 'Player 3', rank: 3, boardRank: c.rank, value: 4, percentile: c.percentile },
    ]);
    expect(a.rank).toBe(rankOf(1400));
    // Repeated, one id each; with the most ids it takes.
    expect((await read(`/v1/leaderboards/open?userIds=${id(3)}&userIds=${id(1400)}`)).rankings.map((r: { rank: number }) => r.rank)).toEqual([1, 2]);
    const most = Array.from({ length: 1000 }, (_, i) => id(i)).join(',');
    expect((await read(`/v1/leaderboards/open?userIds=${most}`)).rankings).toHaveLength(1000);
    // On a capped board, the friends off it are left out.
    expect((await read(`/v1/leaderboards/capped?userIds=${id(0)},${id(1499)}`)).rankings).toEqual([
      { userId: id(1499), userName: 'Player 1499', rank: 1, boardRank: 1, value: 1500, percentile: 100 },
    ]);
  });

  it('reads through SDK 1.0.42, which takes the uncapped board\'s number and passes laurel\'s fields through', async () => {
    const client = sdkClient(s);
    const board = await client.leaderboards.get('open', { userId: id(1499), limit: 2 }, { maxRetries: 0 });
    expect(board.maxParticipants).toBe(Number.MAX_SAFE_INTEGER);
    expect(board.rankings.map((r) => r.userId)).toEqual([id(1499), id(1498)]);
    expect(board).toMatchObject({ participants: USERS + 1, percentile: 100 });
    const mine = await client.users.leaderboard(id(1499), 'open', {}, { maxRetries: 0 });
    expect(mine).toMatchObject({ rank: 1, participants: USERS + 1, percentile: 100 });
  });

  it('refuses a negative offset without a user, and a friends board of no or too many users', async () => {
    await refused('/v1/leaderboards/open?offset=-1', /offset may be negative only with userId/);
    await refused('/v1/leaderboards/open?offset=-1x&userId=u0001', /offset must be an integer/);
    for (const list of [',,', 'u0001,,u0002', ',u0001', 'u0001,']) await refused(`/v1/leaderboards/open?userIds=${list}`, /userIds: an empty item/);
    await refused(`/v1/leaderboards/open?userIds=${Array.from({ length: 1001 }, (_, i) => `f${i}`).join(',')}`, /userIds may list at most 1000 users/);
    await refused(`/v1/leaderboards/open?userIds=${'x'.repeat(300)}`, /userIds: a user id must have/);
  });

  it('answers maxParticipants null in the Admin API, and lets a started board\'s cap rise to none but not fall back', async () => {
    const list = (await read('/admin/v1/leaderboards?limit=100')) as { key: string; id: string; maxParticipants: number | null }[];
    const by = new Map(list.map((b) => [b.key, b]));
    expect(by.get('open')?.maxParticipants).toBeNull();
    expect(by.get('open-daily')?.maxParticipants).toBeNull();
    expect(by.get('capped')?.maxParticipants).toBe(1000);
    const patch = async (body: Record<string, unknown>) => {
      const r = await s.request('PATCH', '/admin/v1/leaderboards', { body: [body] });
      expect(r.status, r.text).toBe(200);
      return r.body as { updated: { maxParticipants: number | null }[]; issues: { message: string }[] };
    };
    const fall = await patch({ id: by.get('open')?.id, maxParticipants: 1000 });
    expect(fall.issues[0].message).toMatch(/maxParticipants can only rise once the leaderboard has started .*ranks every participant, uncapped/);
    expect((await patch({ id: by.get('open')?.id, uncapped: false })).issues).toHaveLength(1);
    const conflict = await patch({ id: by.get('capped')?.id, uncapped: true, maxParticipants: 5 });
    expect(conflict.issues[0].message).toMatch(/uncapped: true takes no maxParticipants/);
    const rise = await patch({ id: by.get('capped')?.id, uncapped: true });
    expect(rise.issues).toEqual([]);
    expect(rise.updated[0].maxParticipants).toBeNull();
    // Uncapped now: the one pushed out re-enters with their next event.
    const back = await s.event('plays', id(0), 1);
    expect(back.leaderboards.capped).toMatchObject({ rank: expect.any(Number), threshold: 0 });
    expect((await read('/v1/leaderboards/capped?limit=0')).participants).toBe(1001);
  });

  it('finalises an uncapped run: its winners, and every participant still ranked', async () => {
    // 36 hours after May 4th began in UTC, the last zone has finished it.
    await s.setClock('2026-05-05T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    const run = await read('/v1/leaderboards/open-daily?run=2026-05-04&offset=1499&limit=10');
    expect(run.finalised).toBe('2026-05-05T12:00:00.000Z');
    expect(run.winners).toEqual([
      { userId: id(1499), rank: 1, value: 1500 }, { userId: id(1498), rank: 2, value: 1499 }, { userId: id(1497), rank: 3, value: 1498 },
    ]);
    expect(run.participants).toBe(USERS + 1);
    expect(run.rankings.map((r: { userId: string; rank: number }) => [r.userId, r.rank])).toEqual([[id(0), 1500], ['late', 1501]]);
  });
});
