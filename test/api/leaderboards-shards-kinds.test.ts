/**
 * Shards on a league board and on a streak board (docs/api.md, "Shards"), on single Redis and on
 * the Cluster: each fed the same events as a board of one ranking. The league's cohorts (rankings
 * of their own) and every user's place in them are the same, and so is the whole run; a streak
 * board drops the streaks lost from every shard, as from one ranking; a void on a board of 3
 * shards takes the value out of the user's own shard, every rank as on one ranking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, putStreakSettings } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const USERS = 12;
const id = (i: number) => `k${String(i).padStart(2, '0')}`;
const league = { tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver', demote: 1 }], cohortSize: 5 };

describe.each(targets())('shards on league and streak boards on %s', (target) => {
  let s: TestServer;
  let plays: string;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-05-04T10:00:00Z');
    ({ plays } = await s.metrics('plays'));
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: plays, threshold: 1 }] });
    const common = { status: 'active', start: '2026-01-01', maxParticipants: null };
    const daily = { ...common, rankBy: 'metric', metricId: plays, runUnit: 'day', runInterval: 1, league };
    for (const board of [
      { ...daily, name: 'League', key: 'league-one' },
      { ...daily, name: 'League in 3', key: 'league-three', shards: 3 },
      { ...common, rankBy: 'streak', name: 'Streaks', key: 'streak-one' },
      { ...common, rankBy: 'streak', name: 'Streaks in 3', key: 'streak-three', shards: 3 },
    ]) await adminCreateOne(s, '/admin/v1/leaderboards', board);
    // Day 1: everyone, with ties; day 2: half of them again. Day 3: the others' streaks are lost.
    for (let i = 0; i < USERS; i++) await s.event('plays', { id: id(i), name: `Player ${i}`, tz: 'UTC' }, (i * 5) % 4 + 1);
    await s.setClock('2026-05-05T10:00:00Z');
    for (let i = 0; i < USERS / 2; i++) await s.event('plays', id(i), i + 1);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const read = async (path: string) => {
    const r = await s.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  const places = async (key: string, query = '') => ((await read(`/v1/leaderboards/${key}?limit=100${query}`)).rankings as
    { userId: string; rank: number; value: number }[]).map((r) => [r.userId, r.rank, r.value]);
  const userPlace = async (key: string, userId: string, query = '') => {
    const b = await read(`/v1/users/${userId}/leaderboards/${key}${query}`);
    return [b.rank, b.value, b.participants, b.percentile];
  };

  it('accepts shards on a league board and places every user in the same cohort, at the same rank', async () => {
    const day1 = '&run=2026-05-04';
    expect(await places('league-three', day1)).toEqual(await places('league-one', day1));
    expect(await places('league-three')).toEqual(await places('league-one'));
    expect((await places('league-one')).length).toBe(USERS / 2);
    let inCohort = 0;
    for (let i = 0; i < USERS; i++) {
      const one = await read(`/v1/users/${id(i)}/leagues/league-one`);
      if (one.cohort !== null) inCohort++;
      const three = await read(`/v1/users/${id(i)}/leagues/league-three`);
      expect(three.cohort?.replace('league-three', ''), id(i)).toBe(one.cohort?.replace('league-one', ''));
      expect([three.tier, three.rank, three.value, three.participants, three.zone, three.rankings], id(i))
        .toEqual([one.tier, one.rank, one.value, one.participants, one.zone, one.rankings]);
    }
    expect(inCohort).toBe(USERS / 2);
  });

  it('accepts shards on a streak board and drops the lost streaks from every shard', async () => {
    expect(await places('streak-three')).toEqual(await places('streak-one'));
    expect((await places('streak-one')).length).toBe(USERS);
    await s.setClock('2026-05-06T10:00:00Z');
    const kept = await places('streak-one');
    expect(kept.map(([u]) => u).sort()).toEqual(Array.from({ length: USERS / 2 }, (_, i) => id(i)));
    expect(await places('streak-three')).toEqual(kept);
    for (let i = 0; i < USERS; i++) expect(await userPlace('streak-three', id(i)), id(i)).toEqual(await userPlace('streak-one', id(i)));
  });

  it('voids events on a sharded board as on one ranking', async () => {
    const common = { status: 'active', start: '2026-01-01', maxParticipants: null, rankBy: 'metric', metricId: plays };
    await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, name: 'Plain', key: 'plain-one' });
    await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, name: 'Plain in 3', key: 'plain-three', shards: 3 });
    const events: { user: string; eventId: string; value: number }[] = [];
    for (let i = 0; i < USERS; i++) {
      for (const value of [i % 3 + 1, (i * 7) % 5 + 1]) events.push({ user: id(i), value, eventId: (await s.event('plays', id(i), value)).eventId as string });
    }
    const before = await places('plain-one');
    expect(await places('plain-three')).toEqual(before);
    // Every third event voided: users fall past others, into ties, one to nothing.
    const voided = events.filter((_, n) => n % 3 === 0);
    const r = await s.request('POST', '/admin/v1/events/void', { body: voided.map((e) => ({ eventId: e.eventId, reason: 'a bot' })) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.voided).toHaveLength(voided.length);
    const after = await places('plain-one');
    // Each user's value less what was voided of theirs (the board counts the metric's earlier events too).
    const totals = new Map(before.map(([u, , v]) => [u, v as number]));
    for (const e of voided) totals.set(e.user, totals.get(e.user)! - e.value);
    expect(Object.fromEntries(after.map(([u, , v]) => [u, v]))).toEqual(Object.fromEntries(totals));
    expect(after).not.toEqual(before);
    expect(await places('plain-three')).toEqual(after);
    for (let i = 0; i < USERS; i++) expect(await userPlace('plain-three', id(i)), id(i)).toEqual(await userPlace('plain-one', id(i)));
  });
});
