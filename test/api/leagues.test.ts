/**
 * Leagues (docs/api.md, "Leagues"), on single Redis and on the Cluster: the league's configuration
 * checked and shown; users placed in the open cohort of their tier in arrival order, ties ranked
 * as boards rank them; 500 users joining at once through the event path, every cohort within its
 * size and every user in exactly one; a second run starting with empty cohorts, users keeping
 * their tiers; the reads (a user's league with their zone, one cohort's rankings, the admin
 * summary per tier) and their refusals; a key scoped to a user reading public fields only; an
 * erased user gone from their cohorts and tiers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, erasureDone } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { rowsOf } from '../support/rankings.js';
import { leagueField, leagueText } from '../../src/redis/leagues.js';

const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 2, demote: 0 },
  { key: 'silver', name: 'Silver', promote: 1, demote: 1 },
  { key: 'gold', name: 'Gold', promote: 0, demote: 2 },
];

describe.each(targets())('leagues on %s', (target) => {
  let s: TestServer;
  let plays = '';
  let steps = '';
  /** The board with a league of cohorts of 5, and the one of 7 the 500 join. */
  let league: any;
  let crowd: any;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-05-04T10:00:00Z');
    ({ plays, steps } = await s.metrics('plays', 'steps'));
    const daily = { rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1 };
    league = await adminCreateOne(s, '/admin/v1/leaderboards', { ...daily, name: 'League', key: 'league', league: { tiers: TIERS, cohortSize: 5 } });
    crowd = await adminCreateOne(s, '/admin/v1/leaderboards', {
      ...daily, metricId: steps, name: 'Crowd', key: 'crowd', uncapped: true, league: { tiers: TIERS.slice(0, 2).map((t, i) => ({ ...t, promote: i === 0 ? 1 : 0 })), cohortSize: 7 },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const read = async (path: string, key?: string) => {
    const r = await s.request('GET', path, key === undefined ? {} : { key });
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  const create = async (item: Record<string, unknown>) => {
    const r = await s.request('POST', '/admin/v1/leaderboards', { body: [item] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.created).toEqual([]);
    return r.body.issues[0].message as string;
  };
  const patch = async (changes: Record<string, unknown>) => {
    const r = await s.request('PATCH', '/admin/v1/leaderboards', { body: [changes] });
    expect(r.status, r.text).toBe(200);
    return r.body.issues.length > 0 ? { issue: r.body.issues[0].message as string } : { view: r.body.updated[0] };
  };

  it('checks a league\'s configuration and shows it', async () => {
    expect(league.league).toEqual({ tiers: TIERS, cohortSize: 5 });
    expect((await read(`/admin/v1/leaderboards/${league.id}`)).league).toEqual({ tiers: TIERS, cohortSize: 5 });
    const base = { name: 'Bad', key: 'bad', rankBy: 'metric', metricId: plays, runUnit: 'day', runInterval: 7 };
    const ok = { tiers: TIERS, cohortSize: 30 };
    expect(await create({ ...base, runUnit: null, runInterval: null, league: ok })).toMatch(/needs a repeating board/);
    expect(await create({ ...base, rankBy: 'streak', metricId: undefined, runUnit: null, runInterval: null, league: ok })).toMatch(/rankBy must be metric or points/);
    expect(await create({ ...base, league: { ...ok, cohortSize: 4 } })).toMatch(/cohortSize must be >= 5/);
    expect(await create({ ...base, league: { ...ok, cohortSize: 1001 } })).toMatch(/cohortSize must be <= 1000/);
    expect(await create({ ...base, league: { ...ok, tiers: TIERS.slice(0, 1) } })).toMatch(/tiers must NOT have fewer than 2 items/);
    const many = Array.from({ length: 21 }, (_, i) => ({ key: `t${i}`, name: `T${i}` }));
    expect(await create({ ...base, league: { ...ok, tiers: many } })).toMatch(/tiers must NOT have more than 20 items/);
    expect(await create({ ...base, league: { ...ok, tiers: [TIERS[0], TIERS[0], TIERS[2]] } })).toBe('league.tiers: the key "bronze" is listed twice');
    expect(await create({ ...base, league: { ...ok, tiers: [{ ...TIERS[0], demote: 1 }, TIERS[2]] } }))
      .toBe('league.tiers[0] ("bronze") is the lowest tier and demotes nobody: its demote must be 0');
    expect(await create({ ...base, league: { ...ok, tiers: [TIERS[0], { ...TIERS[2], promote: 3 }] } }))
      .toBe('league.tiers[1] ("gold") is the highest tier and promotes nobody: its promote must be 0');
    expect(await create({ ...base, league: { cohortSize: 5, tiers: [TIERS[0], { ...TIERS[1], promote: 3, demote: 3 }, TIERS[2]] } }))
      .toBe('league.tiers[1] ("silver") moves 6 users of a cohort, more than its cohortSize 5');
    // The counts that move default to 0.
    const plain = await adminCreateOne(s, '/admin/v1/leaderboards', { ...base, key: 'plain', league: { cohortSize: 5, tiers: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }] } });
    expect(plain.league.tiers).toEqual([{ key: 'a', name: 'A', promote: 0, demote: 0 }, { key: 'b', name: 'B', promote: 0, demote: 0 }]);
    // Once users see the board: names, counts and the size may change; the tiers' keys and the league itself may not.
    expect(await patch({ id: league.id, league: null })).toEqual({ issue: expect.stringMatching(/^league can only be removed before the leaderboard starts/) });
    const reordered = { tiers: [TIERS[1], TIERS[0], TIERS[2]].map((t, i) => ({ ...t, demote: i === 0 ? 0 : t.demote, promote: i === 2 ? 0 : t.promote })), cohortSize: 5 };
    expect(await patch({ id: league.id, league: reordered })).toEqual({ issue: expect.stringMatching(/^league.tiers' keys and order can only change before/) });
    const renamed = { tiers: TIERS.map((t) => ({ ...t, name: `${t.name}!` })), cohortSize: 5 };
    expect((await patch({ id: league.id, league: renamed })).view.league).toEqual(renamed);
    expect((await patch({ id: league.id, league: { tiers: TIERS, cohortSize: 5 } })).view.league.tiers[0].name).toBe('Bronze');
  });

  it('places users in the open cohort of their tier in arrival order, ranked as a board ranks them', async () => {
    // 12 users, one after the other: cohorts of 5, 5 and 2.
    const answers = [];
    for (let i = 1; i <= 12; i++) answers.push(await s.event('plays', { id: `p${i}`, name: `Player ${i}` }, i % 3));
    // The event's answer says where in the league its user stands (the board's own entry unchanged).
    expect(answers[11].leaderboards.league).toMatchObject({ rank: 12, league: { tier: 'bronze', cohort: 'bronze-3', rank: 2, previousRank: null } });
    const mine = await read('/v1/users/p3/leagues/league');
    expect(mine).toMatchObject({
      key: 'league', tier: { key: 'bronze', name: 'Bronze', index: 0 }, run: '2026-05-04', runEnd: '2026-05-04', cohort: 'bronze-1', participants: 5,
    });
    // p1 1, p2 2, p3 0, p4 1, p5 2: equal values rank by who reached them first.
    expect(rowsOf(mine)).toEqual([
      { userId: 'p2', userName: 'Player 2', rank: 1, value: 2 },
      { userId: 'p5', userName: 'Player 5', rank: 2, value: 2 },
      { userId: 'p1', userName: 'Player 1', rank: 3, value: 1 },
      { userId: 'p4', userName: 'Player 4', rank: 4, value: 1 },
      { userId: 'p3', userName: 'Player 3', rank: 5, value: 0 },
    ]);
    expect(mine).toMatchObject({ rank: 5, value: 0, zone: 'stay' });
    expect(await read('/v1/users/p5/leagues/league')).toMatchObject({ rank: 2, zone: 'promote' });
    expect((await read('/v1/users/p6/leagues/league')).rankings.map((r: any) => r.userId)).toEqual(['p8', 'p7', 'p10', 'p6', 'p9']);
    expect(await read('/v1/users/p12/leagues/league')).toMatchObject({ cohort: 'bronze-3', participants: 2, rank: 2 });
    // Another event moves the user within their cohort only.
    expect((await s.event('plays', 'p3', 5)).leaderboards.league.league).toEqual({ tier: 'bronze', cohort: 'bronze-1', rank: 1, previousRank: 5 });
    expect(await read('/v1/users/p3/leagues/league')).toMatchObject({ cohort: 'bronze-1', rank: 1, value: 5, zone: 'promote' });
    expect((await read('/v1/users/p5/leagues/league')).rank).toBe(3);
    // One cohort's rankings, and the run's tiers.
    const cohort = await read('/v1/leaderboards/league?cohort=bronze-2&limit=2');
    expect(cohort).toMatchObject({ key: 'league', cohort: 'bronze-2', participants: 5, run: '2026-05-04', winners: null });
    expect(rowsOf(cohort)).toEqual([{ userId: 'p8', userName: 'Player 8', rank: 1, value: 2 }, { userId: 'p7', userName: 'Player 7', rank: 2, value: 1 }]);
    const summary = await read(`/admin/v1/leaderboards/${league.id}/league`);
    expect(summary).toEqual({
      leaderboardId: league.id, key: 'league', run: '2026-05-04', runEnd: '2026-05-04', cohortSize: 5, finalised: false,
      tiers: [
        { key: 'bronze', name: 'Bronze', index: 0, cohortCount: 3, participants: 12, moves: null, cohorts: [
          { cohort: 'bronze-1', participants: 5, moves: null }, { cohort: 'bronze-2', participants: 5, moves: null },
          { cohort: 'bronze-3', participants: 2, moves: null },
        ] },
        { key: 'silver', name: 'Silver', index: 1, cohortCount: 0, participants: 0, moves: null, cohorts: [] },
        { key: 'gold', name: 'Gold', index: 2, cohortCount: 0, participants: 0, moves: null, cohorts: [] },
      ],
      next: null,
    });
    // The whole board still ranks everyone.
    expect((await read('/v1/leaderboards/league?limit=0')).participants).toBe(12);
  });

  it('answers a user who has not played this run with their tier and no cohort, and refuses what names nothing', async () => {
    await s.request('POST', '/v1/users', { body: { id: 'idle', name: 'Idle' } });
    expect(await read('/v1/users/idle/leagues/league')).toEqual({
      key: 'league', name: 'League', tier: { key: 'bronze', name: 'Bronze', index: 0 }, run: '2026-05-04', runEnd: '2026-05-04',
      cohort: null, rank: null, value: null, participants: 0, zone: null, outcome: null, rankings: [],
    });
    const refused = async (path: string, status: number, code: string) => {
      const r = await s.request('GET', path);
      expect(r.status, `${path}: ${r.text}`).toBe(status);
      expect(r.body.code).toBe(code);
    };
    await refused('/v1/users/nobody/leagues/league', 404, 'user_not_found');
    await refused('/v1/users/idle/leagues/nothing', 404, 'not_found');
    await refused('/v1/users/idle/leagues/plain', 404, 'not_found');
    await refused('/v1/leaderboards/league?cohort=bronze-4', 404, 'not_found');
    await refused('/v1/leaderboards/league?cohort=platinum-1', 404, 'not_found');
    await refused('/v1/leaderboards/league?cohort=bronze-0', 404, 'not_found');
    await refused(`/admin/v1/leaderboards/${league.id}/league?run=2026-02-30`, 422, 'invalid_query');
    await refused('/admin/v1/leaderboards/nothing/league', 404, 'not_found');
    const unleagued = await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Flat', key: 'flat', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01' });
    await refused('/v1/leaderboards/flat?cohort=bronze-1', 422, 'invalid_query');
    await refused(`/admin/v1/leaderboards/${unleagued.id}/league`, 404, 'not_found');
  });

  it('places 500 users joining at once in cohorts none of which exceeds its size, each user in exactly one', async () => {
    const users = Array.from({ length: 500 }, (_, i) => `c${i}`);
    const answers = await Promise.all(users.map((id, i) => s.request('POST', '/v1/metrics/steps/event', { body: { user: { id }, value: 1 + (i % 17) } })));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    const summary = await read(`/admin/v1/leaderboards/${crowd.id}/league`);
    const cohorts = summary.tiers[0].cohorts as { cohort: string; participants: number }[];
    // Filled in arrival order: 71 cohorts of 7, the last of 3.
    expect(cohorts).toHaveLength(72);
    expect(cohorts.slice(0, 71).every((c) => c.participants === 7)).toBe(true);
    expect(cohorts[71].participants).toBe(3);
    expect(summary.tiers[0].participants).toBe(500);
    const seen = new Map<string, string>();
    for (const { cohort } of cohorts) {
      const { rankings, participants } = await read(`/v1/leaderboards/crowd?cohort=${cohort}&limit=1000`);
      expect(participants).toBeLessThanOrEqual(7);
      for (const r of rankings) {
        expect(seen.get(r.userId), r.userId).toBeUndefined();
        seen.set(r.userId, cohort);
      }
    }
    expect([...seen.keys()].sort()).toEqual([...users].sort());
    // Each user's own read names the cohort they are in.
    for (const id of ['c0', 'c250', 'c499']) expect((await read(`/v1/users/${id}/leagues/crowd`)).cohort).toBe(seen.get(id));
  }, 120_000);

  it('starts the next run with empty cohorts, users keeping their tiers', async () => {
    // p1 carries silver into the next run (finalisation moves tiers; here it is written as it would be).
    const { redis, keys } = s.api.services;
    await redis.hset(keys.forUser('_', 'p1').user, leagueField(league.id), leagueText({ tier: 1, run: '2026-05-04', cohort: 0 }));
    await s.setClock('2026-05-05T10:00:00Z');
    expect(await read('/v1/users/p1/leagues/league')).toMatchObject({ tier: { key: 'silver', index: 1 }, run: '2026-05-05', cohort: null, rankings: [] });
    expect((await read(`/admin/v1/leaderboards/${league.id}/league`)).tiers.map((t: any) => t.cohorts)).toEqual([[], [], []]);
    await s.event('plays', 'p2', 1);
    await s.event('plays', 'p1', 1);
    await s.event('plays', 'p3', 4);
    expect(await read('/v1/users/p1/leagues/league')).toMatchObject({
      tier: { key: 'silver', index: 1 }, cohort: 'silver-1', rank: 1, value: 1, participants: 1, zone: 'stay',
    });
    expect(await read('/v1/users/p2/leagues/league')).toMatchObject({ tier: { key: 'bronze' }, cohort: 'bronze-1', rank: 2, participants: 2 });
    expect((await read('/v1/users/p3/leagues/league')).rankings.map((r: any) => [r.userId, r.value])).toEqual([['p3', 4], ['p2', 1]]);
    // The past run is as it was.
    expect((await read('/v1/leaderboards/league?cohort=bronze-1&run=2026-05-04')).participants).toBe(5);
    const summary = await read(`/admin/v1/leaderboards/${league.id}/league`);
    expect(summary.tiers.map((t: any) => t.participants)).toEqual([2, 1, 0]);
  });

  it('lets a key scoped to a user read its own league, with the other users\' public fields only', async () => {
    await s.event('plays', { id: 'private-a', name: 'A', email: 'a@private.test', attributes: {} }, 1);
    await s.event('plays', { id: 'private-b', name: 'B', email: 'b@private.test', tz: 'Europe/Paris' }, 2);
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'private-a' }] });
    expect(k.status, k.text).toBe(201);
    const key = k.body.created[0].key as string;
    const r = await s.request('GET', '/v1/users/private-a/leagues/league', { key });
    expect(r.status, r.text).toBe(200);
    expect(r.body.rankings.map((x: any) => x.userId)).toContain('private-b');
    for (const row of r.body.rankings) expect(Object.keys(row).sort()).toEqual(['percentile', 'rank', 'userId', 'userName', 'value']);
    expect(r.text).not.toContain('@private.test');
    expect(r.text).not.toContain('Europe/Paris');
    expect((await s.request('GET', '/v1/users/private-b/leagues/league', { key })).status).toBe(403);
  });

  it('takes an erased user out of their cohorts and tiers', async () => {
    const { redis, keys } = s.api.services;
    expect(await redis.hget(keys.leagueTier('_', league.id, '2026-05-04', 0), 'u:p2')).toBe('0');
    const erase = await s.request('DELETE', '/admin/v1/users/p2');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    for (const run of ['2026-05-04', '2026-05-05']) {
      const { rankings, participants } = await read(`/v1/leaderboards/league?cohort=bronze-1&run=${run}&limit=10`);
      expect(rankings.map((r: any) => r.userId)).not.toContain('p2');
      expect(participants).toBe(rankings.length);
      expect(await redis.hget(keys.leagueTier('_', league.id, run, 0), 'u:p2')).toBeNull();
    }
    expect((await read('/v1/leaderboards/league?cohort=bronze-1&run=2026-05-04')).participants).toBe(4);
  });

  it('places a points board\'s users in cohorts by the points of the run', async () => {
    const { runs } = await s.metrics('runs');
    const xp = await adminCreateOne(s, '/admin/v1/points', {
      name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: runs, metricThreshold: 1, points: 10, status: 'active' }],
    });
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'XP league', key: 'xp-league', rankBy: 'points', pointsSystemId: xp.id, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
      league: { tiers: TIERS, cohortSize: 5 },
    });
    for (const [id, times] of [['r1', 1], ['r2', 3], ['r3', 2]] as const) {
      for (let i = 0; i < times; i++) await s.event('runs', id, 1);
    }
    const mine = await read('/v1/users/r3/leagues/xp-league');
    // A cohort of 3 of 5 promotes 2 × 3 ÷ 5 rounded down: r2 only.
    expect(mine).toMatchObject({ cohort: 'bronze-1', rank: 2, value: 20, participants: 3, zone: 'stay' });
    expect(await read('/v1/users/r2/leagues/xp-league')).toMatchObject({ rank: 1, zone: 'promote' });
    expect(mine.rankings.map((r: any) => [r.userId, r.value])).toEqual([['r2', 30], ['r3', 20], ['r1', 10]]);
  });
});
