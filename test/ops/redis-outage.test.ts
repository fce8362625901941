/**
 * `laurel start` (one api process, and the workers in the primary, built as `dist/src/cli.js`)
 * while its Redis goes away and comes back: a single redis-server and a 3-node Cluster of its own,
 * on free ports, persistent (AOF, fsync always) so that a restart finds the data again. While Redis
 * is down the api answers 503, the processes take little CPU and each logs the outage once (not a
 * line per retry);
 * when Redis is back it accepts events again and its workers drain them to Postgres, without a
 * restart; SIGTERM while Redis is down exits with 0 within 10 s.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/lib/settings.js';
import { loadScripts } from '../../src/redis/scripts.js';
import { killCliProcesses, runCli, type CliRun } from '../support/cli.js';
import { redisServerAvailable, startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';
import { deletePostgresRows } from '../support/server.js';
import { portOf } from '../support/listening.js';
import { startRedisServer } from '../support/redis-server.js';
import { HANG_MS } from '../support/hang.js';

const ADMIN_KEY = 'outage-test-key';
const cleanups: (() => Promise<void> | void)[] = [];
const prefixes: string[] = [];
const noRedisServer = redisServerAvailable();

afterAll(async () => {
  killCliProcesses();
  for (const clean of cleanups) await clean();
  await deletePostgresRows(loadSettings(), prefixes);
});


/** One redis-server that can be killed and started again on its port, with its data. */
interface Outageable {
  env: Record<string, string>;
  kill(): Promise<void>;
  restart(): Promise<void>;
}

/**
 * A persistent redis-server of the test's own (test/support/redis-server.ts). It must come back on
 * the same port, so it cannot take the kernel's pick (port 0) afresh: its port is one outside the
 * kernel's range for outgoing connections (test/support/ports.ts), which no connection can take
 * between the check that it is free and the bind.
 */
async function singleRedis(): Promise<Outageable> {
  const server = await startRedisServer({ persistent: true });
  cleanups.push(() => server.stop());
  return { env: { REDIS_URL: server.url }, kill: () => server.kill(), restart: () => server.start() };
}

async function clusterRedis(): Promise<Outageable> {
  const cluster: RedisClusterHandle = await startRedisCluster({ persistent: true });
  cleanups.push(() => cluster.stop());
  return {
    env: { REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',') },
    kill: () => cluster.kill(),
    restart: () => cluster.restart(),
  };
}

/** `laurel <args>`, logging at info, on single Redis unless `env` says otherwise. */
const run = (args: string[], env: Record<string, string>): CliRun =>
  runCli(args, { LOG_LEVEL: 'info', REDIS_CLUSTER_NODES: '', ...env });

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat (in clock ticks of 1/100 s). */
/** A process's /proc stat fields after its name: [0] state, [1] parent pid, [11] and [12] CPU ticks. */
function statOf(pid: number | string): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
}

/** The CPU seconds of `laurel start`'s process and its children (its api process). */
function cpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const fields = statOf(p);
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/** A process and its children. */
function processTree(pid: number): number[] {
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return Number(statOf(d)[1]) === pid;
    } catch {
      return false;
    }
  });
  return [pid, ...children.map(Number)];
}

/** The pids of the log lines that match. */
function pidsLogging(r: CliRun, what: RegExp): number[] {
  return r.lines().filter((l) => what.test(l)).map((l) => (JSON.parse(l) as { pid: number }).pid);
}

async function post(port: number, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000),
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const event = (port: number, user: string) => post(port, '/api/metrics/lessons/event', { user: { id: user }, value: 1 });

/** `p`, or an error naming `what` once `ms` have passed: a phase that hangs says which it is. */
async function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function eventually<T>(what: string, ms: number, f: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`${what} not within ${ms} ms${last ? ` (${(last as Error).message})` : ''}`);
    await sleep(100);
  }
}

async function outage(redis: Outageable): Promise<void> {
  const prefix = `o${randomBytes(5).toString('hex')}`;
  prefixes.push(prefix);
  const r = run(['start'], { ...redis.env, PORT: '0', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: ADMIN_KEY });
  const port = await portOf(r, 'processes');
  await eventually('ready', HANG_MS, async () => {
    if (r.child.exitCode !== null) throw new Error(`exited early: ${r.lines().join('\n')}`);
    return (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200 ? true : undefined;
  });
  expect((await post(port, '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }])).status).toBe(201);
  expect((await event(port, 'before')).status).toBe(201);

  await redis.kill();
  // Refused at once (not held until Redis is back), with the catalogue's body.
  const down = await event(port, 'during');
  expect(down.status).toBe(503);
  expect(down.body.error).toMatch(/Redis is not reachable/);
  await sleep(200);
  // Reconnection attempts: a few a second at first, then one every 2 s per connection, and the
  // outage logged once. Before, a Cluster subscriber reconnected in a loop (a whole core), and
  // each attempt of each connection logged a line (hundreds a second with BullMQ's stacks).
  const linesBefore = r.lines().length;
  const cpuBefore = cpuSeconds(r.child.pid!);
  const t0 = performance.now();
  await sleep(3000);
  const cpuShare = (cpuSeconds(r.child.pid!) - cpuBefore) / ((performance.now() - t0) / 1000);
  const during = r.lines().slice(linesBefore);
  // Two processes: the primary (the workers) and the api process.
  expect(processTree(r.child.pid!)).toHaveLength(2);
  expect(cpuShare, 'share of one core used while Redis is down, both processes').toBeLessThan(0.2);
  expect(during.length, `lines logged in 3 s while Redis is down:\n${during.slice(0, 20).join('\n')}`).toBeLessThanOrEqual(6);
  // Once by each process.
  const unreachable = pidsLogging(r, /Redis unreachable/);
  expect(unreachable.sort()).toEqual(processTree(r.child.pid!).sort());

  // Back on the same port(s) with the same data: events are accepted again, and the workers
  // drain them into Postgres, with no restart of laurel.
  await redis.restart();
  const back = await eventually('an event accepted after Redis came back', HANG_MS, async () => {
    const res = await event(port, 'after');
    return res.status === 201 ? res : undefined;
  });
  expect(back.body.total).toBe(1);
  const db = new pg.Client({ connectionString: loadSettings().databaseUrl });
  await db.connect();
  try {
    await eventually('the event after the outage in Postgres', HANG_MS, async () => {
      const { rows } = await db.query('SELECT 1 FROM laurel_events WHERE prefix = $1 AND user_id = $2', [prefix, 'after']);
      return rows.length > 0 ? true : undefined;
    });
  } finally {
    await db.end();
  }
  expect(r.lines().some((l) => /Redis reachable again/.test(l))).toBe(true);

  // Down again, and stopped meanwhile: within 10 s, with 0 and a last word.
  await redis.kill();
  await sleep(300);
  const stopAt = Date.now();
  r.child.kill('SIGTERM');
  const code = await Promise.race([r.exited, sleep(10_000).then(() => 'still running')]);
  expect(code, r.lines().slice(-5).join('\n')).toBe(0);
  expect(Date.now() - stopAt).toBeLessThan(10_000);
  expect(r.lines().some((l) => /laurel stopped/.test(l))).toBe(true);
}

/**
 * A TCP proxy in front of a redis-server that can lose one reply: the command goes through and
 * Redis runs it, then the connection drops before its answer arrives (a Redis killed between
 * running a script and writing the reply, and back at once). Or lose the command itself: the
 * connection drops before it reaches Redis. Later connections go through.
 */
/** A string the command holds, or (an array) one of several. */
type Marker = string | string[];

interface LossyProxy {
  port: number;
  loseReplyTo(...markers: Marker[]): void;
  loseCommand(...markers: Marker[]): void;
  close(): void;
}

async function lossyProxy(target: number): Promise<LossyProxy> {
  let armed: { markers: Marker[]; run: boolean } | null = null;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    let cut = false;
    client.on('data', (d) => {
      if (armed && armed.markers.every((m) => (typeof m === 'string' ? [m] : m).some((alt) => d.includes(alt)))) {
        const { run } = armed;
        armed = null;
        if (!run) { client.destroy(); upstream.destroy(); return; }
        cut = true;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!cut) client.write(d);
      else { client.destroy(); upstream.destroy(); }
    });
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
      a.on('error', () => b.destroy());
      a.on('close', () => { b.destroy(); sockets.delete(a); });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => { server.close(); for (const s of sockets) s.destroy(); };
  cleanups.push(close);
  return {
    port, close,
    loseReplyTo: (...markers) => { armed = { markers, run: true }; },
    loseCommand: (...markers) => { armed = { markers, run: false }; },
  };
}

/** `laurel api` on its own Redis, through a lossy proxy, with a metric `lessons`; ready. */
async function apiBehindProxy(): Promise<{ proxy: LossyProxy; port: number; r: CliRun }> {
  const redis = await singleRedis();
  const proxy = await lossyProxy(Number(new URL(redis.env.REDIS_URL).port));
  const prefix = `o${randomBytes(5).toString('hex')}`;
  prefixes.push(prefix);
  const r = run(['api'], { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, PORT: '0', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: ADMIN_KEY });
  const port = await portOf(r, 'api');
  await eventually('ready', HANG_MS, async () => {
    if (r.child.exitCode !== null) throw new Error(`exited early: ${r.lines().join('\n')}`);
    return (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200 ? true : undefined;
  });
  expect((await post(port, '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }])).status).toBe(201);
  return { proxy, port, r };
}

/**
 * An event whose reply is lost with the connection is answered 503 and counts at most once. Redis
 * ran it; ioredis used to write the commands in flight again on the new connection when it came
 * back within its retries (a few hundred ms), so the event counted twice and was answered 201.
 */
async function lostReply(): Promise<void> {
  const { proxy, port, r } = await apiBehindProxy();
  expect((await event(port, 'warm')).status).toBe(201);
  const total = async (user: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/users/${user}/metrics/lessons`, { headers: { 'x-api-key': ADMIN_KEY } });
    return ((await res.json()) as { current: number }).current;
  };

  // Without a key: Redis counted it, the answer was lost; 503 (it may have been applied), never 201.
  proxy.loseReplyTo('recordEvent', 'lost-reply');
  const lost = await event(port, 'lost-reply');
  expect(lost.status, JSON.stringify(lost.body)).toBe(503);
  expect(await eventually('Redis reachable', 5000, async () => (await event(port, 'warm')).status === 201 || undefined)).toBe(true);
  expect(await total('lost-reply')).toBe(1);

  // With a key: 503, then the client's retry with the same key is a replay (202), counted once.
  const keyed = (user: string) => fetch(`http://127.0.0.1:${port}/api/metrics/lessons/event`, {
    method: 'POST', body: JSON.stringify({ user: { id: user }, value: 1 }), signal: AbortSignal.timeout(5000),
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'idempotency-key': 'lost-reply-key' },
  });
  proxy.loseReplyTo('recordEvent', 'lost-keyed');
  expect((await keyed('lost-keyed')).status).toBe(503);
  const retried = await eventually('the retry answered', 5000, async () => {
    const { status } = await keyed('lost-keyed');
    return status === 503 ? undefined : status;
  });
  expect(retried).toBe(202);
  expect(await total('lost-keyed')).toBe(1);
  r.child.kill('SIGTERM');
  expect(await r.exited).toBe(0);
}

/**
 * One node of a Cluster killed under concurrent events and started again: every event is answered
 * 201 or 503 (not 500), each user's total is what was acknowledged plus at most the events
 * answered 503, and the workers do not log an error per job that fails on the node. Before, a command whose node connection closed was sent again after a failover
 * delay, bouncing between the nodes until "Too many Cluster redirections" (500).
 */
async function clusterNodeUnderLoad(): Promise<void> {
  const cluster = await within('the Cluster started', 30_000, startRedisCluster({ persistent: true }));
  cleanups.push(() => cluster.stop());
  const prefix = `o${randomBytes(5).toString('hex')}`;
  prefixes.push(prefix);
  const r = run(['start'], {
    REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
    PORT: '0', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: ADMIN_KEY,
  });
  const port = await portOf(r, 'processes');
  await eventually('ready', HANG_MS, async () => {
    if (r.child.exitCode !== null) throw new Error(`exited early: ${r.lines().join('\n')}`);
    return (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200 ? true : undefined;
  });
  expect((await post(port, '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }])).status).toBe(201);

  let running = true;
  const users = Array.from({ length: 12 }, (_, i) => ({ id: `load-${i}`, acked: 0, unavailable: 0, other: [] as string[] }));
  const load = Promise.all(users.map(async (u) => {
    while (running) {
      try {
        const res = await event(port, u.id);
        if (res.status === 201) u.acked++;
        else if (res.status === 503) { u.unavailable++; await sleep(20); }
        else u.other.push(`${res.status} ${JSON.stringify(res.body)}`);
      } catch (err) {
        u.other.push(String(err));
      }
    }
  }));
  await sleep(500);
  await within('a node killed', 10_000, cluster.kill(1));
  await sleep(2500);
  await within('the node back, cluster_state ok', 30_000, cluster.restart());
  await sleep(500);
  running = false;
  // Each request has 5 s at most (post): the load ends within that once stopped.
  await within('the load stopped', 10_000, load);
  expect(users.flatMap((u) => u.other).slice(0, 5)).toEqual([]);
  expect(users.reduce((n, u) => n + u.unavailable, 0)).toBeGreaterThan(0);
  for (const u of users) {
    const res = await fetch(`http://127.0.0.1:${port}/api/users/${u.id}/metrics/lessons`, { headers: { 'x-api-key': ADMIN_KEY } });
    const { current } = (await res.json()) as { current: number };
    expect(current, u.id).toBeGreaterThanOrEqual(u.acked);
    expect(current, u.id).toBeLessThanOrEqual(u.acked + u.unavailable);
  }
  // Nothing logs an error while the node is down: its 503s are refusals (info), the outage is logged
  // as a warning. Before, the log drain's job failed on it every second, each failure an error line
  // with its stack, and each 503 was an error line of its own.
  expect(r.lines().some((l) => /"msg":"request refused"/.test(l) && /"status":503/.test(l))).toBe(true);
  const errors = r.lines().filter((l) => /"level":50/.test(l));
  expect(errors.map((l) => l.slice(0, 300))).toEqual([]);
  r.child.kill('SIGTERM');
  expect(await within('exit after SIGTERM', 15_000, r.exited)).toBe(0);
}

/**
 * An event whose phase 1 ran and whose phase 2 (its leaderboard placement) was lost with the
 * connection: 201 (it counts; a 503 had clients send it again), and once Redis is back the user
 * stands on the board with the event's total. Before, it answered 503, the retry with the same
 * key was a replay (202) that placed nothing, and the board missed the event until the user's
 * next one.
 */
async function lostPlacement(): Promise<void> {
  const { proxy, port, r } = await apiBehindProxy();
  expect((await post(port, '/admin/v1/leaderboards', [{ name: 'Top', key: 'top', rankBy: 'metric', metricKey: 'lessons', maxParticipants: 10, status: 'active' }])).status).toBe(201);
  expect((await event(port, 'warm')).status).toBe(201);
  const keyed = () => fetch(`http://127.0.0.1:${port}/api/metrics/lessons/event`, {
    method: 'POST', body: JSON.stringify({ user: { id: 'lost-rank' }, value: 1 }), signal: AbortSignal.timeout(5000),
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'idempotency-key': 'lost-rank-key' },
  });
  proxy.loseCommand('leaderboardRank', 'lost-rank');
  const lost = await keyed();
  expect(lost.status).toBe(201);
  expect(((await lost.json()) as { total: number; leaderboards: object })).toMatchObject({ total: 1, leaderboards: {} });
  const standing = await eventually('the user on the board', 3000, async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/users/lost-rank/leaderboards/top`, { headers: { 'x-api-key': ADMIN_KEY } });
    const { value } = (await res.json()) as { value: number | null };
    return value === null ? undefined : value;
  }).catch((err: Error) => err.message);
  expect(standing).toBe(1);
  r.child.kill('SIGTERM');
  expect(await r.exited).toBe(0);
}

/**
 * An event that moves its user to another breakdown group, whose departure from the old group is
 * lost with the connection: 201 (it counts), and once Redis answers the user has left the old
 * group and stands in the new one. Before, it answered 503 and a retry changed nothing: the user
 * stayed ranked in both groups. So does a PATCH /users whose departure is lost: 200, then gone.
 */
async function lostDeparture(): Promise<void> {
  const { proxy, port, r } = await apiBehindProxy();
  const attribute = await post(port, '/admin/v1/attributes', [{ name: 'Team', key: 'team', type: 'user' }]);
  expect(attribute.status).toBe(201);
  const team = (attribute.body.created as { id: string }[])[0].id;
  expect((await post(port, '/admin/v1/leaderboards', [{ name: 'Teams', key: 'teams', rankBy: 'metric', metricKey: 'lessons', breakdownAttributes: [team], status: 'active' }])).status).toBe(201);
  const move = (user: string, to: string) => post(port, '/api/metrics/lessons/event', { user: { id: user, attributes: { team: to } }, value: 1 });
  const members = async (group: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/leaderboards/teams?userAttributes=team:${group}`, { headers: { 'x-api-key': ADMIN_KEY } });
    return ((await res.json()) as { rankings: { userId: string }[] }).rankings.map((x) => x.userId).sort();
  };
  expect((await move('mover', 'red')).status).toBe(201);
  expect((await move('patched', 'red')).status).toBe(201);
  expect(await members('red')).toEqual(['mover', 'patched']);

  // leaderboardLeave is a script: an EVAL of its text on a connection's first use, then an EVALSHA.
  const script = loadScripts().find((x) => x.name === 'leaderboardLeave')!;
  const leave = [script.sha, script.lua.slice(0, 60)];
  proxy.loseCommand(leave, 'mover');
  const moved = await move('mover', 'blue');
  expect(moved.status, JSON.stringify(moved.body)).toBe(201);
  expect(moved.body).toMatchObject({ total: 2, leaderboards: {} });
  expect(await eventually('the mover out of red', 5000, async () => ((await members('red')).includes('mover') ? undefined : true))).toBe(true);
  expect(await eventually('the mover in blue', 5000, async () => ((await members('blue')).includes('mover') ? true : undefined))).toBe(true);

  proxy.loseCommand(leave, 'patched');
  const patched = await fetch(`http://127.0.0.1:${port}/api/users/patched`, {
    method: 'PATCH', body: JSON.stringify({ attributes: { team: 'green' } }), signal: AbortSignal.timeout(5000),
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
  });
  expect(patched.status).toBe(200);
  expect(await eventually('the patched user out of red', 5000, async () => ((await members('red')).length === 0 ? true : undefined))).toBe(true);
  r.child.kill('SIGTERM');
  expect(await r.exited).toBe(0);
}

describe.skipIf(noRedisServer !== null).concurrent('laurel while Redis is down', () => {
  it('single Redis: an event whose leaderboard placement is lost with the connection is answered 201 and placed once Redis is back', async () => {
    await lostPlacement();
  }, HANG_MS * 2);

  it('single Redis: an event or a PATCH whose departure from the old breakdown group is lost with the connection leaves it once Redis is back', async () => {
    await lostDeparture();
  }, HANG_MS * 2);

  // About 10 s alone (the outages below about 15 s); beside the whole suite a 3-node Cluster
  // fsyncing every write, `laurel start` and the load share two cores with the other file running:
  // each phase has a deadline of its own, the test's bound is for a hang.
  it('Redis Cluster: one node killed under load, every event answered 201 or 503, totals as acknowledged', async () => {
    await clusterNodeUnderLoad();
  }, HANG_MS * 2);

  it('single Redis: an event whose reply is lost with the connection is answered 503 and counted once', async () => {
    await lostReply();
  }, HANG_MS * 2);

  it('single Redis: 503, quiet and idle while down, recovers by itself, stops on SIGTERM', async () => {
    await outage(await singleRedis());
  }, HANG_MS * 2);

  it('Redis Cluster: 503, quiet and idle while down, recovers by itself, stops on SIGTERM', async () => {
    await outage(await clusterRedis());
  }, HANG_MS * 2);
});
