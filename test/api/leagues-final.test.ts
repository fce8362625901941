/**
 * Leagues' finalisation (docs/api.md, "Leagues"), on single Redis and on the Cluster, with the
 * manual clock, the workers in the test and a real webhook receiver: when a run is final, in every
 * cohort the top `promote` move up a tier and the bottom `demote` down (a cohort below the league's
 * size in proportion, never all of it), the others stay, ties ranked as boards rank them; the tier of the next run a user joins follows (a user already placed
 * in the next run keeps that place, the move applying from the run after); a past run read with
 * each user's outcome, the admin summary's moves per tier; `league.promoted`, `league.demoted` and
 * `league.stayed` once per user; an erased user's outcome removed, the others' zones as decided. A pass left half done (cohorts decided, some users moved, as a
 * process killed between cohorts leaves it), then two worker processes finalising at once: every
 * user moved exactly once, each event sent once. The outcome on the user's own live topic, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { leagueField, leagueText } from '../../src/redis/leagues.js';
import * as leagueFinalise from '../../src/redis/scripts/leagueFinalise.js';
import * as leagueMove from '../../src/redis/scripts/leagueMove.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreateOne, erasureDone } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { liveUrl, openLive } from '../support/live-client.js';
import { scopedTopic } from '../../src/engine/live/topic-store.js';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const TIERS = [
  { key: 'bronze', name: 'Bronze', promote: 2, demote: 0 },
  { key: 'silver', name: 'Silver', promote: 1, demote: 1 },
  { key: 'gold', name: 'Gold', promote: 0, demote: 2 },
];
const LEAGUE_EVENTS = ['league.promoted', 'league.demoted', 'league.stayed'];

describe.each(targets())('leagues finalised on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let plays = '';
  let league: any;

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2026-05-04T09:00:00Z');
    ({ plays } = await s.metrics('plays'));
    const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Leagues', url: hook.url('/leagues'), events: LEAGUE_EVENTS }] });
    expect(w.status, w.text).toBe(201);
    league = await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'League', key: 'league', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
      league: { tiers: TIERS, cohortSize: 5 },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const read = async (path: string) => {
    const r = await s.request('GET', path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  /** What the workers do each second, now: the drain records, the sender sends. */
  const work = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.webhooksNow(); };
  /** The league events the receiver got for a board, by user. */
  const received = (board: string) => hook.at('/leagues').map((r) => JSON.parse(r.body)).filter((b) => b.league.key === board);
  /** A user who carries `tier` into the run, as a run before it would have left them. */
  const carrying = async (board: string, id: string, tier: number) => {
    const r = await s.request('POST', '/v1/users', { body: { id, name: id.toUpperCase() } });
    expect([200, 201], r.text).toContain(r.status);
    const { redis, keys } = s.api!.services;
    await redis.hset(keys.forUser('_', id).user, leagueField(board), leagueText({ tier, run: '2026-05-03', cohort: 0 }));
  };

  it('moves the top of each cohort up and the bottom down once the run is final, the next run\'s tier following', async () => {
    for (const [id, tier] of [['g1', 2], ['g2', 2], ['g3', 2], ['s1', 1], ['s2', 1], ['s3', 1]] as const) await carrying(league.id, id, tier);
    // bronze-1: b1 5, b2 3, b3 3 (b2 reached it first), b4 1, b5 0; bronze-2: b7 4, b6 2.
    for (const [id, value] of [['b1', 5], ['b2', 3], ['b3', 3], ['b4', 1], ['b5', 0], ['b6', 2], ['b7', 4]] as const) await s.event('plays', id, value);
    for (const [id, value] of [['g1', 3], ['g2', 2], ['g3', 1], ['s1', 2], ['s2', 1], ['s3', 0]] as const) await s.event('plays', id, value);
    expect(await read('/v1/users/b3/leagues/league')).toMatchObject({ cohort: 'bronze-1', rank: 3, zone: 'stay', outcome: null });

    // The next run began at midnight UTC: b1 plays in it before the run of the 4th is final, in bronze.
    await s.setClock('2026-05-05T10:00:00Z');
    await s.event('plays', 'b1', 1);
    await s.setClock('2026-05-05T11:59:59Z');
    await s.workers!.testing.finaliseNow();
    expect((await read(`/admin/v1/leaderboards/${league.id}/league?run=2026-05-04`)).finalised).toBe(false);
    expect(await read('/v1/users/b2/leagues/league?run=2026-05-04')).toMatchObject({ rank: 2, zone: 'promote', outcome: null });

    // 36 hours after the last day began in UTC: every zone has finished it.
    await s.setClock('2026-05-05T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    await s.workers!.testing.finaliseNow();
    const past = await read('/v1/users/b2/leagues/league?run=2026-05-04');
    expect(past).toMatchObject({
      tier: { key: 'bronze', index: 0 }, run: '2026-05-04', cohort: 'bronze-1', rank: 2, value: 3, participants: 5, zone: 'promote', outcome: 'promoted',
    });
    expect(past.rankings.map((r: any) => r.userId)).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    const outcomes: Record<string, [string, string]> = {};
    for (const id of ['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 's1', 's2', 's3', 'g1', 'g2', 'g3']) {
      const r = await read(`/v1/users/${id}/leagues/league?run=2026-05-04`);
      outcomes[id] = [r.tier.key, r.outcome];
    }
    // Cohorts of 5: bronze-1 is full (2 up); bronze-2 (2 users) and silver-1 (3) are too small to
    // move anyone (2 × 2 ÷ 5 and 1 × 3 ÷ 5 round down to 0); gold-1 (3) demotes 2 × 3 ÷ 5, one.
    expect(outcomes).toEqual({
      b1: ['bronze', 'promoted'], b2: ['bronze', 'promoted'], b3: ['bronze', 'stayed'], b4: ['bronze', 'stayed'], b5: ['bronze', 'stayed'],
      b6: ['bronze', 'stayed'], b7: ['bronze', 'stayed'],
      s1: ['silver', 'stayed'], s2: ['silver', 'stayed'], s3: ['silver', 'stayed'],
      g1: ['gold', 'stayed'], g2: ['gold', 'stayed'], g3: ['gold', 'demoted'],
    });
    const summary = await read(`/admin/v1/leaderboards/${league.id}/league?run=2026-05-04`);
    expect(summary.finalised).toBe(true);
    // By its key as by its id, as the board's statistics are.
    expect(await read(`/admin/v1/leaderboards/${league.key}/league?run=2026-05-04`)).toEqual(summary);
    expect(summary.tiers.map((t: any) => [t.key, t.moves])).toEqual([
      ['bronze', { promoted: 2, demoted: 0, stayed: 5 }],
      ['silver', { promoted: 0, demoted: 0, stayed: 3 }],
      ['gold', { promoted: 0, demoted: 1, stayed: 2 }],
    ]);
    expect(summary.tiers[0].cohorts).toEqual([
      { cohort: 'bronze-1', participants: 5, moves: { promoted: 2, demoted: 0, stayed: 3 } },
      { cohort: 'bronze-2', participants: 2, moves: { promoted: 0, demoted: 0, stayed: 2 } },
    ]);
    // The run being played: each user's tier as the outcome left it; b1, placed in it before, moved
    // to the open cohort of silver with the value it had, out of bronze-1.
    const now: Record<string, string> = {};
    for (const id of Object.keys(outcomes)) now[id] = (await read(`/v1/users/${id}/leagues/league`)).tier.key;
    expect(now).toEqual({
      b1: 'silver', b2: 'silver', b3: 'bronze', b4: 'bronze', b5: 'bronze', b6: 'bronze', b7: 'bronze',
      s1: 'silver', s2: 'silver', s3: 'silver', g1: 'gold', g2: 'gold', g3: 'silver',
    });
    expect(await read('/v1/users/b1/leagues/league')).toMatchObject({ run: '2026-05-05', cohort: 'silver-1', rank: 1, value: 1, outcome: null });
    expect((await read(`/admin/v1/leaderboards/${league.id}/league?run=2026-05-05`)).tiers.map((t: any) => t.participants)).toEqual([0, 1, 0]);
    await s.event('plays', 'b2', 1);
    await s.event('plays', 's1', 1);
    expect(await read('/v1/users/b2/leagues/league')).toMatchObject({ tier: { key: 'silver' }, cohort: 'silver-1', rank: 2 });
    expect(await read('/v1/users/s1/leagues/league')).toMatchObject({ tier: { key: 'silver' }, cohort: 'silver-1', rank: 3 });
    // b1 carries silver into the run after.
    await s.setClock('2026-05-06T10:00:00Z');
    await s.event('plays', 'b1', 1);
    expect(await read('/v1/users/b1/leagues/league')).toMatchObject({ run: '2026-05-06', tier: { key: 'silver' }, cohort: 'silver-1' });

    // One event per user, with the run's tier, cohort and place, and the next run's tier.
    await eventually(async () => {
      await work();
      expect(received('league').map((b) => b.user.id).sort()).toEqual(Object.keys(outcomes).sort());
    });
    const events = received('league');
    for (const b of events) expect(b.type).toBe(`league.${outcomes[b.user.id][1]}`);
    expect(events.find((b) => b.user.id === 'b2')).toEqual({
      type: 'league.promoted', user: expect.objectContaining({ id: 'b2', name: null }),
      league: {
        leaderboardId: league.id, key: 'league', name: 'League', run: '2026-05-04', runEnd: '2026-05-04', tier: { key: 'bronze', name: 'Bronze', index: 0 },
        cohort: 'bronze-1', rank: 2, value: 3, participants: 5, outcome: 'promoted', nextTier: { key: 'silver', name: 'Silver', index: 1 },
      },
    });
    expect(events.find((b) => b.user.id === 'g3').league).toMatchObject({ tier: { key: 'gold' }, outcome: 'demoted', nextTier: { key: 'silver' } });
    expect(events.find((b) => b.user.id === 'g2').league).toMatchObject({ tier: { key: 'gold' }, outcome: 'stayed', nextTier: { key: 'gold' } });
    expect(events.find((b) => b.user.id === 's2').league).toMatchObject({ tier: { key: 'silver' }, outcome: 'stayed', nextTier: { key: 'silver' } });
    // Finalising again moves nobody and sends nothing more.
    await s.workers!.testing.finaliseNow();
    await work();
    expect(received('league')).toHaveLength(events.length);
    expect((await read('/v1/users/g3/leagues/league')).tier.key).toBe('silver');
  });

  it('takes an erased user\'s outcome away, the counts of those who moved staying', async () => {
    const { redis, keys } = s.api!.services;
    const outcome = keys.leagueCohort('_', league.id, '2026-05-04', 0, 0).outcome;
    expect(await redis.hget(outcome, 'u:b5')).toBe('s|5|0');
    const erase = await s.request('DELETE', '/admin/v1/users/b5');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    expect(await redis.hget(outcome, 'u:b5')).toBeNull();
    expect(await redis.hget(outcome, 'u:b4')).toBe('s|4|1');
    const summary = await read(`/admin/v1/leaderboards/${league.id}/league?run=2026-05-04`);
    expect(summary.tiers[0].moves).toEqual({ promoted: 2, demoted: 0, stayed: 5 });
    expect((await s.request('GET', '/v1/users/b5/leagues/league?run=2026-05-04')).status).toBe(404);
    // b2 (promoted, second) erased too: b3, who stayed third, ranks second among those left, and
    // the read shows the zone the outcome was decided in, not the one that rank would be in now.
    const second = await s.request('DELETE', '/admin/v1/users/b2');
    expect(second.status, second.text).toBe(202);
    await erasureDone(s, second.body.erasureId);
    expect(await read('/v1/users/b3/leagues/league?run=2026-05-04')).toMatchObject({ rank: 2, participants: 3, zone: 'stay', outcome: 'stayed' });
    expect(await read('/v1/users/b1/leagues/league?run=2026-05-04')).toMatchObject({ rank: 1, zone: 'promote', outcome: 'promoted' });
  });

  it('moves every user exactly once when a pass was left half done and two worker processes finalise at once', async () => {
    const duel = await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Duel', key: 'duel', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
      league: { tiers: TIERS, cohortSize: 5 },
    });
    await s.setClock('2026-05-07T09:00:00Z');
    // 23 bronze users (cohorts of 5, 5, 5, 5, 3) and 7 gold (5 and 2): a user moved twice would end in gold, or in bronze.
    const bronze = Array.from({ length: 23 }, (_, i) => `d${i}`);
    const gold = Array.from({ length: 7 }, (_, i) => `e${i}`);
    for (const id of gold) await carrying(duel.id, id, 2);
    for (const [i, id] of [...bronze, ...gold].entries()) await s.event('plays', id, 1 + ((i * 7) % 11));
    // A pass killed part-way: bronze-1 and gold-1 decided, half of bronze-1's users moved, the run not marked final.
    const { redis, keys } = s.api!.services;
    const first = await leagueFinalise.run(redis, keys.leagueCohort('_', duel.id, '2026-05-07', 0, 0), 2, 0, 5);
    expect(first.now).toBe(true);
    expect(first.users).toHaveLength(5);
    for (const u of first.users.slice(0, 3)) {
      expect(await leagueMove.run(redis, keys.forUser('_', u.userId).user, duel.id, '2026-05-07', u.outcome === 'promoted' ? 1 : 0, 2)).toBe('applied');
    }
    expect((await leagueFinalise.run(redis, keys.leagueCohort('_', duel.id, '2026-05-07', 2, 0), 0, 2, 5)).now).toBe(true);
    const expected: Record<string, string> = {};
    for (const id of [...bronze, ...gold]) {
      const r = await read(`/v1/users/${id}/leagues/duel`);
      expected[id] = r.zone === 'promote' ? TIERS[r.tier.index + 1].key : r.zone === 'demote' ? TIERS[r.tier.index - 1].key : r.tier.key;
    }
    // Two of each full bronze cohort up and one of the cohort of 3, two of the full gold cohort down
    // and none of the cohort of 2.
    expect(Object.values(expected).filter((t) => t === 'silver')).toHaveLength(11);

    const other = await startWorkers(s.settings, createLogger('silent'));
    try {
      await s.setClock('2026-05-08T12:00:00Z');
      await Promise.all([s.workers!.testing.finaliseNow(), other.testing.finaliseNow()]);
      await Promise.all([s.workers!.testing.finaliseNow(), other.testing.finaliseNow()]);
      const tiers: Record<string, string> = {};
      for (const id of Object.keys(expected)) tiers[id] = (await read(`/v1/users/${id}/leagues/duel`)).tier.key;
      expect(tiers).toEqual(expected);
      // The cohort decided before kept its outcome.
      expect((await read(`/v1/users/${first.users[0].userId}/leagues/duel?run=2026-05-07`)).outcome).toBe(first.users[0].outcome);
      await eventually(async () => {
        await Promise.all([s.workers!.testing.drainNow(), other.testing.drainNow()]);
        await Promise.all([s.workers!.testing.webhooksNow(), other.testing.webhooksNow()]);
        expect(received('duel').map((b) => b.user.id).sort()).toEqual(Object.keys(expected).sort());
      });
    } finally {
      await other.close();
    }
    const summary = await read(`/admin/v1/leaderboards/${duel.id}/league?run=2026-05-07`);
    expect(summary.tiers.map((t: any) => t.moves)).toEqual([
      { promoted: 9, demoted: 0, stayed: 14 }, { promoted: 0, demoted: 0, stayed: 0 }, { promoted: 0, demoted: 2, stayed: 5 },
    ]);
  }, 60_000);

  it('sends the user\'s outcome on their own live topic, once', async () => {
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Live', key: 'live-league', rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1,
      league: { tiers: TIERS, cohortSize: 5 },
    });
    await s.setClock('2026-05-10T09:00:00Z');
    // lv2 3, lv3 2, lv1 1: a cohort of 3 of 5 promotes one (2 × 3 ÷ 5), lv2.
    await s.event('plays', 'lv1', 1);
    await s.event('plays', 'lv2', 3);
    await s.event('plays', 'lv3', 2);
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'lv2' }] });
    expect(k.status, k.text).toBe(201);
    const c = await openLive(liveUrl(s.url, k.body.created[0].key as string));
    try {
      await c.subscribe(['user:lv2']);
      // The subscription reaches the workers' interest by a message of its own, after the answer.
      await expect.poll(() => s.workers!.live.interest.has(scopedTopic('_', 'user:lv2')), { timeout: 10_000 }).toBe(true);
      await s.setClock('2026-05-11T12:00:00Z');
      const moved = async () => {
        await s.workers!.testing.finaliseNow();
        // Every league board here ranks plays: lv2 is in each one's.
        return c.messages.filter((m) => m.type?.startsWith('league.') && m.data.league.key === 'live-league');
      };
      await expect.poll(async () => (await moved()).length, { timeout: 10_000 }).toBe(1);
      expect((await moved())[0]).toEqual({
        topic: 'user:lv2', seq: expect.any(Number), type: 'league.promoted',
        data: {
          user: expect.objectContaining({ id: 'lv2' }),
          league: expect.objectContaining({ key: 'live-league', run: '2026-05-10', cohort: 'bronze-1', rank: 1, value: 3, outcome: 'promoted', nextTier: { key: 'silver', name: 'Silver', index: 1 } }),
        },
      });
      // Nothing of another user's on this topic, and nothing more when finalised again.
      expect(JSON.stringify(c.messages)).not.toContain('"lv1"');
      await s.workers!.testing.finaliseNow();
      expect(await moved()).toHaveLength(1);
    } finally {
      await c.close();
    }
  });
});
