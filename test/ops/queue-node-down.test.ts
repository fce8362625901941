/**
 * The workers' health while the Redis that holds their queues is gone: on a 3-primary Cluster of
 * the test's own (AOF), the primary of `<prefix>:{q}` is killed, the others left up. Within 5 s
 * the workers' `GET /ready` (LAUREL_WORKERS_PORT) answers 503 naming `queues` and `redis`, and
 * `laurel_worker_queue_live` is 0 for every queue; `laurel_log_drain_seconds_behind` grows with
 * the wall clock while nothing drains; a snapshot the outage interrupts is marked failed, and the
 * snapshots' age leaves it out. Once the node is back, all turn green again. Beside it, on a
 * single Redis: the snapshot of a `laurel snapshot` killed part-way is marked failed by the
 * workers' start-up, and another by the next snapshot.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { SnapshotStore } from '../../src/postgres/snapshots.js';
import { startWorkers } from '../../workers/index.js';
import { killCliProcesses, runCli } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { redisServerAvailable, startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';
import { deletePostgresRows, deletePrefix, startTestServer, type TestServer } from '../support/server.js';

const available = redisServerAvailable() === null;
/** How soon the workers must say that their queues' Redis is gone (ms). */
const RED_MS = 5000;

const servers: TestServer[] = [];
let cluster: RedisClusterHandle | undefined;
let db: pg.Client | undefined;

afterAll(async () => {
  killCliProcesses();
  await db?.end().catch(() => undefined);
  // A node a failed test left killed: back first, so the workers stop as usual.
  await cluster?.restart().catch(() => undefined);
  for (const s of servers) await s.close().catch(() => undefined);
  await cluster?.stop();
  for (const s of servers) {
    if (s.settings.redisClusterNodes.length === 0) await deletePrefix(s.settings, s.prefix);
  }
  if (servers.length > 0) await deletePostgresRows(servers[0].settings, servers.map((s) => s.prefix));
});

/** The value of one sample line (`name{labels} value`), or null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/** The index, in `cluster.nodes`, of the primary that holds `<prefix>:{q}`. */
async function queueNode(c: RedisClusterHandle, prefix: string): Promise<number> {
  const probe = new Redis(c.nodes[0].port, '127.0.0.1');
  try {
    const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', `${prefix}:{q}:x`));
    const slots = (await probe.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const owner = slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
    return c.nodes.findIndex((n) => n.port === owner);
  } finally {
    probe.disconnect();
  }
}

/** A Postgres client of the test's own, connected once. */
async function database(url: string): Promise<pg.Client> {
  if (db === undefined) {
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }
  return db;
}

/**
 * Holds every user's row of the installation's snapshots (SELECT ... FOR UPDATE in a transaction,
 * on a connection of its own that does nothing else): a full snapshot waits on them once it has
 * begun. Resolves with the release.
 */
async function holdSnapshotRows(url: string, prefix: string): Promise<{ pid: number; release: () => Promise<void> }> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  const pid = Number((await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  await holder.query('BEGIN');
  const { rowCount } = await holder.query('SELECT 1 FROM laurel_snapshot_users WHERE prefix = $1 FOR UPDATE', [prefix]);
  expect(rowCount).toBeGreaterThan(0);
  return {
    pid,
    async release() {
      await holder.query('COMMIT');
      await holder.end();
    },
  };
}

/** Whether a Postgres session waits on the rows `holder` (a backend's pid) holds. */
async function blockedBy(client: pg.Client, holder: number): Promise<boolean> {
  const { rows } = await client.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [holder]);
  return rows.length > 0;
}

/** The installation's snapshot rows after `after`, as stored. */
async function rowsAfter(client: pg.Client, prefix: string, after: number): Promise<{ id: number; finished: boolean; error: string | null }[]> {
  const { rows } = await client.query(
    'SELECT id, finished_at IS NOT NULL AS finished, error FROM laurel_snapshots WHERE prefix = $1 AND id > $2 ORDER BY id', [prefix, after],
  );
  return rows.map((r) => ({ id: Number(r.id), finished: r.finished as boolean, error: r.error as string | null }));
}

/** Events of `users` users, drained, then a full snapshot: answers its id. */
async function snapshotted(s: TestServer, users: number): Promise<number> {
  await s.metrics('lessons');
  for (let i = 0; i < users; i++) expect((await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: `u${i}` }, value: 1 } })).status).toBe(201);
  await s.workers!.testing.drainNow();
  const first = await s.workers!.testing.snapshotNow(true);
  expect(first).not.toBeNull();
  return first!.id;
}

describe.skipIf(!available)('the workers\' health when the Redis of their queues is gone', () => {
  it('turns /ready, the queues\' liveness and the drain\'s lag red within 5 s, fails the snapshot it cuts, and green again', async () => {
    cluster = await startRedisCluster({ persistent: true });
    const s = await startTestServer({
      workers: true,
      env: { REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','), LAUREL_WORKERS_PORT: '0', LAUREL_SNAPSHOT_INTERVAL: '1h' },
    });
    servers.push(s);
    const workers = s.workers!;
    const health = `http://127.0.0.1:${workers.healthPort}`;
    const queues = workers.liveness.status().map((q) => q.queue);
    expect(queues.length).toBeGreaterThan(5);
    const scrape = () => fetch(`${health}/metrics`).then((r) => r.text());
    const ready = async () => {
      const r = await fetch(`${health}/ready`);
      return { status: r.status, body: (await r.json()) as { error?: string; code?: string; checks: Record<string, { ok: boolean; detail?: unknown }> } };
    };
    const liveOf = (text: string) => queues.map((q) => sample(text, `laurel_worker_queue_live{queue="${q}"}`));

    const client = await database(s.settings.databaseUrl);
    const first = await snapshotted(s, 20);
    await eventually(async () => {
      expect((await ready()).status).toBe(200);
      expect(liveOf(await scrape())).toEqual(queues.map(() => 1));
    }, 30_000);

    // A full snapshot that has begun, waiting on Postgres when the node goes.
    const hold = await holdSnapshotRows(s.settings.databaseUrl, s.prefix);
    const cut = workers.testing.snapshotNow(true).then(() => null, (err: unknown) => err);
    await eventually(async () => expect(await blockedBy(client, hold.pid)).toBe(true), 10_000);
    expect(await rowsAfter(client, s.prefix, first)).toEqual([expect.objectContaining({ finished: false })]);

    const node = await queueNode(cluster, s.prefix);
    await cluster.kill(node);
    const killed = Date.now();
    let red: Awaited<ReturnType<typeof ready>> | undefined;
    await eventually(async () => {
      red = await ready();
      expect(red.status).toBe(503);
      expect(red.body.checks.queues.ok).toBe(false);
      expect(red.body.checks.redis.ok).toBe(false);
      expect(liveOf(await scrape())).toEqual(queues.map(() => 0));
    }, RED_MS + 2000);
    expect(Date.now() - killed).toBeLessThanOrEqual(RED_MS);
    expect(red!.body.code).toBe('not_ready');
    expect(red!.body.error).toMatch(/\bqueues\b/);
    expect(red!.body.error).toMatch(/\bredis\b/);
    expect(workers.liveness.status().map((q) => q.reason)).toEqual(queues.map(() => 'redis'));

    // Nothing drains: the lag grows with the wall clock, never frozen.
    const before = sample(await scrape(), 'laurel_log_drain_seconds_behind')!;
    await sleep(3000);
    const scraped = Date.now();
    const after = sample(await scrape(), 'laurel_log_drain_seconds_behind')!;
    expect(after - before).toBeGreaterThanOrEqual(2.5);
    expect(after).toBeGreaterThanOrEqual((scraped - killed) / 1000);

    // The snapshot goes on, meets the Cluster without the node, and is marked failed.
    await hold.release();
    expect(await cut).toBeInstanceOf(Error);
    const store = new SnapshotStore(workers.pool, s.prefix);
    const [failed] = (await store.list()).filter((r) => r.id > first);
    expect(failed.finishedAt).not.toBeNull();
    expect(failed.error).toEqual(expect.any(String));
    expect((await store.latest())!.id).toBe(first);
    // Counted from the snapshot before it, which ended more than 3 s before it (Postgres's clock and this host's).
    const firstEnded = (await store.list()).find((r) => r.id === first)!.finishedAt!;
    expect(failed.finishedAt! - firstEnded).toBeGreaterThan(3000);
    const asked = Date.now();
    expect(sample(await scrape(), 'laurel_snapshot_age_seconds')).toBeGreaterThanOrEqual((asked - firstEnded) / 1000 - 0.5);

    await cluster.restart();
    await eventually(async () => {
      expect((await ready()).status).toBe(200);
      const text = await scrape();
      expect(liveOf(text)).toEqual(queues.map(() => 1));
      expect(sample(text, 'laurel_log_drain_seconds_behind')).toBeLessThan(5);
    }, 60_000);
  }, 180_000);

  it('marks failed the snapshot of a process killed part-way, at the workers\' start-up and at the next snapshot', async () => {
    const s = await startTestServer({ workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '1h' } });
    servers.push(s);
    const client = await database(s.settings.databaseUrl);
    const first = await snapshotted(s, 5);
    const lock = `laurel-snapshot:${s.prefix}`;

    /** `laurel snapshot --full` killed once its row is written, its session gone: answers the row's id. */
    const killedSnapshot = async (after: number): Promise<number> => {
      const hold = await holdSnapshotRows(s.settings.databaseUrl, s.prefix);
      const cli = runCli(['snapshot', '--full'], { LAUREL_PREFIX: s.prefix, REDIS_URL: s.settings.redisUrl, REDIS_CLUSTER_NODES: '' });
      await eventually(async () => {
        expect(cli.child.exitCode, cli.output()).toBeNull();
        expect(await rowsAfter(client, s.prefix, after)).toEqual([expect.objectContaining({ finished: false })]);
      }, 20_000);
      await eventually(async () => expect(await blockedBy(client, hold.pid)).toBe(true), 10_000);
      cli.child.kill('SIGKILL');
      await cli.exited;
      await hold.release();
      // Its session has ended once the snapshot lock is free.
      await eventually(async () => {
        const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS got', [lock]);
        expect(rows[0].got).toBe(true);
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]);
      }, 10_000);
      const [row] = await rowsAfter(client, s.prefix, after);
      expect(row.finished).toBe(false);
      return row.id;
    };

    const byStart = await killedSnapshot(first);
    await s.workers!.close();
    s.workers = await startWorkers(s.settings, createLogger('silent'), s.api.services);
    expect(await rowsAfter(client, s.prefix, first)).toEqual([{ id: byStart, finished: true, error: expect.stringMatching(/^interrupted/) }]);

    const bySnapshot = await killedSnapshot(byStart);
    const next = await s.workers.testing.snapshotNow();
    expect(next!.interrupted).toEqual([bySnapshot]);
    expect(await rowsAfter(client, s.prefix, byStart)).toEqual([
      { id: bySnapshot, finished: true, error: expect.stringMatching(/^interrupted/) },
      { id: next!.id, finished: true, error: null },
    ]);
    // The incremental one took what changed since the last that finished whole.
    expect(next!.full).toBe(false);
    expect((await new SnapshotStore(s.workers.pool, s.prefix).latest())!.id).toBe(next!.id);
  }, 120_000);
});
