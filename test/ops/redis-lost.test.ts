/**
 * A Redis that comes back empty under a running laurel (a restart that kept nothing): the process
 * that served the installation finds it gone at its configuration poll (every 2 s), marks it for
 * every process, and serves nothing (503, `GET /ready` not ready): a replay of an idempotency key
 * is not taken for a new event, an Admin write is not made on the empty Redis, and the workers take
 * no snapshot over what Postgres keeps. `laurel restore` (without --force: the marks and the
 * heartbeats written since are not data) rebuilds it; the api answers as before the loss, the
 * replay a 202, and the workers' schedules are made again (the log drains an event taken after); a
 * drain that ends on the empty Redis writes nothing a restore takes for data.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { SnapshotError } from '../../src/engine/durability/snapshot.js';
import { createLogger } from '../../src/lib/log.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { eventually } from '../support/eventually.js';
import { redisServerAvailable } from '../support/redis-cluster.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const log = createLogger('silent');

describe.skipIf(redisServerAvailable() !== null)('a Redis that comes back empty under a running laurel', () => {
  let redis: RedisServer | null = null;
  let s: TestServer | null = null;
  afterAll(async () => {
    if (s !== null) {
      await s.close();
      await deletePostgresRows(s.settings, [s.prefix]);
    }
    await redis?.stop();
  });

  it('serves nothing until a restore rebuilds it, then answers as before', async () => {
    redis = await startRedisServer();
    s = await startTestServer({ workers: true, env: { REDIS_URL: redis.url, REDIS_CLUSTER_NODES: '' } });
    const server = s;
    const ids = await server.metrics('lessons');
    const event = (user: string, key: string) =>
      server.request('POST', '/api/metrics/lessons/event', { body: { user: { id: user }, value: 1 }, headers: { 'Idempotency-Key': key } });
    expect((await event('ada', 'k1')).status).toBe(201);
    expect((await event('ada', 'k2')).status).toBe(201);
    await server.workers!.testing.configCopied(server.api.services.store.current.version);
    await server.workers!.testing.drainNow();
    expect(await server.workers!.testing.snapshotNow(true)).not.toBeNull();
    const before = (await server.request('GET', '/api/users/ada/metrics/lessons')).body;
    expect(before).toMatchObject({ id: ids.lessons, current: 2 });

    // Redis restarts and keeps nothing, while a client sends events one after another: none is
    // taken, neither while Redis is down nor once it is back (the connection's return is checked
    // before anything is served on it; the poll every 2 s would leave events taken on the empty Redis).
    await redis.kill();
    const answers: { status: number; error: string; back: boolean }[] = [];
    let back = false;
    let stop = false;
    const probing = (async () => {
      for (let i = 0; !stop; i++) {
        const r = await event(`probe${i}`, `p${i}`);
        answers.push({ status: r.status, error: String(r.body.error ?? ''), back });
        await sleep(5);
      }
    })();
    await redis.start();
    back = true;

    // Marked, and nothing served.
    await eventually(async () => {
      const ready = await server.request('GET', '/ready', { key: null });
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toMatchObject({ redis: true, restored: false });
    }, 15_000);
    await eventually(() => expect(answers.filter((a) => a.back && /laurel restore/.test(a.error)).length).toBeGreaterThan(2), 15_000);
    stop = true;
    await probing;
    expect(answers.filter((a) => a.status !== 503)).toEqual([]);
    const replay = await event('ada', 'k1');
    expect(replay.status).toBe(503);
    expect(replay.body.error).toMatch(/laurel restore/);
    expect((await server.request('POST', '/admin/v1/metrics', { body: [{ key: 'quizzes', name: 'Quizzes' }] })).status).toBe(503);
    await expect(server.workers!.testing.snapshotNow()).rejects.toThrow(SnapshotError);
    // A drain that was under way as Redis came back ends on the empty Redis: what it writes is not data.
    await server.workers!.testing.drainNow();

    // `laurel restore`, as an operator runs it while laurel runs: no --force needed.
    const pool = await connectPostgres(server.settings);
    try {
      const result = await restoreWith(server.settings, log, pool, false);
      expect(result).toMatchObject({ failed: 0, users: 1 });
    } finally {
      await pool.end();
    }
    await eventually(async () => expect((await server.request('GET', '/ready', { key: null })).status).toBe(200), 15_000);
    expect((await server.request('GET', '/api/users/ada/metrics/lessons')).body).toEqual(before);
    expect((await event('ada', 'k1')).status).toBe(202);

    // The workers' schedules were made again: an event taken now is drained into Postgres.
    expect((await event('bea', 'k3')).status).toBe(201);
    const check = await connectPostgres(server.settings);
    try {
      await eventually(async () => {
        const { rows } = await check.query(`SELECT count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND user_id = 'bea'`, [server.prefix]);
        expect(rows[0].n).toBe(1);
      }, 15_000);
    } finally {
      await check.end();
    }
  });
});
