/**
 * A restore seats a league's cohorts as the joins did (src/engine/durability/league-seats.ts), not
 * as the log orders the events: users who play the next run while a finalisation pass is under
 * way join a cohort of their new tier when the pass moved them already, and are moved there by the
 * pass otherwise, in an order the events' entries do not tell. Every user's place, every cohort's
 * rankings and the tiers' open cohorts read as before after Redis lost everything; and users who
 * joined at once, each seated as they joined; and a points league joined through API completions,
 * events, batches and time awards, with a user erased and one excluded and included between;
 * and a cohort's outcome kept as decided when one of its users was erased after it, from a snapshot
 * or from the log alone (the cohort's `outcome` entry). Single Redis and the Cluster.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as leagueFinalise from '../../src/redis/scripts/leagueFinalise.js';
import * as leagueMove from '../../src/redis/scripts/leagueMove.js';
import { adminCreateOne, batchApplied, erasureDone } from '../support/admin.js';
import { restoreServer } from '../support/restore.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

/** Cohorts of five: the first three of each bronze cohort go up, the last of a silver one down. */
const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 3, demote: 0 },
  { key: 'silver', name: 'Silver', promote: 0, demote: 1 },
];
const SIZE = 5;
const DAY = '2026-06-01';
const NEXT = '2026-06-02';
const USERS = Array.from({ length: 20 }, (_, i) => `u${String(i).padStart(2, '0')}`);

describe.each(targets())('a league restored on %s', (target) => {
  let s: TestServer | undefined;
  const prefixes: string[] = [];
  afterEach(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, prefixes);
    s = undefined;
  });

  const read = async (path: string) => {
    const r = await s!.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  /** Every user's place in the next run, every cohort's rankings and the tiers' cohorts there. */
  const readAll = async (lb: { id: string; key: string }) => {
    const out: Record<string, unknown> = {};
    for (const id of USERS) out[id] = await read(`/v1/users/${id}/leagues/${lb.key}?run=${NEXT}`);
    const summary = await read(`/admin/v1/leaderboards/${lb.id}/league?run=${NEXT}`);
    out.summary = summary;
    for (const tier of summary.tiers) {
      for (const c of tier.cohorts) out[c.cohort] = (await read(`/v1/leaderboards/${lb.key}?cohort=${c.cohort}&run=${NEXT}&limit=10`)).rankings;
    }
    return out;
  };

  /** A server (the workers' own finalisation pass paused) and its daily metric league on `plays`. */
  const leagueServer = async (): Promise<[TestServer, { id: string; key: string }]> => {
    const server = await startTestServer({ target, clock: 'manual', workers: true });
    prefixes.push(server.prefix);
    await server.workers!.testing.pauseFinalisePass();
    const { plays } = await server.metrics('plays');
    return [server, await adminCreateOne(server, '/admin/v1/leaderboards', {
      name: 'League', key: 'league', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
      league: { tiers: TIERS, cohortSize: SIZE },
    })];
  };

  it('seats the cohorts joined while a finalisation pass moved users as they were', { timeout: 60_000 }, async () => {
    let lb: { id: string; key: string };
    [s, lb] = await leagueServer();
    // The run of the 1st: bronze-1 u00 to u04, bronze-2 u05 to u09, bronze-3 u10 to u14, bronze-4
    // u15 to u19; the first three of each promoted.
    await s.setClock(`${DAY}T10:00:00Z`);
    for (const [i, id] of USERS.entries()) await s.event('plays', id, 20 - i);
    await s.workers!.testing.drainNow();
    expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });

    // A pass under way: bronze-3 and bronze-4 decided and their users moved, the others not yet.
    const { redis, keys } = s.api.services;
    await s.setClock(`${NEXT}T12:00:00Z`);
    for (const n of [2, 3]) {
      const decided = await leagueFinalise.run(redis, keys.leagueCohort('_', lb.id, DAY, 0, n), 3, 0, SIZE);
      for (const u of decided.users) {
        const move = u.outcome === 'promoted' ? 1 : 0;
        expect(await leagueMove.run(redis, keys.forUser('_', u.userId).user, lb.id, DAY, move, 1)).toBe('applied');
      }
    }
    // Meanwhile the moved ones join silver of the 2nd as they play (u15 to u17, then u10 to u12:
    // silver-1 is full before u12, who opens silver-2); the others promoted, not moved yet, join
    // bronze (bronze-1 u00 to u06, bronze-2 u07), and so does u03, who stayed.
    await s.setClock(`${NEXT}T12:30:00Z`);
    const next = ['u15', 'u16', 'u17', 'u10', 'u11', 'u12', 'u00', 'u01', 'u02', 'u05', 'u06', 'u07', 'u03'];
    for (const [i, id] of next.entries()) await s.event('plays', id, 1 + (i * 7) % 13);
    // The pass done: the early joiners moved, in their cohorts' order, to silver-2's last seats
    // (u00, u01, u02, u05) and silver-3 (u06, u07).
    await s.workers!.testing.finaliseNow();
    const before = await readAll(lb);
    const cohortOf = (id: string) => (before[id] as { cohort: string }).cohort;
    expect(Object.fromEntries(next.map((id) => [id, cohortOf(id)]))).toEqual({
      u15: 'silver-1', u16: 'silver-1', u17: 'silver-1', u10: 'silver-1', u11: 'silver-1',
      u12: 'silver-2', u00: 'silver-2', u01: 'silver-2', u02: 'silver-2', u05: 'silver-2',
      u06: 'silver-3', u07: 'silver-3', u03: 'bronze-2',
    });

    const restored = await restoreServer(s);
    expect(restored.result).toMatchObject({ failed: 0 });
    s = restored.server;
    await s.setClock(`${NEXT}T13:00:00Z`);
    expect(await readAll(lb)).toEqual(before);
    // The tiers' open cohorts as the joins left them: bronze-2 holds u03 and the seat u07 left,
    // bronze-1 is full of seats left: u04, u08 and u09 take bronze-2's last ones, u13 opens bronze-3.
    for (const id of ['u04', 'u08', 'u09', 'u13']) await s.event('plays', id, 1);
    expect(Object.fromEntries(await Promise.all(['u04', 'u08', 'u09', 'u13'].map(async (id) => [id, (await read(`/v1/users/${id}/leagues/league`)).cohort])))).toEqual({
      u04: 'bronze-2', u08: 'bronze-2', u09: 'bronze-2', u13: 'bronze-3',
    });
  });

  it('seats users who joined at once as they joined, new and known ones', { timeout: 60_000 }, async () => {
    [s] = await leagueServer();
    // Known users (in the snapshot, placed in the run before) and new ones, 60 first events of
    // the run at once: their placements join in an order of their own.
    await s.setClock(`${DAY}T10:00:00Z`);
    for (const id of USERS) await s.event('plays', id, 1);
    await s.workers!.testing.drainNow();
    expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
    await s.setClock(`${NEXT}T12:30:00Z`);
    const users = [...USERS, ...Array.from({ length: 40 }, (_, i) => `n${i}`)];
    await Promise.all(users.map((id, i) => s!.event('plays', id, 1 + (i % 9))));
    const places = async (): Promise<Record<string, [string, number, number]>> => Object.fromEntries(await Promise.all(users.map(async (id) => {
      const r = await read(`/v1/users/${id}/leagues/league?run=${NEXT}`);
      return [id, [r.cohort, r.rank, r.participants]];
    })));
    const before = await places();
    expect(new Set(Object.values(before).map(([cohort]) => cohort)).size).toBe(12);

    const restored = await restoreServer(s);
    expect(restored.result).toMatchObject({ failed: 0 });
    s = restored.server;
    await s.setClock(`${NEXT}T13:00:00Z`);
    expect(await places()).toEqual(before);
  });

  it('seats a points league joined through every path, with an erasure, an exclusion and batches between', { timeout: 90_000 }, async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    prefixes.push(s.prefix);
    await s.workers!.testing.pauseFinalisePass();
    await s.workers!.testing.pauseTimePass();
    const { lessons } = await s.metrics('lessons');
    await s.setClock(`${DAY}T10:00:00Z`);
    const ach = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'On', key: 'on', trigger: 'api' }] });
    expect(ach.status, ach.text).toBe(201);
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [
        { type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'achievement', achievementId: ach.body.created[0].id, points: 25, status: 'active' },
        { type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, status: 'active' },
      ] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const b = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'L', key: 'pl', status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, start: '2026-01-01', runUnit: 'day', runInterval: 1, league: { tiers: TIERS, cohortSize: SIZE } }] });
    expect(b.status, b.text).toBe(201);
    // 15 users placed on the 1st (in the snapshot); then 30 at once on the 2nd through an API
    // completion's award, an event or another, the 1st finalised after them (early joiners moved),
    // time awards.
    const users = Array.from({ length: 30 }, (_, i) => `q${i}`);
    for (const id of users.slice(0, 15)) await s.event('lessons', id, 1);
    await s.workers!.testing.drainNow();
    expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
    await s.setClock(`${NEXT}T13:00:00Z`);
    const answers = await Promise.all(users.map((id, i) => (i % 3 === 0
      ? s!.request('POST', '/api/achievements/on/complete', { body: { user: { id } } })
      : s!.request('POST', '/api/metrics/lessons/event', { body: { user: { id }, value: i % 3 } }))));
    for (const r of answers) expect(r.status, r.text).toBe(201);
    await s.workers!.testing.accrueNow();
    await s.workers!.testing.finaliseNow();
    await s.setClock(`${NEXT}T15:00:00Z`);
    await s.workers!.testing.accrueNow();
    // q4 erased, q7 excluded then included, batch events for q20..q29 and new b0..b9.
    const erase = await s.request('DELETE', '/admin/v1/users/q4');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    expect((await s.request('PUT', '/admin/v1/users/q7/exclusion', { body: { reason: 'x' } })).status).toBeLessThan(300);
    expect((await s.request('DELETE', '/admin/v1/users/q7/exclusion')).status).toBeLessThan(300);
    await s.event('lessons', 'q7', 3);
    await batchApplied(s, [...users.slice(20), ...Array.from({ length: 10 }, (_, i) => `b${i}`)].map((id) => ({ key: 'lessons', user: { id }, value: 1 })), 20);
    users.splice(users.indexOf('q4'), 1);
    users.push(...Array.from({ length: 10 }, (_, i) => `b${i}`));
    const places = async () => Object.fromEntries(await Promise.all(users.map(async (id) => {
      const r = await read(`/v1/users/${id}/leagues/pl?run=${NEXT}`);
      return [id, [r.tier.key, r.cohort, r.rank, r.value, r.participants]];
    })));
    const before = await places();
    const summary = await read(`/admin/v1/leaderboards/${b.body.created[0].id}/league?run=${NEXT}`);
    const restored = await restoreServer(s);
    expect(restored.result).toMatchObject({ failed: 0 });
    s = restored.server;
    await s.setClock(`${NEXT}T15:00:00Z`);
    expect(await places()).toEqual(before);
    expect(await read(`/admin/v1/leaderboards/${b.body.created[0].id}/league?run=${NEXT}`)).toEqual(summary);
  });

  it('keeps an erased user\'s seat taken in their tier', { timeout: 60_000 }, async () => {
    let lb: { id: string; key: string };
    [s, lb] = await leagueServer();
    // A snapshot before anyone joins: the run's tier is seated from the log alone.
    expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
    // u00 to u04 fill bronze-1, u05 opens bronze-2; then u05 and u02 are erased (their seats stay
    // taken: their log entries redacted).
    await s.setClock(`${DAY}T10:00:00Z`);
    for (const id of USERS.slice(0, 6)) await s.event('plays', id, 1);
    for (const id of ['u05', 'u02']) {
      const erase = await s.request('DELETE', `/admin/v1/users/${id}`);
      expect(erase.status, erase.text).toBe(202);
      await erasureDone(s, erase.body.erasureId);
    }
    const summary = () => read(`/admin/v1/leaderboards/${lb.id}/league?run=${DAY}`);
    const before = await summary();
    expect(before.tiers[0].cohorts.map((c: { cohort: string; participants: number }) => [c.cohort, c.participants])).toEqual([['bronze-1', 4], ['bronze-2', 0]]);

    const restored = await restoreServer(s);
    expect(restored.result).toMatchObject({ failed: 0 });
    s = restored.server;
    await s.setClock(`${DAY}T12:00:00Z`);
    expect(await summary()).toEqual(before);
    // bronze-2 holds u05's seat: four more fill it, the fifth opens bronze-3.
    const next = USERS.slice(10, 15);
    for (const id of next) await s.event('plays', id, 1);
    expect(await Promise.all(next.map(async (id) => (await read(`/v1/users/${id}/leagues/league`)).cohort))).toEqual(
      ['bronze-2', 'bronze-2', 'bronze-2', 'bronze-2', 'bronze-3'],
    );
  });

  /**
   * A cohort's outcome decided, one of its promoted users erased after it; the restore from a
   * snapshot taken before the finalisation, or (`fromLogAlone`) with no snapshot kept: the whole
   * log replayed. Each remaining user's outcome and tier and the moves' counts read as before.
   */
  const erasedAfterOutcome = async (fromLogAlone: boolean) => {
    let lb: { id: string; key: string };
    [s, lb] = await leagueServer();
    // bronze-1 of the 1st: u00 to u04; the snapshot before its finalisation (u00 to u02
    // promoted), then u01 erased: the cohort's ranking copied again without them.
    await s.setClock(`${DAY}T10:00:00Z`);
    for (const [i, id] of USERS.slice(0, 5).entries()) await s.event('plays', id, 10 - i);
    await s.workers!.testing.drainNow();
    expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
    await s.setClock(`${NEXT}T12:30:00Z`);
    await s.workers!.testing.finaliseNow();
    const erase = await s.request('DELETE', '/admin/v1/users/u01');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    const outcomes = async () => ({
      users: await Promise.all(['u00', 'u02', 'u03', 'u04'].map(async (id) => {
        const [past, now] = await Promise.all([read(`/v1/users/${id}/leagues/league?run=${DAY}`), read(`/v1/users/${id}/leagues/league?run=${NEXT}`)]);
        return [id, past.outcome, now.tier.key];
      })),
      moves: (await read(`/admin/v1/leaderboards/${lb.id}/league?run=${DAY}`)).tiers[0].moves,
    });
    const before = await outcomes();
    expect(before).toEqual({
      users: [['u00', 'promoted', 'silver'], ['u02', 'promoted', 'silver'], ['u03', 'stayed', 'bronze'], ['u04', 'stayed', 'bronze']],
      moves: { promoted: 3, demoted: 0, stayed: 2 },
    });

    const restored = await restoreServer(s, fromLogAlone);
    expect(restored.result).toMatchObject({ failed: 0, snapshot: fromLogAlone ? null : expect.any(Number) });
    s = restored.server;
    await s.setClock(`${NEXT}T12:30:00Z`);
    expect(await outcomes()).toEqual(before);
  };

  it('keeps a cohort\'s outcome whose user was erased after the finalisation', { timeout: 60_000 }, () => erasedAfterOutcome(false));

  it('keeps a cohort\'s outcome whose user was erased, restored from the log alone', { timeout: 60_000 }, () => erasedAfterOutcome(true));
});
