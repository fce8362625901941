/**
 * Several api processes on one port (LAUREL_API_PROCESSES, src/app/processes.ts), run as an
 * operator runs them (the built command line): both serve, a configuration change made through
 * one is seen by the other, one that dies is started again, SIGTERM answers the request in flight
 * and stops them all (no process left), the installation is checked (and restored) once, and a bad
 * count is refused. Which process took an event is read from the event log, whose entries name it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killCliProcesses, runCli, type CliRun } from '../support/cli.js';
import { deletePostgresRows, deletePrefix } from '../support/server.js';
import { portOf } from '../support/listening.js';
import { loadSettings } from '../../src/lib/settings.js';
import { Keys } from '../../src/redis/keys.js';
import { HANG_MS } from '../support/hang.js';

const settings = loadSettings();
const PARTITIONS = 4;
const prefix = `t${randomBytes(5).toString('hex')}`;
const adminKey = `procs-${randomBytes(8).toString('hex')}`;
const keys = new Keys(prefix, PARTITIONS);
const env = { LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey, LAUREL_PARTITIONS: String(PARTITIONS), LOG_LEVEL: 'info' };
let redis: Redis;

beforeAll(() => {
  redis = new Redis(settings.redisUrl);
});

afterAll(async () => {
  killCliProcesses();
  redis?.disconnect();
  await deletePrefix(settings, prefix);
  await deletePostgresRows(settings, [prefix]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The processes `pid` started (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = HANG_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** One request on a connection of its own (no keep-alive), so the kernel picks a process for each. */
function fresh(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({
      host: '127.0.0.1', port, method, path, agent: false,
      headers: { 'x-api-key': adminKey, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function waitReady(port: number, run: CliRun): Promise<void> {
  await until(`ready on ${port}`, async () => {
    if (run.child.exitCode !== null) throw new Error(`exited early: ${run.output()}`);
    try {
      return (await fresh(port, 'GET', '/ready')).status === 200 ? true : undefined;
    } catch {
      return undefined; // not listening yet
    }
  });
}

/** The api processes that logged an event of the metric (each event's log entry names its process). */
async function processesOf(metricId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let p = 0; p < PARTITIONS; p++) {
    for (const [, fields] of await redis.xrange(keys.partitionLog(p), '-', '+')) {
      if (fields[0] !== 'event') continue;
      const body = JSON.parse(fields[1]) as { m: string; p: string };
      if (body.m === metricId) ids.add(body.p);
    }
  }
  return ids;
}

/** Sends `n` events on the metric, on a connection each: each is taken at once (201). */
async function eventsOn(port: number, metric: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await fresh(port, 'POST', `/api/metrics/${metric}/event`, { user: { id: `u${i}` }, value: 1 });
    expect(r.status, r.text).toBe(201);
  }
}

async function createMetric(port: number, key: string): Promise<string> {
  const r = await fresh(port, 'POST', '/admin/v1/metrics', [{ name: key, key }]);
  expect(r.status, r.text).toBe(201);
  return (JSON.parse(r.text) as { created: { id: string }[] }).created[0].id;
}

/**
 * A request on a connection of its own with the first bytes of its body sent; finish() sends the
 * rest and answers what came back once the server closed the connection.
 */
async function halfSent(port: number, path: string): Promise<{ finish(): Promise<string> }> {
  const body = JSON.stringify({ user: { id: 'in-flight' }, value: 1 });
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d) => { answer += d; });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${adminKey}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
  return {
    async finish() {
      socket.write(body.slice(10));
      await closed;
      return answer;
    },
  };
}

describe('LAUREL_API_PROCESSES', () => {
  it('refuses 0, a negative count and a word with a message naming the variable, no stack trace', async () => {
    for (const bad of ['0', '-2', 'many']) {
      const r = runCli(['start'], { ...env, LAUREL_API_PROCESSES: bad });
      expect(await r.exited).toBe(1);
      expect(r.output()).toContain(`laurel: LAUREL_API_PROCESSES must be an integer from 1 to 256, got "${bad}"`);
      expect(r.output()).not.toMatch(/\n\s+at /);
    }
  });
});

describe('laurel start with two api processes', () => {
  let port: number;
  let run: CliRun;
  let primary: number;
  let lessons: string;
  /** The api processes that took the first events. */
  let first: Set<string>;
  /**
   * The api processes' heartbeats: those of the processes that record the configuration they
   * loaded (the workers' batch applier beats in the same hash, src/engine/batches/process.ts).
   */
  const apiBeats = async () => {
    const [beats, loaded] = await Promise.all([redis.hgetall(keys.apiProcesses), redis.hgetall(keys.apiConfigVersions)]);
    return Object.entries(beats).filter(([id]) => id in loaded).map(([, beat]) => beat);
  };

  beforeAll(async () => {
    run = runCli(['start'], { ...env, PORT: '0', LAUREL_API_PROCESSES: '2' });
    port = await portOf(run, 'processes');
    await waitReady(port, run);
    primary = run.child.pid!;
    await run.saying('laurel api processes listening');
  });

  it('runs both on the port beside the workers', async () => {
    await run.saying('laurel workers running');
    expect(childrenOf(primary)).toHaveLength(2);
    expect(await run.saying('"msg":"laurel api listening"', 2)).toHaveLength(2);
    // Each api process says it is alive, under an id of its own.
    const beats = await apiBeats();
    expect(beats.filter((v) => /^\d+$/.test(v))).toHaveLength(2);
    // The primary is no api process: its workers run there, and it logs no request.
    expect(run.lines().filter((l) => l.includes(`"pid":${primary},`) && l.includes('laurel api listening'))).toHaveLength(0);
  });

  it('refuses a second laurel on its port before it starts anything, and serves on', async () => {
    // uWebSockets.js would bind beside it (SO_REUSEPORT) and take a share of its connections.
    for (const [command, processes] of [['api', '1'], ['api', '2'], ['start', '2']]) {
      const second = runCli([command], { ...env, PORT: String(port), LAUREL_API_PROCESSES: processes });
      expect(await second.exited, second.output()).toBe(1);
      expect(second.output()).toContain(`laurel: cannot listen on 127.0.0.1:${port}: something listens there already (a laurel started before? stop it first), or set PORT`);
      expect(second.output()).not.toMatch(/listening|migrat|restored/);
    }
    expect(childrenOf(primary)).toHaveLength(2);
    for (let i = 0; i < 10; i++) expect((await fresh(port, 'GET', '/ready')).status).toBe(200);
  });

  it('a configuration change made through one is seen by the other before it answers', async () => {
    // A metric made through one process, then its first event on a connection of its own: about
    // half of them reach the other process, which knows the metric already.
    for (let i = 0; i < 10; i++) {
      await createMetric(port, `m${i}`);
      const r = await fresh(port, 'POST', `/api/metrics/m${i}/event`, { user: { id: 'u' }, value: 1 });
      expect(r.status, r.text).toBe(201);
    }
    lessons = await createMetric(port, 'lessons');
    await eventsOn(port, 'lessons', 40);
    first = await processesOf(lessons);
    expect(first.size).toBe(2);
    const beats = await redis.hgetall(keys.apiProcesses);
    for (const id of first) expect(beats[id]).toMatch(/^\d+$/);
    // Each has recorded the version it has loaded: the latest.
    const version = await redis.get(keys.configVersion);
    const loaded = await redis.hgetall(keys.apiConfigVersions);
    for (const id of first) expect(loaded[id]).toBe(version);
  });

  it('a change waits for an api process that has not loaded it (at most 2 s), then answers and says which', async () => {
    // A third api process of the installation, on a port of its own, stopped (SIGSTOP) while it lives.
    const before = new Set(Object.keys(await redis.hgetall(keys.apiProcesses)));
    const other = runCli(['api'], { ...env, PORT: '0' });
    const otherPort = await portOf(other, 'api');
    await waitReady(otherPort, other);
    const otherId = Object.keys(await redis.hgetall(keys.apiProcesses)).find((id) => !before.has(id))!;
    expect(otherId).toBeDefined();
    process.kill(other.child.pid!, 'SIGSTOP');
    try {
      await createMetric(port, 'writing');
      // The line comes through the primary's pipe from the api process that made the change: it
      // may reach the test after the answer.
      await until('the lagging process named', () =>
        run.lines().some((l) => l.includes('api processes have not loaded the configuration change yet') && l.includes(otherId)) ? true : undefined);
    } finally {
      process.kill(other.child.pid!, 'SIGCONT');
    }
    // Once it runs again it catches up, and takes events on the metric made meanwhile.
    await until('the stopped process caught up', async () =>
      (await redis.hget(keys.apiConfigVersions, otherId)) === (await redis.get(keys.configVersion)) ? true : undefined);
    const r = await fresh(otherPort, 'POST', '/api/metrics/writing/event', { user: { id: 'u' }, value: 1 });
    expect(r.status, r.text).toBe(201);
    other.child.kill('SIGTERM');
    expect(await other.exited).toBe(0);
  });

  it('starts an api process again when one dies, the other serving meanwhile', async () => {
    const [victim, survivor] = childrenOf(primary);
    process.kill(victim, 'SIGKILL');
    await until('the killed process gone', () => (alive(victim) ? undefined : true));
    for (let i = 0; i < 10; i++) expect((await fresh(port, 'GET', '/health')).status).toBe(200);
    const again = await until('another api process', () => {
      const now = childrenOf(primary);
      return now.length === 2 && !now.includes(victim) ? now : undefined;
    });
    expect(again).toContain(survivor);
    await until('it started again', () => (run.output().includes('api process started again') ? true : undefined));
    expect(run.output()).toMatch(/"signal":"SIGKILL".*"msg":"api process exited; starting another"/);
    // The new one takes events too.
    const reading = await createMetric(port, 'reading');
    await eventsOn(port, 'reading', 40);
    const served = await processesOf(reading);
    expect(served.size).toBe(2);
    expect([...served].filter((id) => !first.has(id))).toHaveLength(1);
    // The dead one's heartbeat stays behind (the log drainer places its events again).
    const beats = await apiBeats();
    expect(beats.filter((v) => /^\d+$/.test(v))).toHaveLength(3);
  });

  it('SIGTERM answers the request in flight, stops every api process and the workers, and exits with 0', async () => {
    const children = childrenOf(primary);
    expect(children).toHaveLength(2);
    // Requests whose body is half sent when the stop begins: an event (answered once Redis has
    // run it), and one on a metric nobody has (answered at once, in the body's own callback).
    const event = await halfSent(port, '/api/metrics/lessons/event');
    const unknown = await halfSent(port, '/api/metrics/nothing/event');
    await sleep(300);
    run.child.kill('SIGTERM');
    // Every api process has begun to stop (and no longer listens) before the rest of the bodies go.
    await until('the api processes stopping', () =>
      children.every((pid) => run.lines().some((l) => l.includes(`"pid":${pid},`) && l.includes('laurel shutting down'))) ? true : undefined);
    await until('the port closed', async () => {
      try {
        await fresh(port, 'GET', '/health');
        return undefined;
      } catch {
        return true;
      }
    });
    expect(await event.finish()).toMatch(/^HTTP\/1\.1 201 /);
    expect(await unknown.finish()).toMatch(/^HTTP\/1\.1 404 /);

    expect(await run.exited).toBe(0);
    for (const pid of children) expect(alive(pid)).toBe(false);
    expect(run.lines().some((l) => l.includes(`"pid":${primary},`) && l.includes('"msg":"laurel stopped"'))).toBe(true);
    // Each api process said it stopped after its last request (the one SIGKILLed could not; the
    // third, stopped earlier, had already).
    const beats = await apiBeats();
    expect(beats.filter((v) => v.startsWith('stopped:'))).toHaveLength(3);
    expect(beats.filter((v) => /^\d+$/.test(v))).toHaveLength(1);
  });
});

describe('laurel api with two api processes', () => {
  it('checks the installation once, before they start: refuses a Redis that lost it, or restores it once (LAUREL_AUTO_RESTORE)', async () => {
    // The workers of the run above copied the configuration into Postgres; Redis loses it.
    const db = new pg.Client({ connectionString: settings.databaseUrl });
    await db.connect();
    try {
      await until('the configuration copied', async () => {
        const { rows } = await db.query("SELECT 1 FROM laurel_config WHERE prefix = $1 AND kind = 'metrics'", [prefix]);
        return rows.length >= 2 ? true : undefined;
      });
    } finally {
      await db.end();
    }
    await deletePrefix(settings, prefix);

    const refused = runCli(['api'], { ...env, PORT: '0', LAUREL_API_PROCESSES: '2' });
    expect(await refused.exited).toBe(1);
    expect(refused.output().match(/Redis holds no data of installation/g)).toHaveLength(1);
    expect(refused.output()).not.toMatch(/laurel api listening/);

    const run = runCli(['api'], { ...env, PORT: '0', LAUREL_API_PROCESSES: '2', LAUREL_AUTO_RESTORE: '1' });
    const port = await portOf(run, 'processes');
    await waitReady(port, run);
    await run.saying('"msg":"laurel api listening"', 2);
    expect(run.lines().filter((l) => l.includes('"msg":"restored from Postgres"'))).toHaveLength(1);
    const restoredAt = run.lines().findIndex((l) => l.includes('"msg":"restored from Postgres"'));
    const firstListening = run.lines().findIndex((l) => l.includes('"msg":"laurel api listening"'));
    expect(restoredAt).toBeLessThan(firstListening);
    // Both serve the restored configuration.
    const { rows } = await (async () => {
      const c = new pg.Client({ connectionString: settings.databaseUrl });
      await c.connect();
      try {
        return await c.query("SELECT id FROM laurel_config WHERE prefix = $1 AND kind = 'metrics' AND body->>'key' = 'lessons'", [prefix]);
      } finally {
        await c.end();
      }
    })();
    const lessons = rows[0].id as string;
    const before = await processesOf(lessons);
    await eventsOn(port, 'lessons', 40);
    const after = await processesOf(lessons);
    expect([...after].filter((id) => !before.has(id))).toHaveLength(2);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
