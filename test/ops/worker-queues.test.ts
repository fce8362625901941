/**
 * Queues that recover (workers/liveness.ts): under a light load of events, the Redis that holds
 * the queues (the Cluster primary of `{q}`, with AOF, and a single Redis with AOF) is killed and
 * started again, several times; after each restart every queue takes jobs again (its scheduled
 * runs, and a configuration copy and an achievement backfill asked for after the restart). The
 * test waits for it, within a bound, and asserts no speed: no worker may say it runs while it takes
 * no job (the log drain among them).
 */
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startRedisCluster, redisServerAvailable, type RedisClusterHandle } from '../support/redis-cluster.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

/** Restarts per Redis: the second meets workers that already recovered once. */
const ROUNDS = 2;
/** How long the Redis stays down each time (ms). */
const DOWN_MS = 3000;
/** How long each queue may take to take jobs again after a restart (a bound, not a speed). */
const RECOVERY_MS = 60_000;

const available = redisServerAvailable() === null;

/** What a target gives the test: how to reach it, and how to kill and restart the node that holds the queues. */
interface Target {
  env: Record<string, string>;
  /** Set once the server knows its prefix: finds the node holding `<prefix>:{q}`. */
  locate(prefix: string): Promise<void>;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function clusterTarget(): Promise<Target> {
  const cluster: RedisClusterHandle = await startRedisCluster({ persistent: true });
  let index = -1;
  return {
    env: { REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',') },
    async locate(prefix) {
      const probe = new Redis(cluster.nodes[0].port, '127.0.0.1');
      try {
        const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', `${prefix}:{q}:x`));
        const slots = (await probe.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        const owner = slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
        index = cluster.nodes.findIndex((n) => n.port === owner);
      } finally {
        probe.disconnect();
      }
    },
    kill: () => cluster.kill(index),
    restart: () => cluster.restart(),
    stop: () => cluster.stop(),
  };
}

async function singleTarget(): Promise<Target> {
  const redis: RedisServer = await startRedisServer({ persistent: true });
  return {
    env: { REDIS_URL: redis.url, REDIS_CLUSTER_NODES: '' },
    locate: async () => undefined,
    kill: () => redis.kill(),
    restart: () => redis.start(),
    stop: () => redis.stop(),
  };
}

describe.skipIf(!available).each([['a Cluster primary', clusterTarget], ['a single Redis', singleTarget]] as const)('every queue takes jobs again after %s restarts', (_name, make) => {
  let target: Target;
  let s: TestServer;
  afterAll(async () => {
    await s?.close().catch(() => undefined);
    await target?.stop();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it(`recovers each queue, ${ROUNDS} restarts under load`, async () => {
    target = await make();
    s = await startTestServer({ workers: true, env: { ...target.env, LAUREL_SNAPSHOT_INTERVAL: '2s' } });
    await target.locate(s.prefix);
    const lessons = (await s.metrics('lessons')).lessons;
    const workers = s.workers!;
    const queues = workers.liveness.status().map((q) => q.queue);

    let running = true;
    let n = 0;
    const load = (async () => {
      while (running) {
        await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: `load-${n++ % 40}` }, value: 1 } }).catch(() => undefined);
        await sleep(20);
      }
    })();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await sleep(1000);
        await target.kill();
        await sleep(DOWN_MS);
        await target.restart();
        const back = Date.now();
        // What only a request asks for: a configuration copy, and an achievement's backfill.
        let attempt = 0;
        await eventually(async () => {
          const key = `round-${round}-${attempt++}`;
          const r = await s.request('POST', '/admin/v1/achievements', {
            body: [{ name: key, key, trigger: 'metric', metricId: lessons, metricValue: 1 }],
          });
          expect(r.status, r.text).toBe(201);
        }, RECOVERY_MS);
        await eventually(() => {
          const late = workers.liveness.status().filter((q) => (q.lastCompletedAt ?? 0) < back).map((q) => q.queue);
          expect(late, `round ${round}: queues without a job completed since the restart`).toEqual([]);
        }, RECOVERY_MS);
      }
    } finally {
      running = false;
      await load;
    }
    expect(workers.liveness.status().map((q) => q.queue)).toEqual(queues);
    await eventually(() => expect(workers.liveness.ready()).toBe(true), RECOVERY_MS);
    // On the health endpoint: the readiness check and the series (the api of the process shows them too).
    expect((await workers.health.readiness()).checks.queues).toEqual({ ok: true });
    const metrics = await fetch(`${s.url}/metrics`).then((r) => r.text());
    for (const queue of queues) expect(metrics).toContain(`laurel_worker_queue_live{queue="${queue}"} 1`);
    expect(metrics).toMatch(/^laurel_worker_queue_overdue_jobs\{queue="log-drain"\} \d+$/m);
    expect(metrics).toMatch(/^laurel_worker_queue_restarts_total\{queue="log-drain"\} \d+$/m);
  }, ROUNDS * (DOWN_MS + 3 * RECOVERY_MS) + 60_000);
});
