/**
 * Batch events applied by the real workers (docs/api.md, "Batch events"): each item with exactly the
 * effects of the same event sent alone (totals, achievements, streaks, points, leaderboards), in
 * order for each user, at most once (idempotency keys, a batch posted twice); the progress endpoint
 * with the items that failed when they were applied. On single Redis and on the Redis Cluster,
 * whose nodes share the queues.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { BatchProcessor } from '../../src/engine/batches/process.js';
import { boardOfEachKind } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { random } from '../support/random.js';
import { readTenant, withoutRanks } from '../support/tenant-reads.js';

const USERS = Array.from({ length: 8 }, (_, i) => `u${i}`);
const BOARDS = ['all', 'daily', 'xp-board', 'streaks'];

/** Every feature an event touches, on the metric `lessons` (and plain `quizzes`). */
async function configure(s: TestServer): Promise<void> {
  const ids = await s.metrics('lessons', 'quizzes');
  await s.attributes('user', 'plan');
  await s.attributes('event', 'device');
  const ach = await s.request('POST', '/admin/v1/achievements', {
    body: [
      { name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 },
      { name: 'Streak 2', key: 'streak-2', trigger: 'streak', streakLength: 2 },
    ],
  });
  expect(ach.status, ach.text).toBe(201);
  const streak = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 2 }] } });
  expect(streak.status, streak.text).toBe(200);
  const xp = await s.request('POST', '/admin/v1/points', {
    body: [{
      name: 'XP', key: 'xp', levels: [{ name: 'Rookie', key: 'rookie', points: 20 }],
      triggers: [
        { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'achievement', achievementId: ach.body.created[0].id, points: 25, status: 'active' },
      ],
    }],
  });
  expect(xp.status, xp.text).toBe(201);
  await boardOfEachKind(s, ids.lessons, xp.body.created[0].id);
}


describe.each(targets())('batch events applied on %s', (target) => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-03-01T09:00:00Z');
    await configure(s);
    for (const customerId of ['single', 'batch', 'keys']) {
      const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId, name: customerId }] });
      expect(t.status, t.text).toBe(201);
    }
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  /** Posts a batch and waits until the workers have processed every item; answers its progress. */
  async function applied(items: unknown[], tenant?: string): Promise<{ batchId: string; progress: any }> {
    const r = await s.request('POST', '/admin/v1/metrics/events', { body: items, tenant });
    expect(r.status, r.text).toBe(202);
    let progress: any;
    await eventually(async () => {
      progress = (await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`, { tenant })).body;
      expect(progress.processed + progress.failed).toBe(items.length);
    });
    return { batchId: r.body.batchId, progress };
  }

  it('has exactly the effects of the same events sent one by one', { timeout: 60_000 }, async () => {
    const rand = random(target === 'redis' ? 3 : 5);
    const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
    for (let day = 1; day <= 3; day++) {
      await s.setClock(`2026-03-0${day}T10:00:00Z`);
      const events = Array.from({ length: 40 }, () => {
        const user: Record<string, unknown> = { id: pick(USERS) };
        if (rand() < 0.2) user.attributes = { plan: pick(['free', 'pro']) };
        if (rand() < 0.1) user.name = `Name ${Math.floor(rand() * 100)}`;
        const e: Record<string, unknown> = { key: rand() < 0.8 ? 'lessons' : 'quizzes', user, value: 1 + Math.floor(rand() * 3) };
        if (rand() < 0.3) e.attributes = { device: pick(['ios', 'web']) };
        return e;
      });
      for (const { key, ...body } of events) {
        const r = await s.request('POST', `/api/metrics/${key as string}/event`, { body, tenant: 'single' });
        expect(r.status, r.text).toBe(201);
      }
      const { progress } = await applied(events, 'batch');
      expect(progress).toEqual({ accepted: events.length, processed: events.length, failed: 0, issues: [] });
    }
    const single = await readTenant(s, 'single', USERS, BOARDS, '2026-03-05');
    const batch = await readTenant(s, 'batch', USERS, BOARDS, '2026-03-05');
    // Something to compare: achievements completed, streaks of several days, points, ranks.
    expect(JSON.stringify(single)).toMatch(/"achieved":true|"achievedAt":"2026/);
    expect(JSON.stringify(single)).toMatch(/"length":[23]/);
    for (const path of Object.keys(single)) expect(withoutRanks(batch[path]), path).toEqual(withoutRanks(single[path]));
  });

  it('applies each user\'s items in order, and spreads the queues over the nodes', { timeout: 30_000 }, async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ key: 'quizzes', user: { id: `o${i % 30}` }, value: i }));
    const first = await s.request('POST', '/admin/v1/metrics/events', { body: items.slice(0, 150) });
    const second = await s.request('POST', '/admin/v1/metrics/events', { body: items.slice(150) });
    expect([first.status, second.status]).toEqual([202, 202]);
    await eventually(async () => {
      for (const r of [first, second]) expect((await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`)).body.processed).toBe(150);
    });
    // Each user's events in the partition's log in the order sent: the first batch's, then the second's.
    const { redis, keys } = s.api.services;
    const order = new Map<string, number[]>();
    for (let p = 0; p < keys.partitions; p++) {
      for (const [, fields] of await redis.xrange(keys.partitionLog(p), '-', '+')) {
        if (fields[0] !== 'event' || !fields[1].includes('"b":"')) continue;
        const e = JSON.parse(fields[1]);
        if (!e.u.startsWith('o')) continue;
        const index = Number(e.b.split(':')[1]) + (e.b.startsWith(second.body.batchId) ? 150 : 0);
        order.set(e.u, [...(order.get(e.u) ?? []), index]);
      }
    }
    expect(order.size).toBe(30);
    for (const [user, indexes] of order) {
      expect(indexes, user).toEqual(items.map((x, i) => (x.user.id === user ? i : -1)).filter((i) => i >= 0));
    }
    if (target !== 'cluster') return;
    // The partitions' queues live on every node of the Cluster: a batch is taken in by all of them.
    const nodes = (redis as Cluster).nodes('master');
    const owning = await Promise.all(nodes.map(async (node) => {
      const [, found] = await node.scan('0', 'MATCH', `${s.prefix}:{p*}:bq`, 'COUNT', 10_000);
      return found.length;
    }));
    expect(owning.filter((n) => n > 0).length).toBe(nodes.length);
  });

  it('applies each idempotency key once: within a batch, across batches, and with single events', { timeout: 30_000 }, async () => {
    const tenant = 'keys';
    const single = await s.request('POST', '/api/metrics/lessons/event', {
      body: { user: { id: 'k1' }, value: 100 }, headers: { 'Idempotency-Key': 'shared' }, tenant,
    });
    expect(single.status, single.text).toBe(201);
    const items = [
      { key: 'lessons', user: { id: 'k1' }, value: 1, idempotencyKey: 'a' },
      { key: 'lessons', user: { id: 'k1' }, value: 2, idempotencyKey: 'a' },
      { key: 'lessons', user: { id: 'k1' }, value: 4, idempotencyKey: 'shared' },
      { key: 'quizzes', user: { id: 'k1' }, value: 8, idempotencyKey: 'a' },
      { key: 'lessons', user: { id: 'k2' }, value: 16, idempotencyKey: 'a' },
      { key: 'lessons', user: { id: 'k2' }, value: 32 },
    ];
    const once = await applied(items, tenant);
    expect(once.progress).toEqual({ accepted: 6, processed: 6, failed: 0, issues: [] });
    const again = await applied(items, tenant);
    expect(again.batchId).not.toBe(once.batchId);
    expect(again.progress).toEqual({ accepted: 6, processed: 6, failed: 0, issues: [] });
    const total = async (user: string, metric: string) => (await s.request('GET', `/api/users/${user}/metrics/${metric}`, { tenant })).body.current;
    expect(await total('k1', 'lessons')).toBe(101);
    expect(await total('k1', 'quizzes')).toBe(8);
    // The item without a key applies each time it is sent.
    expect(await total('k2', 'lessons')).toBe(16 + 32 + 32);
    // A key of a batch item answers a single event as used.
    const replay = await s.request('POST', '/api/metrics/lessons/event', {
      body: { user: { id: 'k2' }, value: 1 }, headers: { 'Idempotency-Key': 'a' }, tenant,
    });
    expect(replay.status, replay.text).toBe(202);
    // No key of an item's own is left behind once its chunk is acknowledged.
    const { redis, keys } = s.api.services;
    const tenantId = s.api.services.store.current.tenantsByCustomerId.get(tenant)!.id;
    const fields = await redis.hkeys(keys.userMetric(keys.forUser(tenantId, 'k2'), s.api.services.store.current.metricsByKey.get('lessons')!.id));
    expect(fields.filter((f) => f.startsWith('i:'))).toEqual(['i:a']);
  });
});

describe('batch items that fail when applied', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual' });
    await s.setClock('2026-03-01T09:00:00Z');
  });
  afterAll(async () => { await s?.close(); });

  it('are counted and listed in the batch\'s progress, never dropped', async () => {
    const ids = await s.metrics('lessons', 'doomed');
    await s.attributes('event', 'device');
    const r = await s.request('POST', '/admin/v1/metrics/events', {
      body: [
        { key: 'lessons', user: { id: 'a' }, value: 1 },
        { key: 'doomed', user: { id: 'a' }, value: 1 },
        { key: 'lessons', user: { id: 'b', subscribeToEmails: true }, value: 1 },
        { key: 'lessons', user: { id: 'a' }, value: 2, attributes: { device: 'ios' } },
      ],
    });
    expect(r.status, r.text).toBe(202);
    // Meanwhile the metric is deleted and the attribute with it; no worker runs until then.
    expect((await s.request('DELETE', `/admin/v1/metrics?ids=${ids.doomed}`)).status).toBe(200);
    const attrs = await s.request('GET', '/admin/v1/attributes');
    const device = (attrs.body as { id: string; key: string }[]).find((a) => a.key === 'device')!;
    expect((await s.request('DELETE', `/admin/v1/attributes?ids=${device.id}`)).status).toBe(200);
    const progress = () => s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`);
    expect((await progress()).body).toEqual({ accepted: 4, processed: 0, failed: 0, issues: [] });
    const worker = new BatchProcessor(s.api.services);
    expect(await worker.drain()).toMatchObject({ items: 4, processed: 1, failed: 3 });
    expect((await progress()).body).toEqual({
      accepted: 4, processed: 1, failed: 3,
      issues: [
        { index: 1, message: 'Metric "doomed" no longer exists' },
        { index: 2, message: expect.stringMatching(/subscribeToEmails/) },
        { index: 3, message: expect.stringMatching(/device/) },
      ],
    });
    expect((await s.request('GET', '/api/users/a/metrics/lessons')).body.current).toBe(1);
    expect((await s.request('GET', '/api/users/b')).status).toBe(404);
    await worker.close();
  });

  it('takes a partition\'s chunks a few thousand items at a time, in order', async () => {
    for (let b = 0; b < 3; b++) {
      const items = Array.from({ length: 1000 }, (_, i) => ({ key: 'lessons', user: { id: 'many' }, value: b * 1000 + i }));
      expect((await s.request('POST', '/admin/v1/metrics/events', { body: items })).status).toBe(202);
    }
    const worker = new BatchProcessor(s.api.services);
    expect(await worker.pass()).toMatchObject({ chunks: 2, items: 2000, processed: 2000 });
    expect(await worker.pass()).toMatchObject({ chunks: 1, items: 1000, processed: 1000 });
    expect(await worker.pass()).toMatchObject({ chunks: 0 });
    await worker.close();
    expect((await s.request('GET', '/api/users/many/metrics/lessons')).body.current).toBe((2999 * 3000) / 2);
    // The events in the order sent, in the user's partition's log.
    const { redis, keys } = s.api.services;
    const values = (await redis.xrange(keys.partitionLog(keys.partitionOf('_', 'many')), '-', '+'))
      .filter(([, f]) => f[0] === 'event').map(([, f]) => JSON.parse(f[1]).v as number);
    expect(values).toEqual(Array.from({ length: 3000 }, (_, i) => i));
  });
});
