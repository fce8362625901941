/**
 * A worker process killed while it applies batch events (SIGKILL, `laurel workers` as built):
 * nothing it had taken is lost, and nothing it had applied is applied twice once another worker
 * takes its chunks (docs/api.md, "Batch events").
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BatchProcessor } from '../../src/engine/batches/process.js';
import { totalField } from '../../src/model/fields.js';
import { killCliProcesses, runCli } from '../support/cli.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const USERS = ['a', 'b', 'c', 'd'];
const BATCHES = 5;
const ITEMS = 1000;

describe('a worker killed in the middle of batch events', () => {
  let s: TestServer;
  afterAll(async () => {
    killCliProcesses();
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('loses no item and applies none twice', { timeout: 60_000 }, async () => {
    s = await startTestServer();
    const { lessons } = await s.metrics('lessons');
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 1, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    const { redis, keys } = s.api.services;
    const totalOf = async (user: string) => Number(await redis.hget(keys.forUser('_', user).user, totalField(lessons)) ?? 0);

    // Items for four users, each user's one after another: every batch keyed in part, so both
    // kinds of marks are met (the client's keys and the items' own).
    const batches: string[] = [];
    const expected = new Map(USERS.map((u) => [u, 0]));
    for (let b = 0; b < BATCHES; b++) {
      const items = Array.from({ length: ITEMS }, (_, i) => {
        const user = USERS[i % USERS.length];
        expected.set(user, expected.get(user)! + 1);
        return { key: 'lessons', user: { id: user }, value: 1, ...(i % 3 === 0 ? { idempotencyKey: `b${b}-${i}` } : {}) };
      });
      const r = await s.request('POST', '/admin/v1/metrics/events', { body: items });
      expect(r.status, r.text).toBe(202);
      batches.push(r.body.batchId);
    }

    const worker = runCli(['workers'], {
      LAUREL_PREFIX: s.prefix, LAUREL_ADMIN_KEY: s.adminKey, REDIS_URL: s.settings.redisUrl, REDIS_CLUSTER_NODES: '',
      DATABASE_URL: s.settings.databaseUrl, LOG_LEVEL: 'info',
    });
    // Killed as soon as it has applied some items.
    const until = Date.now() + 30_000;
    while ((await totalOf('a')) === 0) {
      expect(Date.now() < until, worker.output()).toBe(true);
      expect(worker.child.exitCode, worker.output()).toBeNull();
    }
    worker.child.kill('SIGKILL');
    await worker.exited;
    const applied = await Promise.all(USERS.map(totalOf));
    const queued = (await Promise.all(Array.from({ length: keys.partitions }, (_, p) => redis.xlen(keys.partitionBatches(p).queue))))
      .reduce((a, b) => a + b, 0);
    // Part-way: some items applied, chunks left in the queues.
    expect(applied.some((n) => n > 0)).toBe(true);
    expect(applied.reduce((a, b) => a + b, 0)).toBeLessThan(BATCHES * ITEMS);
    expect(queued).toBeGreaterThan(0);

    // Another worker, once the dead one's leases have run out (deleted here, as 15 s would).
    await Promise.all(Array.from({ length: keys.partitions }, (_, p) => redis.del(keys.partitionBatches(p).lease)));
    const next = new BatchProcessor(s.api.services);
    await next.drain();
    await next.close();
    for (const user of USERS) {
      expect(await totalOf(user), user).toBe(expected.get(user));
      const points = await s.request('GET', `/api/users/${user}/points/xp`);
      expect(points.body.total, user).toBe(expected.get(user));
    }
    for (const batchId of batches) {
      expect((await s.request('GET', `/admin/v1/metrics/events/${batchId}`)).body).toEqual({ accepted: ITEMS, processed: ITEMS, failed: 0, issues: [] });
    }
    // No item's own key left behind, no chunk, nothing counted as waiting.
    for (const user of USERS) {
      const fields = await redis.hkeys(keys.userMetric(keys.forUser('_', user), lessons));
      expect(fields.filter((f) => f.startsWith('i:\u001f'))).toEqual([]);
    }
    const metrics = await s.request('GET', '/metrics', { key: null });
    expect(metrics.text).toMatch(/^laurel_batch_items_waiting 0$/m);
  });
});
