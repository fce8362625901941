/**
 * Batch events in flight when Redis loses everything (docs/api.md, "Batch events"): after `laurel
 * restore`, the workers apply every accepted item exactly once, whatever each batch's state was:
 * applied before the snapshot; part-applied and still queued at the snapshot; queued at the
 * snapshot and applied after it; accepted after the snapshot and applied, part-applied or not
 * applied; applied after the drain's last pass (its events lost with Redis).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { takeSnapshot } from '../../src/engine/durability/snapshot.js';
import { BatchProcessor } from '../../src/engine/batches/process.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings } from '../../src/lib/settings.js';
import { totalField } from '../../src/model/fields.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { copyConfig } from '../../workers/config-copy.js';
import { drainLogs } from '../../src/engine/log-drain/drain.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const USERS = Array.from({ length: 12 }, (_, i) => `u${i}`);
const log = createLogger('silent');

describe('batch events in flight when Redis is lost', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('are each applied once after laurel restore', { timeout: 60_000 }, async () => {
    const redisServer: RedisServer = await startRedisServer();
    cleanups.push(() => redisServer.stop());
    const env = { REDIS_URL: redisServer.url, REDIS_CLUSTER_NODES: '' };
    let s: TestServer = await startTestServer({ clock: 'manual', env });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());
    const pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());

    await s.setClock('2026-03-02T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 1, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);

    let svc = s.api.services;
    let worker = new BatchProcessor(svc);
    const expected = new Map(USERS.map((u) => [u, 0]));
    const batches: { id: string; items: number }[] = [];
    let n = 0;
    /** A batch over every user, a third of its items keyed. */
    const post = async () => {
      const items = Array.from({ length: 60 }, (_, i) => {
        const user = USERS[(i * 7 + n) % USERS.length];
        expected.set(user, expected.get(user)! + 1);
        return { key: 'lessons', user: { id: user }, value: 1, ...(i % 3 === 0 ? { idempotencyKey: `k${n}-${i}` } : {}) };
      });
      n++;
      const r = await s.request('POST', '/admin/v1/metrics/events', { body: items });
      expect(r.status, r.text).toBe(202);
      batches.push({ id: r.body.batchId, items: items.length });
    };
    /** Another worker holds every other partition that has chunks queued: this one leaves them. */
    const holdHalf = async () => {
      const { redis, keys } = svc;
      for (let p = 0; p < keys.partitions; p += 2) {
        if ((await redis.xlen(keys.partitionBatches(p).queue)) > 0) await redis.set(keys.partitionBatches(p).lease, 'another', 'PX', 600_000);
      }
    };
    const release = async () => {
      const { redis, keys } = svc;
      await Promise.all(Array.from({ length: keys.partitions }, (_, p) => redis.del(keys.partitionBatches(p).lease)));
    };

    // E: applied before the snapshot.
    await post();
    await worker.drain();
    // A: part-applied, the rest queued at the snapshot. B: queued whole at the snapshot.
    await post();
    await holdHalf();
    await worker.drain();
    await post();
    await release();
    await holdHalf();
    await drainLogs(svc, pool);
    await copyConfig(svc, pool);
    expect(await takeSnapshot(svc, pool, true)).toMatchObject({ full: true });

    // After the snapshot: B applied where not held; C accepted and applied; D accepted, part-applied.
    await s.setClock('2026-03-02T11:00:00Z');
    await worker.drain();
    await post();
    await worker.drain();
    await release();
    await post();
    await holdHalf();
    await worker.drain();
    await drainLogs(svc, pool);
    // F: accepted and archived, then applied after the drain's last pass (its events never archived).
    await post();
    await drainLogs(svc, pool);
    await release();
    await worker.drain();
    // G: accepted and archived, never applied.
    await post();
    await drainLogs(svc, pool);
    await worker.close();

    await s.api.close();
    await redisServer.kill();
    await redisServer.start();
    const settings = loadSettings({ ...process.env, ...env, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey });
    expect(await restoreWith(settings, log, pool, false)).toMatchObject({ failed: 0 });

    s = await startTestServer({ clock: 'manual', env: { ...env, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey } });
    await s.setClock('2026-03-02T12:00:00Z');
    svc = s.api.services;
    // Something was left to apply: the chunks queued again.
    const waiting = await s.request('GET', '/metrics', { key: null });
    expect(Number(/^laurel_batch_items_waiting (\d+)$/m.exec(waiting.text)?.[1])).toBeGreaterThan(0);
    worker = new BatchProcessor(svc);
    await worker.drain();
    await worker.close();

    for (const user of USERS) {
      expect(Number(await svc.redis.hget(svc.keys.forUser('_', user).user, totalField(lessons))), user).toBe(expected.get(user));
      expect((await s.request('GET', `/api/users/${user}/points/xp`)).body.total, user).toBe(expected.get(user));
    }
    // Every batch reads as done: its progress from the snapshot, or noted again as its chunks were.
    for (const { id, items } of batches) {
      expect((await s.request('GET', `/admin/v1/metrics/events/${id}`)).body, id).toEqual({ accepted: items, processed: items, failed: 0, issues: [] });
    }
    expect(await s.request('GET', '/metrics', { key: null }).then((r) => r.text)).toMatch(/^laurel_batch_items_waiting 0$/m);
  });
});
