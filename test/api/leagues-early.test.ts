/**
 * Leagues' early joiners (docs/api.md, "Leagues"), on single Redis and on the Cluster, with the
 * manual clock and the workers in the test: a user who scored in run R+1 before run R was final
 * is moved, at R's finalisation, to the open cohort of their new tier in R+1 with their R+1 value,
 * out of the cohort of their old tier (which is one smaller); no cohort exceeds its size, and the
 * user's read, the cohorts' rankings and the admin summary agree. A pass left half done at each
 * step (moved but not joined, joined, taken out of the old cohort) with two worker processes
 * finalising at once: each user moved exactly once, in exactly one cohort. An event of an early
 * joiner placed while the move is under way (after the old cohort let them go, before their
 * place moved) counts once, in the new cohort; events sent while passes run count once too. A
 * join in a tier read before an outcome moved it is refused (lua/leagueKeep-2.lua). A user moved
 * out of a cohort by one outcome and back by the next returns to it with their value. One cohort's
 * early joiners join their new tier in the order of its ranking. An erasure
 * takes what a cohort that ranks nobody since keeps of the user it let go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { leagueEntry } from '../../src/model/log.js';
import { leagueField, leagueText } from '../../src/redis/leagues.js';
import * as leagueDepart from '../../src/redis/scripts/leagueDepart.js';
import * as leagueFinalise from '../../src/redis/scripts/leagueFinalise.js';
import * as leagueJoin from '../../src/redis/scripts/leagueJoin.js';
import * as leagueKeep from '../../src/redis/scripts/leagueKeep.js';
import * as leagueMove from '../../src/redis/scripts/leagueMove.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreateOne, erasureDone } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 2, demote: 0 },
  { key: 'silver', name: 'Silver', promote: 1, demote: 1 },
  { key: 'gold', name: 'Gold', promote: 0, demote: 2 },
];
const SIZE = 5;

describe.each(targets())('leagues\' early joiners on %s', (target) => {
  let s: TestServer;
  let plays = '';

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    ({ plays } = await s.metrics('plays'));
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const read = async (path: string) => {
    const r = await s.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  const board = (key: string) => adminCreateOne(s, '/admin/v1/leaderboards', {
    name: key, key, rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
    league: { tiers: TIERS, cohortSize: SIZE },
  });
  /** A user who carries `tier` into the run after `run`, as that run's outcome would have left them. */
  const carrying = async (boardId: string, id: string, tier: number, run: string) => {
    const r = await s.request('POST', '/v1/users', { body: { id } });
    expect([200, 201], r.text).toContain(r.status);
    const { redis, keys } = s.api!.services;
    await redis.hset(keys.forUser('_', id).user, leagueField(boardId), leagueText({ tier, run, cohort: 0 }));
  };
  /** Every cohort of a run: its id and its users with their values, in rank order. */
  const cohorts = async (lb: { id: string; key: string }, run: string) => {
    const summary = await read(`/admin/v1/leaderboards/${lb.id}/league?run=${run}`);
    const out: Record<string, [string, number][]> = {};
    for (const tier of summary.tiers) {
      for (const c of tier.cohorts) {
        const page = await read(`/v1/leaderboards/${lb.key}?cohort=${c.cohort}&run=${run}&limit=100`);
        out[c.cohort] = page.rankings.map((p: any) => [p.userId, p.value]);
        expect(c.participants).toBe(out[c.cohort].length);
        expect(c.participants).toBeLessThanOrEqual(SIZE);
      }
    }
    return out;
  };
  /** Where each user is in a run's cohorts (a user in two is listed twice). */
  const whereIs = (all: Record<string, [string, number][]>) => {
    const at: Record<string, string[]> = {};
    for (const [cohort, users] of Object.entries(all)) for (const [u] of users) (at[u] ??= []).push(cohort);
    return at;
  };

  it('moves each early joiner into a cohort of their new tier in the next run, with their value there', async () => {
    const lb = await board('early');
    await s.setClock('2026-06-01T09:00:00Z');
    // Run of the 1st: bronze-1 a1..a5, bronze-2 a6..a10 (both full); a1, a2, a6, a7 promoted.
    for (const [id, value] of [['a1', 5], ['a2', 4], ['a3', 3], ['a4', 2], ['a5', 1], ['a6', 5], ['a7', 4], ['a8', 3], ['a9', 2], ['a10', 1]] as const) {
      await s.event('plays', id, value);
    }
    // Four users carrying silver, and newcomers, join the run of the 2nd early, with a1, a3 and a6.
    for (const id of ['s1', 's2', 's3', 's4']) await carrying(lb.id, id, 1, '2026-05-31');
    await s.setClock('2026-06-02T08:00:00Z');
    for (const [id, value] of [['a1', 3], ['a3', 2], ['a6', 4], ['n1', 1], ['n2', 1], ['n3', 1], ['n4', 1], ['s1', 4], ['s2', 3], ['s3', 2], ['s4', 1]] as const) {
      await s.event('plays', id, value);
    }
    expect(await cohorts(lb, '2026-06-02')).toEqual({
      'bronze-1': [['a6', 4], ['a1', 3], ['a3', 2], ['n1', 1], ['n2', 1]], 'bronze-2': [['n3', 1], ['n4', 1]],
      'silver-1': [['s1', 4], ['s2', 3], ['s3', 2], ['s4', 1]],
    });

    await s.setClock('2026-06-02T12:00:00Z');
    const result = await s.workers!.testing.finaliseNow();
    expect(result.moved).toBe(10);
    // a1 takes silver-1's last seat (ahead of s2, who reached 3 after a1), a6 opens silver-2;
    // bronze-1 is two smaller (its seats stay taken).
    const after = await cohorts(lb, '2026-06-02');
    expect(after).toEqual({
      'bronze-1': [['a3', 2], ['n1', 1], ['n2', 1]], 'bronze-2': [['n3', 1], ['n4', 1]],
      'silver-1': [['s1', 4], ['a1', 3], ['s2', 3], ['s3', 2], ['s4', 1]], 'silver-2': [['a6', 4]],
    });
    expect(await read('/v1/users/a1/leagues/early')).toMatchObject({
      run: '2026-06-02', tier: { key: 'silver' }, cohort: 'silver-1', rank: 2, value: 3, participants: 5, outcome: null,
    });
    expect(await read('/v1/users/a6/leagues/early')).toMatchObject({ tier: { key: 'silver' }, cohort: 'silver-2', rank: 1, value: 4, participants: 1 });
    expect(await read('/v1/users/a3/leagues/early')).toMatchObject({ tier: { key: 'bronze' }, cohort: 'bronze-1', rank: 1 });
    // Their run of the 1st still shows where they were and their outcome.
    expect(await read('/v1/users/a1/leagues/early?run=2026-06-01')).toMatchObject({ cohort: 'bronze-1', rank: 1, outcome: 'promoted' });
    // The next event ranks a1 in silver-1 only, with the run's sum.
    const answer = await s.event('plays', 'a1', 2);
    expect(answer.leaderboards.early.league).toMatchObject({ tier: 'silver', cohort: 'silver-1', rank: 1 });
    expect(whereIs(await cohorts(lb, '2026-06-02')).a1).toEqual(['silver-1']);
    // Finalising again moves nobody; a2 and a7, who have not played the 2nd yet, join it in silver.
    expect((await s.workers!.testing.finaliseNow()).moved).toBe(0);
    await s.event('plays', 'a2', 1);
    expect(await read('/v1/users/a2/leagues/early')).toMatchObject({ tier: { key: 'silver' }, cohort: 'silver-2' });
    expect(Object.fromEntries(Object.entries(whereIs(await cohorts(lb, '2026-06-02'))).map(([u, c]) => [u, c.length]))).toEqual(
      Object.fromEntries(['a1', 'a2', 'a3', 'a6', 'n1', 'n2', 'n3', 'n4', 's1', 's2', 's3', 's4'].map((u) => [u, 1])),
    );
    // The run of the 2nd, final in its turn, moves a1 from the cohort they were moved to.
    await s.setClock('2026-06-03T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    expect(await read('/v1/users/a1/leagues/early?run=2026-06-02')).toMatchObject({ cohort: 'silver-1', rank: 1, value: 5, outcome: 'promoted' });
    expect((await read('/v1/users/a1/leagues/early')).tier.key).toBe('gold');
  });

  it('moves each user exactly once when a pass was left half done and two worker processes finalise at once', async () => {
    const lb = await board('early-duel');
    await s.setClock('2026-06-05T09:00:00Z');
    // Ten bronze users in two cohorts: the top two of each promoted. All play the 6th early.
    const users = Array.from({ length: 10 }, (_, i) => `x${i}`);
    for (const [i, id] of users.entries()) await s.event('plays', id, 20 - i);
    await s.setClock('2026-06-06T08:00:00Z');
    for (const [i, id] of users.entries()) await s.event('plays', id, 1 + i);
    // A pass killed part-way through bronze-1: x0 moved only; x1 moved, joined silver and taken out of bronze.
    const { redis, keys } = s.api!.services;
    const decided = await leagueFinalise.run(redis, keys.leagueCohort('_', lb.id, '2026-06-05', 0, 0), 2, 0, SIZE);
    expect(decided.users.filter((u) => u.outcome === 'promoted').map((u) => u.userId).sort()).toEqual(['x0', 'x1']);
    for (const id of ['x0', 'x1']) expect(await leagueMove.run(redis, keys.forUser('_', id).user, lb.id, '2026-06-05', 1, 2)).toBe('applied');
    const { cohort } = await leagueJoin.run(redis, keys.leagueTier('_', lb.id, '2026-06-06', 1), 'x1', SIZE);
    const x1 = await read('/v1/users/x1/leagues/early-duel');
    const left = await leagueDepart.run(redis, keys.leagueCohort('_', lb.id, '2026-06-06', 0, x1.cohort === 'bronze-1' ? 0 : 1), 'x1', `1.${cohort}`, Date.now());
    expect(left).toMatchObject({ value: '2', awards: [] });

    const other = await startWorkers(s.settings, createLogger('silent'));
    try {
      await s.setClock('2026-06-06T12:00:00Z');
      await Promise.all([s.workers!.testing.finaliseNow(), other.testing.finaliseNow()]);
      await Promise.all([s.workers!.testing.finaliseNow(), other.testing.finaliseNow()]);
    } finally {
      await other.close();
    }
    const all = await cohorts(lb, '2026-06-06');
    const at = whereIs(all);
    expect(Object.keys(at).sort()).toEqual(users);
    for (const id of users) expect(at[id], id).toHaveLength(1);
    // x0, x1 (bronze-1) and x5, x6 (bronze-2) promoted: in silver with their values of the 6th; the others stay.
    const promoted = ['x0', 'x1', 'x5', 'x6'];
    for (const [i, id] of users.entries()) {
      const r = await read(`/v1/users/${id}/leagues/early-duel`);
      expect([id, r.tier.key, r.value]).toEqual([id, promoted.includes(id) ? 'silver' : 'bronze', 1 + i]);
      expect(r.cohort).toBe(at[id][0]);
    }
    expect(all['silver-1'].map(([u]) => u).sort()).toEqual(promoted);
    // The run of the 5th's moves: each user once.
    const summary = await read(`/admin/v1/leaderboards/${lb.id}/league?run=2026-06-05`);
    expect(summary.tiers[0].moves).toEqual({ promoted: 4, demoted: 0, stayed: 6 });
  }, 60_000);

  it('counts an event of an early joiner placed while the move is under way once, in one cohort', async () => {
    const lb = await board('early-race');
    await s.setClock('2026-06-08T09:00:00Z');
    for (const [id, value] of [['r1', 3], ['r2', 2], ['r3', 1]] as const) await s.event('plays', id, value);
    await s.setClock('2026-06-09T08:00:00Z');
    for (const [id, value] of [['r1', 1], ['r2', 1], ['r3', 1]] as const) await s.event('plays', id, value);
    // The move of r1 under way: moved, joined silver, taken out of bronze-1; its place not moved yet.
    const { redis, keys } = s.api!.services;
    // A cohort of 3 of 5 promotes one (2 × 3 ÷ 5): r1.
    await leagueFinalise.run(redis, keys.leagueCohort('_', lb.id, '2026-06-08', 0, 0), 2, 0, SIZE);
    expect(await leagueMove.run(redis, keys.forUser('_', 'r1').user, lb.id, '2026-06-08', 1, 2)).toBe('applied');
    const { cohort } = await leagueJoin.run(redis, keys.leagueTier('_', lb.id, '2026-06-09', 1), 'r1', SIZE);
    await leagueDepart.run(redis, keys.leagueCohort('_', lb.id, '2026-06-09', 0, 0), 'r1', `1.${cohort}`, Date.now());
    expect((await read('/v1/users/r1/leagues/early-race')).cohort).toBe('bronze-1');
    // The event reads r1's place in bronze-1, which refuses it and names silver-1: ranked there.
    const answer = await s.event('plays', 'r1', 5);
    expect(answer.leaderboards['early-race'].league).toMatchObject({ tier: 'silver', cohort: 'silver-1', rank: 1 });
    // The rest of the move carries r1's older value, which the later one placed already outranks.
    await s.setClock('2026-06-09T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    expect(await cohorts(lb, '2026-06-09')).toEqual({ 'bronze-1': [['r2', 1], ['r3', 1]], 'silver-1': [['r1', 6]] });
    expect(await read('/v1/users/r1/leagues/early-race')).toMatchObject({ cohort: 'silver-1', value: 6 });

    // Events sent while two passes run: each counts once, the user in one cohort.
    const lb2 = await board('early-storm');
    await s.setClock('2026-06-11T09:00:00Z');
    // The 11th: bronze-1 t1..t5, bronze-2 t6..t10; t1, t2, t6 and t7 promoted. t1..t6 play the 12th.
    const storm = ['t1', 't2', 't3', 't4', 't5', 't6'];
    for (const [i, id] of [...storm, 't7', 't8', 't9', 't10'].entries()) await s.event('plays', id, 10 - i);
    await s.setClock('2026-06-12T08:00:00Z');
    for (const id of storm) await s.event('plays', id, 1);
    await s.setClock('2026-06-12T12:00:00Z');
    const other = await startWorkers(s.settings, createLogger('silent'));
    try {
      await Promise.all([
        s.workers!.testing.finaliseNow(), other.testing.finaliseNow(),
        ...storm.flatMap((id) => [s.event('plays', id, 1), s.event('plays', id, 1)]),
      ]);
    } finally {
      await other.close();
    }
    const all = await cohorts(lb2, '2026-06-12');
    const at = whereIs(all);
    for (const id of storm) {
      expect(at[id], id).toHaveLength(1);
      const r = await read(`/v1/users/${id}/leagues/early-storm`);
      expect([id, r.cohort, r.value]).toEqual([id, at[id][0], 3]);
    }
    // t1 and t2 promoted (bronze-1: t1..t5), t6 (alone in bronze-2 of the 12th) too.
    expect(Object.fromEntries(storm.map((id) => [id, at[id][0]]))).toEqual({
      t1: 'silver-1', t2: 'silver-1', t3: 'bronze-1', t4: 'bronze-1', t5: 'bronze-1', t6: 'silver-1',
    });

    // t6 left bronze-2 of the 12th, which now ranks nobody: an erasure still takes its mark and history there.
    const left = keys.leagueCohort('_', lb2.id, '2026-06-12', 0, 1);
    expect(await redis.exists(left.members)).toBe(0);
    expect(await redis.hget(left.sequences, 't6')).toMatch(/^>1\.0\|/);
    expect(await redis.exists(left.history('t6'))).toBe(1);
    const erase = await s.request('DELETE', '/admin/v1/users/t6');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    expect(await redis.hget(left.sequences, 't6')).toBeNull();
    expect(await redis.exists(left.history('t6'))).toBe(0);
  }, 60_000);

  it('takes an early joiner back, with their value, into the cohort an earlier outcome moved them out of', async () => {
    const lb = await board('early-back');
    // Run of the 21st: b2, b3, b4, b5 and b1 in silver-1; b2 promoted, b1 demoted.
    for (const id of ['b1', 'b2', 'b3', 'b4', 'b5', 'b6']) await carrying(lb.id, id, 1, '2026-06-20');
    await s.setClock('2026-06-21T10:00:00Z');
    for (const [id, value] of [['b2', 5], ['b3', 4], ['b4', 3], ['b5', 2], ['b1', 1]] as const) await s.event('plays', id, value);
    // b1 plays the 22nd in UTC, then at 10:30, the 23rd in Kiritimati (UTC+14), where their clock
    // goes on: early joiners of both runs in silver, before the 21st is final.
    await s.setClock('2026-06-22T10:00:00Z');
    await s.event('plays', 'b1', 2);
    // b3 to b6 fill silver-1 of the 22nd below b1.
    for (const id of ['b3', 'b4', 'b5', 'b6']) await s.event('plays', id, 1);
    await s.setClock('2026-06-22T10:30:00Z');
    expect((await s.request('PATCH', '/api/users/b1', { body: { tz: 'Pacific/Kiritimati' } })).status).toBe(200);
    await s.event('plays', 'b1', 7);
    expect(await read('/v1/users/b1/leagues/early-back?run=2026-06-23')).toMatchObject({ tier: { key: 'silver' }, cohort: 'silver-1', value: 7 });
    // The 21st final: b1 demoted, moved out of silver-1 of the 23rd (the latest run they played)
    // into bronze. First of silver-1 in the 22nd: promoted there, a tier up from the bronze they carry.
    await s.setClock('2026-06-22T12:01:00Z');
    await s.workers!.testing.finaliseNow();
    expect(await read('/v1/users/b1/leagues/early-back?run=2026-06-23')).toMatchObject({ tier: { key: 'bronze' }, cohort: 'bronze-1', value: 7 });
    expect(await read('/v1/users/b1/leagues/early-back?run=2026-06-22')).toMatchObject({ value: 2, zone: 'promote' });
    expect((await s.request('PATCH', '/api/users/b1', { body: { tz: 'UTC' } })).status).toBe(200);
    // The 22nd final: b1 back to silver in the 23rd, into silver-1 again (their seat), with their 7.
    await s.setClock('2026-06-23T12:01:00Z');
    await s.workers!.testing.finaliseNow();
    expect(await read('/v1/users/b1/leagues/early-back?run=2026-06-23')).toMatchObject({
      tier: { key: 'silver' }, cohort: 'silver-1', rank: 1, value: 7, participants: 1,
    });
    expect(await cohorts(lb, '2026-06-23')).toEqual({ 'bronze-1': [], 'silver-1': [['b1', 7]] });
    // Their next event there (the 23rd in UTC now) ranks them in silver-1 only, with the run's sum.
    const answer = await s.event('plays', 'b1', 1);
    expect(answer.leaderboards['early-back'].league).toMatchObject({ tier: 'silver', cohort: 'silver-1', rank: 1 });
    expect(await cohorts(lb, '2026-06-23')).toEqual({ 'bronze-1': [], 'silver-1': [['b1', 8]] });
  });

  it('seats the early joiners of one cohort in their new tier in the order of its ranking', async () => {
    const lb = await board('early-order');
    // Run of the 25th: bronze-1 o1..o5, o1 and o2 promoted; four users carrying silver.
    await s.setClock('2026-06-25T09:00:00Z');
    for (const [id, value] of [['o1', 5], ['o2', 4], ['o3', 3], ['o4', 2], ['o5', 1]] as const) await s.event('plays', id, value);
    for (const id of ['v1', 'v2', 'v3', 'v4']) await carrying(lb.id, id, 1, '2026-06-24');
    // The run of the 26th before the 25th is final: silver-1 has one seat left; o2 plays before o1.
    await s.setClock('2026-06-26T08:00:00Z');
    for (const [id, value] of [['v1', 1], ['v2', 1], ['v3', 1], ['v4', 1], ['o2', 9], ['o1', 8]] as const) await s.event('plays', id, value);
    await s.setClock('2026-06-26T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    // o1, first of bronze-1 in the 25th, takes silver-1's last seat; o2 opens silver-2.
    expect(await cohorts(lb, '2026-06-26')).toEqual({
      'bronze-1': [], 'silver-1': [['o1', 8], ['v1', 1], ['v2', 1], ['v3', 1], ['v4', 1]], 'silver-2': [['o2', 9]],
    });
  });

  it('refuses a join in a tier read before an outcome moved it', async () => {
    const lb = await board('early-keep');
    const { redis, keys } = s.api!.services;
    await carrying(lb.id, 'k1', 0, '2026-06-13');
    const { user, log } = keys.forUser('_', 'k1');
    expect(await leagueMove.run(redis, user, lb.id, '2026-06-13', 1, 2)).toBe('applied');
    const place = { tier: 0, run: '2026-06-14', cohort: 0 };
    const entry = (tier: number) => leagueEntry({ t: '_', u: 'k1', ts: 0, b: lb.id, r: place.run, c: `${tier}.0`, n: '0.1' });
    expect(await leagueKeep.run(redis, user, log, lb.id, place, 0, entry(0))).toEqual({ kept: 'moved' });
    expect(await leagueKeep.run(redis, user, log, lb.id, { ...place, tier: 1 }, 1, entry(1))).toEqual({ kept: 'written' });
    expect(await redis.hget(user, leagueField(lb.id))).toBe('1|2026-06-14|0|1|2026-06-13');
  });
});
