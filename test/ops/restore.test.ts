/**
 * Snapshots and restore, proved: a random workload over every feature (events with and without
 * idempotency keys, some sent late with the time they happened, identifications and zone moves, API completions, time awards, repeating boards
 * rolling over to new runs, the runs finalised by the workers each day, a league's users moved
 * between tiers by them, early joiners of a run moved to a cohort of their new tier in it),
 * snapshots part-way (a full
 * one, then one of what changed), then a Redis that keeps nothing on disk killed, an empty one
 * started, `laurel restore`, and every read of every user and board compared with what it answered
 * before, before any worker runs again (the runs finalised after the last snapshot too). Replays of old idempotency keys still answer 202;
 * a key scoped to a user still works, and one revoked before the last snapshot still does not.
 * On single Redis and on a Cluster of its own.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InstallationError, restoreWith } from '../../src/engine/installation-check.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { redisServerAvailable } from '../support/redis-cluster.js';
import { ownCluster, singleRedis } from '../support/losable-redis.js';
import { startRedisServer } from '../support/redis-server.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';
import { startWorkers } from '../../workers/index.js';
import { SnapshotError, takeSnapshot } from '../../src/engine/durability/snapshot.js';
import { killCliProcesses, runCli } from '../support/cli.js';
import { random } from '../support/random.js';
import { restoreServer } from '../support/restore.js';

const USERS = Array.from({ length: 16 }, (_, i) => `u${i}`);
/** The repeating boards: daily on the metric and on the points, every two days on the metric. */
const REPEATING = ['lessons-daily', 'xp-daily', 'lessons-2d'];
const ZONES = ['Europe/London', 'America/New_York', 'Asia/Tokyo', 'Pacific/Kiritimati'];
const log = createLogger('silent');

/**
 * The notifications due index of every partition, once what is due by now has been made
 * deliveries: what is left is what activity still calls for.
 */
async function dueIndex(s: TestServer, notifyNow: () => Promise<unknown>): Promise<string[][]> {
  await notifyNow();
  const { redis, keys } = s.api.services;
  return Promise.all(Array.from({ length: keys.partitions }, (_, p) => redis.zrange(keys.partitionNotificationsDue(p), 0, -1, 'WITHSCORES')));
}

/** Everything the API answers about the users and boards, as JSON values to compare. */
async function readAll(s: TestServer, runs: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const get = async (path: string) => {
    const r = await s.request('GET', path);
    out[path] = { status: r.status, body: r.body };
  };
  for (const id of USERS) {
    await get(`/api/users/${id}`);
    await get(`/api/users/${id}/metrics`);
    await get(`/api/users/${id}/metrics/lessons/event-summary?aggregation=daily&startDate=2026-03-01&endDate=2026-03-12`);
    await get(`/api/users/${id}/achievements?includeIncomplete=true`);
    await get(`/api/users/${id}/streak?historyPeriods=14`);
    await get(`/api/users/${id}/preferences`);
    await get(`/api/users/${id}/points/xp`);
    await get(`/api/users/${id}/points/xp/event-summary?aggregation=daily&startDate=2026-03-01&endDate=2026-03-12`);
    for (const board of ['lessons-all', 'lessons-daily', 'xp-board', 'by-plan', 'lessons-open']) await get(`/api/users/${id}/leaderboards/${board}`);
    // The league: the user's tier (as the runs' outcomes moved it), and each run's cohort and outcome.
    await get(`/api/users/${id}/leagues/lessons-league`);
    for (const run of runs) await get(`/api/users/${id}/leagues/lessons-league?run=${run}`);
  }
  await get('/api/achievements');
  await get('/api/points/xp/summary');
  await get(`/api/streaks?userIds=${USERS.join(',')}`);
  await get('/api/streaks/rankings');
  for (const board of ['lessons-all', 'xp-board', 'lessons-open']) await get(`/api/leaderboards/${board}?limit=100`);
  for (const plan of ['free', 'pro']) await get(`/api/leaderboards/by-plan?limit=100&userAttributes=plan:${plan}`);
  // Every run of the repeating boards, with when the workers finalised it and its winners.
  for (const run of runs) {
    for (const board of REPEATING) await get(`/api/leaderboards/${board}?limit=100&run=${run}`);
  }
  return out;
}

describe.each(redisServerAvailable() === null ? ['redis', 'cluster'] : [])('snapshots and restore on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    killCliProcesses();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('gives back every read and every idempotency key after Redis lost everything', { timeout: 240_000 }, async () => {
    const redis = target === 'redis' ? await singleRedis() : await ownCluster();
    cleanups.push(() => redis.stop());
    // On the Cluster, the snapshots read every run of an uncapped board member by member (as they
    // read a large one: src/redis/run-members.ts); on single Redis, whole.
    const memberwise = target === 'cluster';
    let s = await startTestServer({ clock: 'manual', workers: true, env: { ...redis.env, ...(memberwise ? { LAUREL_SNAPSHOT_RUN_KEYS: '0' } : {}) } });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());

    // Every feature on the metric `lessons`.
    await s.setClock('2026-03-01T08:00:00Z');
    const ids = await s.metrics('lessons');
    const attrs = await s.attributes('user', 'plan');
    const ach = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 },
        { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
        { name: 'Streak 3', key: 'streak-3', trigger: 'streak', streakLength: 3 },
      ],
    });
    expect(ach.status, ach.text).toBe(201);
    const streak = await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 1, max: 2, autoEarnInterval: 7, autoEarnAmount: 1 } },
    });
    expect(streak.status, streak.text).toBe(200);
    // Sundays off (Admin API 1.26.0): the replay bridges them as the requests did.
    const off = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { daysOff: [0] } });
    expect(off.status, off.text).toBe(200);
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'XP', key: 'xp', levels: [{ name: 'Rookie', key: 'rookie', points: 20 }],
        triggers: [
          { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' },
          { type: 'achievement', achievementId: ach.body.created[1].id, points: 25, status: 'active' },
          { type: 'time', timeUnit: 'hours', timeInterval: 12, points: 1, status: 'active' },
        ],
      }],
    });
    expect(xp.status, xp.text).toBe(201);
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'All', key: 'lessons-all', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10 },
        { name: 'Daily', key: 'lessons-daily', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1 },
        { name: 'XP', key: 'xp-board', status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, maxParticipants: 10 },
        { name: 'By plan', key: 'by-plan', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 5, breakdownAttributes: [attrs.plan] },
        { name: 'XP daily', key: 'xp-daily', status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, maxParticipants: 10, runUnit: 'day', runInterval: 1 },
        { name: 'Two days', key: 'lessons-2d', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 2 },
        // A daily league: the workers' finalisations move its users between tiers.
        {
          name: 'League', key: 'lessons-league', status: 'active', rankBy: 'metric', metricId: ids.lessons, runUnit: 'day', runInterval: 1,
          league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 2 }, { key: 'silver', name: 'Silver', promote: 1, demote: 1 }, { key: 'gold', name: 'Gold', demote: 2 }] },
        },
        // Uncapped: every one of the 16 users ranked, where the boards above keep 10.
        { name: 'Everyone', key: 'lessons-open', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: null },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
    // Notifications that activity calls for: their due index is restored too.
    const templates = await s.request('POST', '/admin/v1/notifications/templates', {
      body: (['streak_reminder', 'reactivation', 'recap'] as const).map((type) => ({ key: type, type, channel: 'email', subject: 'Hi', text: 'Hi' })),
    });
    expect(templates.status, templates.text).toBe(201);
    await s.workers!.testing.timeIdle();
    // Time awards accrued by the workload alone, in its order, once the time trigger's backfill is
    // done: the pass each second, racing the requests, placed awards on the boards in another order
    // than the log's, which a restore replays, so a rank history's entries could differ where
    // values crossed (docs/operations.md, "Restoring Redis from Postgres").
    await s.workers!.testing.pauseTimePass();
    // The runs are finalised by the test's finaliseNow alone, at the moments the workload chooses:
    // some while its requests go on (a league's users playing the next run while the pass moves
    // the early joiners of it), and at the end of each day.
    await s.workers!.testing.pauseFinalisePass();

    const seed = Number(process.env.RESTORE_SEED ?? (target === 'redis' ? 7 : 11));
    const rand = random(seed);
    // When a pass races the requests: drawn apart, so the workload is the seed's whatever they do.
    const racing = random(seed + 1000);
    // Which events are sent late, saying when they happened (up to 40 hours before): drawn apart too.
    const late = random(seed + 2000);
    const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
    const keyed: { key: string; user: string; eventId: string }[] = [];
    const pauses: string[] = [];
    let resets = 0;
    let minute = 0;
    const runs: string[] = [];
    /** A day of the workload: events, identifications, completions, then time passing. */
    const day = async (n: number) => {
      const date = `2026-03-${String(n).padStart(2, '0')}`;
      runs.push(date);
      const passes: Promise<unknown>[] = [];
      for (let i = 0; i < 24; i++) {
        minute += 1 + Math.floor(rand() * 20);
        await s.setClock(new Date(Date.parse(`${date}T09:00:00Z`) + minute * 60_000).toISOString());
        // A pass racing the requests that follow, as the schedule's does: the runs final by now
        // (the day before once it is past noon UTC) finalised while users join the next ones.
        if (racing() < 0.25) passes.push(s.workers!.testing.finaliseNow());
        const user = pick(USERS);
        const roll = rand();
        if (roll < 0.6) {
          const body: Record<string, unknown> = { user: { id: user }, value: 1 + Math.floor(rand() * 3) };
          if (rand() < 0.2) (body.user as Record<string, unknown>).tz = pick(ZONES);
          if (rand() < 0.2) (body.user as Record<string, unknown>).attributes = { plan: pick(['free', 'pro']) };
          if (late() < 0.2) body.occurredAt = new Date(Date.parse(`${date}T09:00:00Z`) + minute * 60_000 - Math.floor(late() * 40 * 3_600_000)).toISOString();
          const key = rand() < 0.3 ? `k-${n}-${i}` : undefined;
          const r = await s.request('POST', '/api/metrics/lessons/event', { body, headers: key ? { 'Idempotency-Key': key } : {} });
          expect(r.status, r.text).toBe(201);
          if (key) keyed.push({ key, user, eventId: r.body.eventId });
        } else if (roll < 0.8) {
          const r = await s.request('PATCH', `/api/users/${user}`, { body: { name: `User ${user} ${n}`, tz: pick(ZONES), attributes: { plan: pick(['free', 'pro']) } } });
          expect([200, 404]).toContain(r.status);
        } else if (roll < 0.85) {
          const r = await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: user } } });
          expect(r.status, r.text).toBe(201);
        } else if (roll < 0.9) {
          await s.workers!.testing.accrueNow();
        } else {
          // What an admin does to users: preferences (streak ones too), freezes, streak restores and resets, pauses.
          const op = Math.floor(rand() * 6);
          const streak = pick([null, { enabled: false }, { enabled: true }, { metrics: [{ key: 'lessons', threshold: 2 }] }, { evaluationMode: 'AND' }]);
          const r = op === 0
            ? await s.request('PATCH', `/api/users/${user}/preferences`, { body: { notifications: { recap: pick([['email'], [], ['email', 'push']]) }, streak } })
            : op === 1
              ? await s.request('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: user }] } })
              : op === 2
                ? await s.request('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: user }] } })
                : op === 5
                  ? await s.request('POST', '/admin/v1/streaks/reset', { body: { users: [{ id: user }] } })
                : op === 3
                  ? await s.request('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: user, start: `2026-03-${String(n + 2).padStart(2, '0')}`, end: `2026-03-${String(n + 3).padStart(2, '0')}` }] } })
                  : await s.request('DELETE', `/admin/v1/streaks/pauses?ids=${pauses.shift() ?? 'none'}`);
          expect(r.status < 300 || r.status === 404, r.text).toBe(true);
          if (op === 3 && r.body.created?.[0]) pauses.push(r.body.created[0].id as string);
          if (op === 5) resets += r.body.resetUsers?.length ?? 0;
        }
      }
      await Promise.all(passes);
      await s.workers!.testing.accrueNow();
      await s.workers!.testing.drainNow();
      // The runs every zone has finished by now (those of two days before, at the workload's
      // hours) finalised, as the workers' pass each 5 s does: before a snapshot, between the two,
      // and after the last one.
      await s.workers!.testing.finaliseNow();
    };

    /** Streak preferences that the snapshot holds (before it) or the log replays (after it). */
    const setStreak = async (user: string, streak: unknown) => {
      const r = await s.request('PATCH', `/api/users/${user}/preferences`, { body: { streak } });
      expect([200, 404], r.text).toContain(r.status);
    };
    await day(1);
    await setStreak('u3', { enabled: false });
    for (let n = 2; n <= 3; n++) await day(n);
    // Keys scoped to a user are in the snapshots: one kept, one revoked before the next snapshot.
    const userKeys = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: USERS[0] }, { userId: USERS[0] }] });
    expect(userKeys.status, userKeys.text).toBe(201);
    const [keptKey, revokedKey] = userKeys.body.created as { id: string; key: string }[];
    const full = await s.workers!.testing.snapshotNow(true);
    expect(full).toMatchObject({ full: true });
    expect(full!.users).toBeGreaterThan(10);
    // An achievement made after the snapshot: the workers complete it for those who qualify.
    const later = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'Five', key: 'five', trigger: 'metric', metricId: ids.lessons, metricValue: 5 }],
    });
    expect(later.status, later.text).toBe(201);
    await s.workers!.testing.achievementsIdle();
    await setStreak('u1', { enabled: false });
    await setStreak('u2', { evaluationMode: 'AND', metrics: [{ key: 'lessons', threshold: 2 }] });
    await day(4);
    await setStreak('u1', { enabled: true });
    await day(5);
    expect((await s.request('DELETE', `/admin/v1/application-api-keys?ids=${revokedKey.id}`)).body.deleted).toHaveLength(1);
    const incremental = await s.workers!.testing.snapshotNow();
    expect(incremental!.full).toBe(false);
    expect(incremental!.users).toBeGreaterThan(0);
    expect(incremental!.users).toBeLessThanOrEqual(USERS.length);
    for (let n = 6; n <= 7; n++) await day(n);
    // Early joiners: six users play the run of the UTC day after the workload's, before the run
    // of that day is final (their cohort there of their old tier), then its finalisation moves
    // them to a cohort of their new tier in it; the restore's replay must move them the same way.
    const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const R = utcDay(s.api.services.clock.now());
    const next = utcDay(Date.parse(R) + 86_400_000);
    const early = USERS.slice(0, 6);
    // The run before R final first, so that R's outcome alone moves the next run's tier.
    await s.setClock(new Date(Math.max(s.api.services.clock.now(), Date.parse(`${R}T12:00:00Z`)) + 60_000).toISOString());
    await s.workers!.testing.finaliseNow();
    for (const [i, user] of early.entries()) {
      const tz = await s.request('PATCH', `/api/users/${user}`, { body: { tz: 'Europe/London' } });
      expect(tz.status, tz.text).toBe(200);
      const r = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: user }, value: 10 + i } });
      expect(r.status, r.text).toBe(201);
    }
    await s.setClock(`${next}T10:00:00Z`);
    for (const user of early) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: user }, value: 1 } });
      expect(r.status, r.text).toBe(201);
    }
    const zones: Record<string, { tier: number; zone: string; value: number }> = {};
    for (const user of early) {
      const r = await s.request('GET', `/api/users/${user}/leagues/lessons-league?run=${R}`);
      const played = await s.request('GET', `/api/users/${user}/leagues/lessons-league?run=${next}`);
      expect(played.body.cohort, user).not.toBeNull();
      // The tier the outcome moves is the one the user carries: their place in the run after R
      // (an earlier run's outcome that came after they joined R moved it there, not in R).
      zones[user] = { tier: played.body.tier.index, zone: r.body.zone, value: played.body.value };
    }
    await s.setClock(`${next}T12:00:00Z`);
    await s.workers!.testing.finaliseNow();
    let movedEarly = 0;
    for (const user of early) {
      const r = await s.request('GET', `/api/users/${user}/leagues/lessons-league?run=${next}`);
      const { tier, zone, value } = zones[user];
      const expected = zone === 'promote' ? tier + 1 : zone === 'demote' ? tier - 1 : tier;
      expect([user, r.body.tier.index, r.body.value]).toEqual([user, expected, value]);
      if (expected !== tier) movedEarly++;
    }
    expect(movedEarly).toBeGreaterThan(0);
    for (const run of [R, next]) if (!runs.includes(run)) runs.push(run);
    // The workload reset some streaks (their 'reset' entries are replayed too).
    expect(resets).toBeGreaterThan(0);
    await s.workers!.testing.drainNow();
    const at = new Date(s.api.services.clock.now()).toISOString();

    // Reads accrue time awards due (their log entries): read once, let the drainer take them (the
    // points totals it keeps), then read what is compared.
    await readAll(s, runs);
    await s.workers!.testing.drainNow();
    await s.workers!.testing.finaliseNow();
    const before = await readAll(s, runs);
    // The uncapped board ranks more users than the capped ones hold.
    expect((before['/api/leaderboards/lessons-open?limit=100'] as { body: { participants: number } }).body.participants).toBeGreaterThan(10);
    // The league's finalisations moved users, up and down.
    const outcomes = Object.entries(before).filter(([path]) => path.includes('/leagues/lessons-league?run=')).map(([, r]) => (r as { body: { outcome: string | null } }).body.outcome);
    expect(outcomes).toContain('promoted');
    expect(outcomes).toContain('demoted');
    const dueBefore = await dueIndex(s, () => s.workers!.testing.notifyNow());
    expect(dueBefore.flat().length).toBeGreaterThan(0);

    await s.workers!.close();
    await s.api.close();
    await redis.wipe();
    const env = { ...redis.env, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey };
    // The uncapped board's runs are in the snapshot by buckets of users on the Cluster, whole on single Redis.
    const counted = await connectPostgres(s.settings);
    try {
      const { rows } = await counted.query<{ n: number }>(`SELECT count(*)::int AS n FROM laurel_snapshot_keys WHERE prefix = $1 AND key LIKE '%}:#m%'`, [prefix]);
      if (memberwise) expect(rows[0].n).toBeGreaterThan(0);
      else expect(rows[0].n).toBe(0);
    } finally {
      await counted.end();
    }

    // An empty Redis while Postgres holds the installation: the api refuses to serve it.
    await expect(startTestServer({ clock: 'manual', env })).rejects.toThrow(InstallationError);

    const pool = await connectPostgres(s.settings);
    try {
      const restoredSettings = loadSettings({ ...process.env, ...env });
      const result = await restoreWith(restoredSettings, log, pool, false);
      expect(result).toMatchObject({ failed: 0 });
      expect(result.users).toBeGreaterThan(10);
      expect(result.replayed).toBeGreaterThan(0);
      expect(result.skipped).toBeGreaterThan(0);
      // A Redis that holds data: refused without --force.
      await expect(restoreWith(restoredSettings, log, pool, false)).rejects.toThrow(/holds data/);
    } finally {
      await pool.end();
    }

    // Every read as before, before any worker ran: the runs the workers finalised after the last
    // snapshot too, with their winners.
    s = await startTestServer({ clock: 'manual', env });
    await s.setClock(at);
    const rebuilt = await readAll(s, runs);
    for (const path of Object.keys(before)) expect(rebuilt[path], path).toEqual(before[path]);
    // The workers once the manual clock is set (they would accrue time awards on the wall clock):
    // their pass finalises nothing again.
    const workers = await startWorkers(s.settings, log, s.api.services);
    cleanups.push(() => workers.close());
    expect(await workers.testing.finaliseNow()).toEqual({ runs: 0, cohorts: 0, moved: 0 });
    const after = await readAll(s, runs);
    for (const path of Object.keys(before)) expect(after[path], path).toEqual(before[path]);
    expect(await dueIndex(s, () => workers.testing.notifyNow())).toEqual(dueBefore);
    expect((await s.request('GET', '/api/achievements', { key: keptKey.key })).status).toBe(200);
    expect((await s.request('GET', '/api/achievements', { key: revokedKey.key })).status).toBe(401);
    for (const { key, user, eventId } of keyed) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: user }, value: 1 }, headers: { 'Idempotency-Key': key } });
      expect(r.status, key).toBe(202);
      expect(r.body.eventId, key).toBe(eventId);
    }

    if (target !== 'redis') return;
    // Once more, as an operator: the command line, then a start that restores by itself.
    await workers.close();
    await s.api.close();
    await redis.wipe();
    const cliEnv = { ...env, DATABASE_URL: s.settings.databaseUrl, LOG_LEVEL: 'warn' };
    const snapshot = runCli(['snapshot'], cliEnv);
    expect(await snapshot.exited, snapshot.output()).toBe(1);
    expect(snapshot.output()).toMatch(/Redis holds no data of installation ".*", but Postgres does: .*laurel restore/);
    // A key made now would make Redis look like the installation, and a snapshot after it would
    // replace the configuration Postgres keeps: refused as well, nothing written.
    const key = runCli(['keys', 'create', '--name', 'too early'], cliEnv);
    expect(await key.exited, key.output()).toBe(1);
    expect(key.output()).toMatch(/Redis holds no data of installation ".*", but Postgres does: .*laurel restore/);
    const restored = runCli(['restore'], cliEnv);
    expect(await restored.exited, restored.output()).toBe(0);
    expect(restored.output()).toMatch(new RegExp(`restored installation "${prefix}" from snapshot \\d+: \\d+ configuration entities, \\d+ users and \\d+ other keys from the snapshot; \\d+ log entries replayed after it`));
    const again = runCli(['restore'], cliEnv);
    expect(await again.exited).toBe(1);
    expect(again.output()).toMatch(/holds data of installation .*--force/);
    const forced = runCli(['restore', '--force'], cliEnv);
    expect(await forced.exited, forced.output()).toBe(0);
    await redis.wipe();
    s = await startTestServer({ clock: 'manual', env: { ...env, LAUREL_AUTO_RESTORE: '1' } });
    await s.setClock(at);
    const autoWorkers = await startWorkers(s.settings, log, s.api.services);
    cleanups.push(() => autoWorkers.close());
    await autoWorkers.testing.finaliseNow();
    const auto = await readAll(s, runs);
    for (const path of Object.keys(before)) expect(auto[path], path).toEqual(before[path]);
  });
});

describe('a streak lost by an operation', () => {
  /** A server with the workers and a daily streak on `lessons`, at 10:00 UTC on March 2nd. */
  const streakServer = async () => {
    const s = await startTestServer({ clock: 'manual', workers: true });
    await s.setClock('2026-03-02T10:00:00Z');
    const ids = await s.metrics('lessons');
    const rule = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] } });
    expect(rule.status, rule.text).toBe(200);
    return s;
  };

  it('is out of the rankings after a restore read in the operation\'s millisecond, as before', { timeout: 60_000 }, async () => {
    let s = await streakServer();
    const { prefix } = s;
    try {
      await s.event('lessons', 'a', 1);
      await s.event('lessons', 'b', 1);
      await s.workers!.testing.drainNow();
      expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
      // After the snapshot (the restore replays it), the streak lost by the user's preferences,
      // read in the same millisecond.
      await s.setClock('2026-03-02T12:00:00Z');
      const off = await s.request('PATCH', '/api/users/a/preferences', { body: { streak: { enabled: false } } });
      expect(off.status, off.text).toBe(200);
      const read = async () => ({
        rankings: (await s.request('GET', '/api/streaks/rankings')).body,
        b: (await s.request('GET', '/api/users/b/streak')).body.rank,
      });
      const before = await read();
      expect(before).toEqual({ rankings: [{ userId: 'b', name: null, streakLength: 1 }], b: 1 });
      const restored = await restoreServer(s);
      expect(restored.result).toMatchObject({ failed: 0, replayed: 1 });
      s = restored.server;
      await s.setClock('2026-03-02T12:00:00Z');
      expect(await read()).toEqual(before);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });

  it('is worked out in the zone the user had at the operation, not one they moved to later', { timeout: 60_000 }, async () => {
    let s = await streakServer();
    const { prefix } = s;
    try {
      // k plays on March 3rd in Kiritimati (UTC+14), b every day in UTC.
      await s.event('lessons', { id: 'k', tz: 'Pacific/Kiritimati' }, 1);
      await s.event('lessons', 'b', 1);
      await s.workers!.testing.drainNow();
      expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
      const paused = await s.request('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'k', start: '2026-03-04', end: '2026-03-05' }] } });
      expect(paused.status, paused.text).toBe(201);
      await s.setClock('2026-03-03T10:00:00Z');
      await s.event('lessons', 'b', 1);
      // The pause taken back on March 5th in Kiritimati: k missed the 4th, the streak is lost (in
      // London, March 4th, it would still run today)...
      await s.setClock('2026-03-04T11:00:00Z');
      await s.event('lessons', 'b', 1);
      const removed = await s.request('DELETE', `/admin/v1/streaks/pauses?ids=${paused.body.created[0].id}`);
      expect(removed.status, removed.text).toBe(200);
      // ...and then k moves to London.
      await s.setClock('2026-03-04T12:00:00Z');
      const moved = await s.request('PATCH', '/api/users/k', { body: { tz: 'Europe/London' } });
      expect(moved.status, moved.text).toBe(200);
      const read = async () => ({
        rankings: (await s.request('GET', '/api/streaks/rankings')).body,
        k: (await s.request('GET', '/api/users/k/streak')).body.rank,
      });
      const before = await read();
      expect(before).toEqual({ rankings: [{ userId: 'b', name: null, streakLength: 3 }], k: null });
      const restored = await restoreServer(s);
      expect(restored.result).toMatchObject({ failed: 0 });
      s = restored.server;
      await s.setClock('2026-03-04T12:00:00Z');
      expect(await read()).toEqual(before);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
});

describe('a snapshot while a placement lands', () => {
  it('holds the keys of each slot as they were at one moment', { timeout: 60_000 }, async () => {
    const server = await startRedisServer();
    const s = await startTestServer({ clock: 'manual', env: { REDIS_URL: server.url, REDIS_CLUSTER_NODES: '' } });
    const pool = await connectPostgres(s.settings);
    const locker = await pool.connect();
    try {
      const { redis, keys } = s.api.services;
      await s.setClock('2026-03-02T10:00:00Z');
      const ids = await s.metrics('lessons');
      const rule = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] } });
      expect(rule.status, rule.text).toBe(200);
      const board = await s.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'All', key: 'all', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10 }],
      });
      expect(board.status, board.text).toBe(201);
      await s.event('lessons', 'a', 1);
      await s.event('lessons', 'b', 2);
      // Keys enough that SCAN lists a slot's keys over several calls.
      for (let i = 0; i < 20_000; i += 1000) {
        await redis.mset(...Array.from({ length: 1000 }, (_, j) => [`filler:${i + j}`, '1']).flat());
      }
      const [ranking] = await redis.keys(`${s.prefix}:{lb:*}:r`);
      const run = keys.runOfMembers(ranking.slice(0, -1) + 'm')!;
      const st = keys.streakRankings('_');
      const slots = [[st.active, st.longest, st.expiry, st.standing], [run.ranking, run.members, run.sequences, run.history('a')]];
      const locking = (await locker.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      let day = 2;
      for (const names of slots) {
        // The snapshot stops where it writes the slot's keys (their rows changed, held locked here)...
        await pool.query(
          `INSERT INTO laurel_snapshot_keys (prefix, key, snapshot, digest, dump) SELECT $1, k, 0, '', '' FROM unnest($2::text[]) AS k
           ON CONFLICT (prefix, key) DO UPDATE SET digest = ''`, [s.prefix, names],
        );
        await locker.query('BEGIN');
        await locker.query('SELECT 1 FROM laurel_snapshot_keys WHERE prefix = $1 AND key = ANY($2) FOR UPDATE', [s.prefix, names]);
        const snapshot = takeSnapshot(s.api.services, pool, true);
        for (const until = Date.now() + 10_000; ;) {
          const { rows } = await pool.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [locking]);
          if (rows[0].n > 0) break;
          if (Date.now() > until) throw new Error('the snapshot did not reach the locked rows');
          await new Promise((r) => setTimeout(r, 10));
        }
        // ...while an event of `a` extends the streak and raises the total: every key of the slot changes.
        const before = await Promise.all(names.map((k) => redis.dumpBuffer(k)));
        await s.setClock(`2026-03-0${++day}T10:00:00Z`);
        await s.event('lessons', 'a', 2);
        const after = await Promise.all(names.map((k) => redis.dumpBuffer(k)));
        names.forEach((k, i) => expect(after[i], k).not.toEqual(before[i]));
        await locker.query('COMMIT');
        await snapshot;
        const { rows } = await pool.query('SELECT key, dump FROM laurel_snapshot_keys WHERE prefix = $1 AND key = ANY($2)', [s.prefix, names]);
        const held = new Map(rows.map((r) => [r.key as string, r.dump as Buffer]));
        names.forEach((k, i) => expect(held.get(k), k).toEqual(before[i]));
      }
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
      await pool.end();
      await deletePostgresRows(s.settings, [s.prefix]);
      await s.close();
      await server.stop();
    }
  });
});

describe('while a restore runs', () => {
  it('answers 503 to the Application and Admin APIs, and /ready says so', async () => {
    const s = await startTestServer();
    try {
      const { redis, keys, store } = s.api.services;
      await redis.set(keys.restoring, '1');
      await store.reload();
      const event = await s.request('POST', '/api/metrics/any/event', { body: { user: { id: 'x' }, value: 1 } });
      expect(event.status).toBe(503);
      expect(event.body.error).toMatch(/laurel restore is rebuilding Redis/);
      expect((await s.request('GET', '/admin/v1/metrics')).status).toBe(503);
      const ready = await s.request('GET', '/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toMatchObject({ restored: false });
      await redis.del(keys.restoring);
      await store.reload();
      expect((await s.request('GET', '/admin/v1/metrics')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});


describe('a snapshot of a new installation', () => {
  it('takes none while nothing is configured and Postgres holds nothing of it; refuses a Redis that lost what Postgres holds', async () => {
    const s = await startTestServer();
    const pool = await connectPostgres(s.settings);
    try {
      const { redis, keys } = s.api.services;
      // Nothing configured yet: no configuration version (a test server may have written one).
      await redis.del(keys.configVersion);
      expect(await takeSnapshot(s.api.services, pool)).toBeNull();
      // Once Postgres holds something of the installation, a Redis without it lost it.
      await pool.query("INSERT INTO laurel_config (prefix, kind, id, body, version) VALUES ($1, 'metrics', 'x', '{}', 1)", [s.prefix]);
      await expect(takeSnapshot(s.api.services, pool)).rejects.toThrow(SnapshotError);
      // Configured: a snapshot is taken.
      await pool.query('DELETE FROM laurel_config WHERE prefix = $1', [s.prefix]);
      expect((await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Lessons', key: 'lessons' }] })).status).toBe(201);
      expect(await takeSnapshot(s.api.services, pool)).toMatchObject({ full: true });
    } finally {
      await pool.end();
      await deletePostgresRows(s.settings, [s.prefix]);
      await s.close();
    }
  });
});

describe('an incremental snapshot after a drain open while the last one began', () => {
  it('takes the users of what that drain archived', { timeout: 60_000 }, async () => {
    const s = await startTestServer({ clock: 'manual', workers: true });
    const pool = await connectPostgres(s.settings);
    const locker = await pool.connect();
    try {
      await s.setClock('2026-03-02T10:00:00Z');
      await s.metrics('lessons');
      await s.event('lessons', 'early', 1);
      await s.workers!.testing.drainNow();
      expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
      // The archive's cursors held: a drain (this one, and the workers' own each second) begins its
      // transaction and waits in it, while the next snapshot begins and ends.
      await locker.query('BEGIN');
      // (The whole table: the late user's partition may have no cursor row yet, its insert waits too.)
      await locker.query('LOCK TABLE laurel_log_cursor IN EXCLUSIVE MODE');
      await s.event('lessons', 'late', 1);
      const drained = s.workers!.testing.drainNow();
      await new Promise((r) => setTimeout(r, 300));
      const during = await s.workers!.testing.snapshotNow();
      await locker.query('COMMIT');
      await drained;
      const after = await s.workers!.testing.snapshotNow();
      expect(during!.full).toBe(false);
      const { rows } = await pool.query('SELECT snapshot FROM laurel_snapshot_users WHERE prefix = $1 AND user_id = $2', [s.prefix, 'late']);
      // Taken by the snapshot after it (before, the drain's rows were dated before the one it straddled: taken by neither).
      expect(rows.map((r: { snapshot: string }) => Number(r.snapshot))).toEqual([after!.id]);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
      await pool.end();
      await s.close();
      await deletePostgresRows(s.settings, [s.prefix]);
    }
  });
});
