/**
 * Erasing a user (DELETE /admin/v1/users/{id}), proved on single Redis and on the Cluster with the
 * workers running: a user who touched every feature (events with their profile, one of a metric
 * deleted since, a batch item, an
 * achievement with its email delivery and its webhook's, a streak with a freeze, points with time
 * awards, boards in two runs, a finished one they won, a league's cohort, live topics followed)
 * is erased; then no Redis key, field, member, list item or stream entry and no Postgres row of the
 * installation holds their id, name or email; nor after `laurel restore` from the snapshot and the
 * archive. Another user keeps everything; a later event with the same id makes a new user.
 * The request deletes the keys the configuration names; the user's keys of the deleted metric are
 * the workers' pass's (the request walks no keyspace): there until it runs, gone after. An event
 * racing another user's erasure runs wholly before it (then gone with the user) or wholly after
 * (then a new user who has that event only).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { startWorkers } from '../../workers/index.js';
import { createLogger } from '../../src/lib/log.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { emailOnCompletion } from '../support/admin.js';
import { startReceiver } from '../support/receiver.js';
import { postgresTraces, redisTraces } from '../support/traces.js';
import { liveUrl, openLive } from '../support/live-client.js';

const log = createLogger('silent');

describe.each(targets())('erasing a user on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('leaves no trace of the user in Redis or Postgres, nor after a restore', { timeout: 120_000 }, async () => {
    const hook = await startReceiver();
    cleanups.push(() => hook.close());
    // Every run of an uncapped board in the snapshots by buckets of users (src/redis/run-members.ts):
    // the victim's bucket, which the keeper shares, is read again without them.
    const env = { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1', LAUREL_SNAPSHOT_RUN_KEYS: '0' };
    let s: TestServer = await startTestServer({ target, clock: 'manual', workers: true, env });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());
    const pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());

    const tag = prefix.slice(1);
    const victim = `victim-${tag}`;
    const name = `Vicky ${tag}`;
    const email = `vicky-${tag}@example.com`;
    const other = `keeper-${tag}`;
    const racer = `racer-${tag}`;
    const needles = [victim, name, email];

    await s.setClock('2026-03-02T08:00:00Z');
    const ids = await s.metrics('lessons');
    const ach = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 }],
    });
    expect(ach.status, ach.text).toBe(201);
    const streak = await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 0, max: 3, autoEarnInterval: 7, autoEarnAmount: 1 } },
    });
    expect(streak.status, streak.text).toBe(200);
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [
        { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'time', timeUnit: 'hours', timeInterval: 1, points: 5, status: 'active' },
      ] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1 },
        { name: 'XP', key: 'xp-board', status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, maxParticipants: 10 },
        {
          name: 'League', key: 'league', status: 'active', rankBy: 'metric', metricId: ids.lessons, runUnit: 'day', runInterval: 1,
          league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1, demote: 0 }, { key: 'silver', name: 'Silver', promote: 0, demote: 1 }] },
        },
        { name: 'Everyone', key: 'everyone', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: null },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
    const webhook = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Hook', url: hook.url('/h'), events: ['achievement.completed'] }] });
    expect(webhook.status, webhook.text).toBe(201);
    await emailOnCompletion(s);
    await s.workers!.testing.timeIdle();
    // The victim's own topic and their league cohort's, followed live (closed before the erasure:
    // a socket still open would keep its topics wanted).
    const live = await openLive(liveUrl(s.url, adminKey));
    await live.subscribe([`user:${victim}`, `league:league:${victim}`]);

    // The victim: events with their profile, a batch item, a freeze, the achievement, points, the board.
    await s.event('lessons', { id: victim, name, email, tz: 'Europe/Paris' }, 1);
    await s.event('lessons', other, 1);
    // A metric deleted since the victim's event: their keys of it are found, not named by the configuration.
    const { quizzes } = await s.metrics('quizzes');
    await s.event('quizzes', victim, 1);
    await s.event('quizzes', racer, 1);
    const deleted = await s.request('DELETE', `/admin/v1/metrics?ids=${quizzes}`);
    expect(deleted.status, deleted.text).toBe(200);
    const batch = await s.request('POST', '/admin/v1/metrics/events', { body: [{ key: 'lessons', user: { id: victim }, value: 1 }] });
    expect(batch.status, batch.text).toBe(202);
    await s.workers!.testing.batchesNow();
    const freeze = await s.request('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: victim }] } });
    expect(freeze.status, freeze.text).toBe(200);
    const third = await s.event('lessons', victim, 1);
    expect(third.achievements.map((a: { key: string }) => a.key)).toContain('three');
    await s.setClock('2026-03-03T09:00:00Z');
    await s.event('lessons', victim, 2);
    await s.event('lessons', other, 1);
    // The run of 2026-03-02 finished everywhere, finalised: the victim won it. Their hours accrued.
    await s.setClock('2026-03-04T14:00:00Z');
    await s.workers!.testing.accrueNow();
    await s.workers!.testing.finaliseNow();
    const points = await s.request('GET', `/api/users/${victim}/points/xp?awards=100`);
    expect(points.body.awards.some((a: { trigger: { type: string } }) => a.trigger.type === 'time'), points.text).toBe(true);
    const cohort = await s.request('GET', `/api/users/${victim}/leagues/league?run=2026-03-03`);
    expect(cohort.status, cohort.text).toBe(200);
    expect(cohort.body.rankings.map((r: { userId: string }) => r.userId)).toContain(victim);
    const run = await s.request('GET', '/api/leaderboards/daily?run=2026-03-02');
    expect(run.body.rankings[0].userId, run.text).toBe(victim);
    await s.workers!.testing.drainNow();
    await s.workers!.testing.webhooksNow();
    await expect.poll(() => hook.at('/h').length).toBeGreaterThan(0);
    await live.next((m) => m.topic === `user:${victim}` && m.type === 'achievement.completed');
    await live.close();
    await s.workers!.testing.snapshotNow(true);
    expect(await redisTraces(s.api.services.redis, prefix, needles)).not.toEqual([]);
    const before = await postgresTraces(pool, prefix, needles);
    for (const table of ['laurel_log', 'laurel_snapshot_users', 'laurel_deliveries', 'laurel_webhook_sent']) {
      expect(before.some((t) => t.startsWith(`${table}:`)), `${table} holds the victim before`).toBe(true);
    }
    const buckets = async (needle: string) => (await pool.query<{ key: string }>(
      `SELECT key FROM laurel_snapshot_keys WHERE prefix = $1 AND key LIKE '%}:#m%' AND position($2::bytea IN dump) > 0`, [prefix, Buffer.from(needle)],
    )).rows.map((r) => r.key);
    const shared = await buckets(victim);
    expect(shared).toHaveLength(1);
    expect(await buckets(other)).toEqual(shared);

    await s.event('lessons', racer, 1);
    // The workers stopped: what the request leaves to their pass stays until they run again.
    await s.workers!.close();
    s.workers = null;
    const { redis, keys } = s.api.services;
    const quizzesKey = (user: string) => keys.userMetric(keys.forUser(DEFAULT_TENANT, user), quizzes);
    // The users' partitions may be apart (a Cluster's slots): one key at a time.
    const quizzesKeys = async () => (await redis.exists(quizzesKey(victim))) + (await redis.exists(quizzesKey(racer)));
    expect(await quizzesKeys()).toBe(2);

    // Bad ids, unknown users, erasures of another tenant's.
    expect((await s.request('DELETE', `/admin/v1/users/${'x'.repeat(300)}`)).status).toBe(400);
    const unknown = await s.request('DELETE', `/admin/v1/users/nobody-${tag}`);
    expect(unknown.status, unknown.text).toBe(404);
    expect(unknown.body.code).toBe('user_not_found');
    expect((await s.request('GET', '/admin/v1/erasures/not-an-id')).status).toBe(404);

    const erase = await s.request('DELETE', `/admin/v1/users/${victim}`);
    expect(erase.status, erase.text).toBe(202);
    const { erasureId } = erase.body as { erasureId: string };
    expect((await s.request('GET', `/api/users/${victim}`)).status).toBe(404);
    expect((await s.request('DELETE', `/admin/v1/users/${victim}`)).status).toBe(404);
    // An event of the racer sent with their erasure: wholly before it or wholly after.
    const [raced, racing] = await Promise.all([s.event('lessons', racer, 5), s.request('DELETE', `/admin/v1/users/${racer}`)]);
    expect(racing.status, racing.text).toBe(202);
    // Their keys of the deleted metric are left to the workers' pass.
    expect(await quizzesKeys()).toBe(2);
    s.workers = await startWorkers(s.settings, log, s.api.services);
    // A drain of the scheduled job may be the one that archives the entry (drainNow then writes
    // nothing): waited for, not assumed.
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return Promise.all([erasureId, racing.body.erasureId as string].map(async (id) => (await s.request('GET', `/admin/v1/erasures/${id}`)).body.status));
    }, { timeout: 20_000 }).toEqual(['done', 'done']);
    expect(await quizzesKeys()).toBe(0);
    const racerNow = await s.request('GET', `/api/users/${racer}/metrics`);
    if (raced.total === 6) expect(racerNow.status, racerNow.text).toBe(404);
    else {
      expect(raced.total).toBe(5);
      expect(racerNow.status, racerNow.text).toBe(200);
      expect(racerNow.body.map((m: { current: number }) => m.current)).toEqual([5]);
    }
    const done = await s.request('GET', `/admin/v1/erasures/${erasureId}`);
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ id: erasureId, status: 'done' });
    expect(done.body.redisKeys).toBeGreaterThan(0);
    expect(done.body.archivedEntries).toBeGreaterThan(0);
    expect(done.text).not.toContain(victim);

    const redisLeft = await redisTraces(s.api.services.redis, prefix, needles);
    expect(redisLeft).toEqual([]);
    expect(await postgresTraces(pool, prefix, needles)).toEqual([]);
    // The other user keeps everything; the finished run keeps its other places.
    const kept = await s.request('GET', `/api/users/${other}/metrics`);
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body[0].current).toBe(2);
    const runAfter = await s.request('GET', '/api/leaderboards/daily?run=2026-03-02');
    expect(runAfter.body.rankings.map((r: { userId: string }) => r.userId)).toEqual([other]);
    expect(await buckets(victim)).toEqual([]);
    expect(await buckets(other)).toEqual(shared);
    const everyone = (await s.request('GET', '/api/leaderboards/everyone')).body;

    // Redis lost: restored from the snapshot and the archive, the user stays gone.
    await s.close();
    await restoreWith(s.settings, log, pool, false);
    expect(await redisTraces((s = await startTestServer({ target, clock: 'manual', env: { ...env, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey } })).api.services.redis, prefix, needles)).toEqual([]);
    await s.setClock('2026-03-04T15:00:00Z');
    expect((await s.request('GET', `/api/users/${victim}`)).status).toBe(404);
    const keeper = await s.request('GET', `/api/users/${other}/metrics`);
    expect(keeper.body[0].current).toBe(2);
    // The keeper's place on the uncapped board, from the bucket read again.
    expect((await s.request('GET', '/api/leaderboards/everyone')).body).toEqual(everyone);
    expect(everyone.rankings.map((r: { userId: string }) => r.userId)).toContain(other);

    // A later event with the same id makes a new user.
    const fresh = await s.event('lessons', victim, 1);
    expect(fresh.total).toBe(1);
    const user = await s.request('GET', `/api/users/${victim}`);
    expect(user.status).toBe(200);
    expect(user.body.name ?? null).toBe(null);
  });
});
