/**
 * A user's batch items of one metric applied as runs (src/engine/event/record-run.ts) have exactly
 * the effects of the same items applied one by one: seeded random batches (several users and
 * metrics, days with gaps a freeze bridges, users changing zone, idempotency keys used again
 * within and across batches, a refused item in the middle of a user's items) posted to two
 * tenants, one applied by a worker that gathers and one by a worker that does not; then every user
 * read, the achievements, streaks, points, boards and the batches' progress compared, and each
 * user's log entries (from which the drain derives notifications and webhooks) compared entry by
 * entry. On single Redis and on the Redis Cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchProcessor } from '../../src/engine/batches/process.js';
import { boardOfEachKind } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { random } from '../support/random.js';
import { readTenant, withoutRanks } from '../support/tenant-reads.js';

const USERS = Array.from({ length: 6 }, (_, i) => `g${i}`);
const ZONES = ['', 'UTC', 'Asia/Tokyo', 'America/Los_Angeles'];
const BOARDS = ['all', 'daily', 'xp-board', 'streaks'];

async function configure(s: TestServer): Promise<void> {
  const ids = await s.metrics('lessons', 'quizzes');
  await s.attributes('event', 'device');
  const ach = await s.request('POST', '/admin/v1/achievements', {
    body: [
      { name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 },
      { name: 'Ten', key: 'ten', trigger: 'metric', metricId: ids.lessons, metricValue: 10 },
      { name: 'Quizzes', key: 'quizzes-5', trigger: 'metric', metricId: ids.quizzes, metricValue: 5 },
      { name: 'Streak 2', key: 'streak-2', trigger: 'streak', streakLength: 2 },
    ],
  });
  expect(ach.status, ach.text).toBe(201);
  const streak = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 2 }] } });
  expect(streak.status, streak.text).toBe(200);
  const freezes = await s.request('PATCH', '/admin/v1/streaks/settings', { body: { freezes: { startCount: 1, maxCount: 2 } } });
  expect(freezes.status, freezes.text).toBe(200);
  const xp = await s.request('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp', levels: [{ name: 'Rookie', key: 'rookie', points: 20 }],
      triggers: [
        // Per event: every 2 lessons (a value of 3 crosses one or two), one on each quiz event.
        { type: 'metric', metricId: ids.lessons, metricThreshold: 2, points: 10, status: 'active' },
        { type: 'metric', metricId: ids.quizzes, metricThreshold: 1, points: 1, status: 'active' },
        { type: 'achievement', achievementId: ach.body.created[0].id, points: 25, status: 'active' },
        { type: 'streak', streakLength: 2, points: 5, status: 'active' },
      ],
    }],
  });
  expect(xp.status, xp.text).toBe(201);
  await boardOfEachKind(s, ids.lessons, xp.body.created[0].id);
}


/**
 * Each user's log entries of the tenant, in order, without what differs between the two tenants
 * by construction: the event's id, the tenant, the batch's id (the item's index stays), the
 * worker, and the entries' stream ids.
 */
async function logOf(s: TestServer, tenantId: string): Promise<Record<string, unknown[]>> {
  const { redis, keys } = s.api.services;
  const out: Record<string, unknown[]> = {};
  for (let p = 0; p < keys.partitions; p++) {
    for (const [, fields] of await redis.xrange(keys.partitionLog(p), '-', '+')) {
      if (fields[0] !== 'event') continue;
      const e = JSON.parse(fields[1]) as Record<string, unknown>;
      if (e.t !== tenantId) continue;
      const rest: Record<string, unknown> = {};
      for (let i = 2; i < fields.length; i += 2) rest[fields[i]] = fields[i + 1];
      const { e: _id, t: _tenant, p: _process, b, ...event } = e;
      const entry = { ...event, item: typeof b === 'string' ? b.split(':')[1] : null, ...rest };
      (out[e.u as string] ??= []).push(entry);
    }
  }
  return out;
}

describe.each(targets())('batch items gathered per user, on %s', (target) => {
  let s: TestServer;
  const tenants = { gathered: '', alone: '' };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-03-01T09:00:00Z');
    await configure(s);
    for (const customerId of Object.keys(tenants) as (keyof typeof tenants)[]) {
      const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId, name: customerId }] });
      expect(t.status, t.text).toBe(201);
      tenants[customerId] = s.api.services.store.current.tenantsByCustomerId.get(customerId)!.id;
    }
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('has exactly the effects of the same items applied one by one', { timeout: 120_000 }, async () => {
    const gathering = new BatchProcessor(s.api.services);
    const oneByOne = new BatchProcessor(s.api.services, undefined, false);
    const rand = random(target === 'redis' ? 54 : 4);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
    const progress: Record<keyof typeof tenants, unknown[]> = { gathered: [], alone: [] };
    let items = 0;
    // Day 4 is left out: a streak of days 1 to 3 is bridged by a freeze, or lost.
    for (const day of [1, 2, 3, 5, 6]) {
      await s.setClock(`2026-03-0${day}T${pick(['01', '10', '20'])}:30:00Z`);
      const batch = Array.from({ length: 80 }, () => {
        // Few users a batch: each has several items, most of them of one metric in a row.
        const user: Record<string, unknown> = { id: pick(USERS.slice(0, 3 + (day % 3))) };
        if (rand() < 0.1) user.tz = pick(ZONES.slice(1));
        if (rand() < 0.05) user.name = `Name ${Math.floor(rand() * 10)}`;
        // Refused when applied (no email to subscribe): nothing of it changes anything.
        if (rand() < 0.03) user.subscribeToEmails = true;
        const e: Record<string, unknown> = { key: rand() < 0.75 ? 'lessons' : 'quizzes', user, value: pick([1, 1, 1, 2, 3]) };
        if (rand() < 0.2) e.idempotencyKey = `${user.id as string}-${Math.floor(rand() * 6)}`;
        if (rand() < 0.2) e.attributes = { device: pick(['ios', 'web']) };
        return e;
      });
      // Runs of one user's items, as a backend that batches its traffic sends them.
      batch.sort((a, b) => String((a.user as { id: string }).id).localeCompare(String((b.user as { id: string }).id)) || (rand() < 0.5 ? -1 : 1));
      items += batch.length;
      for (const [tenant, worker] of [['gathered', gathering], ['alone', oneByOne]] as const) {
        const r = await s.request('POST', '/admin/v1/metrics/events', { body: batch, tenant });
        expect(r.status, r.text).toBe(202);
        await worker.drain();
        const p = await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`, { tenant });
        progress[tenant].push(p.body);
      }
    }
    await gathering.close();
    await oneByOne.close();
    expect(progress.gathered).toEqual(progress.alone);
    const gathered = await readTenant(s, 'gathered', USERS, BOARDS, '2026-03-08');
    const alone = await readTenant(s, 'alone', USERS, BOARDS, '2026-03-08');
    // Something to compare: achievements completed, streaks of several days, points, items refused.
    expect(JSON.stringify(alone)).toMatch(/"achieved":true|"achievedAt":"2026/);
    expect(JSON.stringify(alone)).toMatch(/"length":[2-9]/);
    expect(JSON.stringify(progress.alone)).toMatch(/subscribeToEmails/);
    for (const path of Object.keys(alone)) expect(withoutRanks(gathered[path]), path).toEqual(withoutRanks(alone[path]));
    const logGathered = await logOf(s, tenants.gathered);
    const logAlone = await logOf(s, tenants.alone);
    expect(Object.values(logAlone).flat().length).toBeGreaterThan(items / 2);
    expect(JSON.stringify(logAlone)).toMatch(/"sx"/);
    expect(JSON.stringify(logAlone)).toMatch(/"pa"/);
    expect(JSON.stringify(logAlone)).toMatch(/"ac"/);
    expect(logGathered).toEqual(logAlone);
  });
});
