/**
 * What the scale benches (bench/scale-board.ts, bench/scale-league.ts) share: a laurel variant
 * kept across rounds (a board generated once, its prefix, key and database kept) or started fresh
 * each round, and one measured pass of the event load (bench/wrk/event.lua, the users of the round)
 * with reads at a fixed rate beside it, their latency timed from each read's scheduled time by a
 * client of their own (bench/open-loop-client.ts).
 */
import { loadavg } from 'node:os';
import { fetch } from 'undici';
import { childPids, microsPerTick, ticks } from './cpu.js';
import { runOpenLoop, type OpenLoopResult } from './open-loop.js';
import { freePort, stop, waitReady } from './processes.js';
import { createDatabase, dropDatabase } from './postgres.js';
import { busiest, commandStats, deleteByPrefix } from './redis.js';
import { ROOT, type Session, type Variant } from './variants.js';
import { runWrk } from './wrk.js';
import { lastSnapshotId, SNAPSHOT_ENV, snapshotLine, waitSnapshot } from './snapshot-wait.js';
import pg from 'pg';
import { Redis, type Cluster } from 'ioredis';

export const HOST = '127.0.0.1';
export const USERS = 100_000;

export const log = (s: string): void => { process.stdout.write(`${s}\n`); };

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number ≥ 0, got "${raw}"`);
  return n;
}

/** A signal that SIGINT or SIGTERM aborts (the runner's finally then stops what it started). */
export function abortOnSignals(): AbortSignal {
  const aborted = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => aborted.abort());
  return aborted.signal;
}

/** The settings every scale bench's passes share. */
export const ROUNDS = Math.max(1, envNumber('BENCH_ROUNDS', 3));
export const DURATION_S = Math.max(1, envNumber('BENCH_DURATION', 8));
export const WARMUP_S = envNumber('BENCH_WARMUP', 2);
export const CONNECTIONS = Math.max(1, envNumber('BENCH_CONNECTIONS', 64));

export const tickUs = (): number => microsPerTick() ?? 10_000;

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const round1 = (x: number): number => Math.round(x * 10) / 10;
export const round2 = (x: number): number => Math.round(x * 100) / 100;

/** A laurel server under the bench: its session, and where its keys and rows are. */
export interface Running {
  session: Session;
  port: number;
  baseUrl: string;
  database: { name: string; url: string };
  /** The seconds of the snapshot the workers took as they started (null: none seen, or none finished whole). */
  snapshotS: number | null;
  /** What the wait for that snapshot saw, for the log (bench/snapshot-wait.ts snapshotLine). */
  snapshot: string;
}

export interface Launcher {
  redisUrl: string;
  postgres: pg.Client;
  databaseServer: string;
  /** Settings added to the variant's own (REDIS_CLUSTER_NODES for a Cluster). */
  env?: Record<string, string>;
}

/**
 * Starts a laurel variant. `keep` (a variant kept across rounds) names its prefix, key and
 * database from its first start, and prepares it only then; otherwise everything is fresh. Answers
 * once the workers' first snapshot finished (SNAPSHOT_ENV), with its seconds.
 */
export async function launch(variant: Variant, at: Launcher, signal: AbortSignal, keep?: { prefix: string; apiKey: string; database: { name: string; url: string } }): Promise<Running> {
  const port = await freePort();
  const database = keep?.database ?? await createDatabase(at.postgres, at.databaseServer);
  const before = keep ? await lastSnapshotId(database.url) : 0;
  const env = { ...SNAPSHOT_ENV, ...at.env, ...(keep ? { LAUREL_PREFIX: keep.prefix, LAUREL_ADMIN_KEY: keep.apiKey } : {}) };
  const session = variant.launch({ host: HOST, port, redisUrl: at.redisUrl, databaseUrl: database.url, env });
  if (keep) {
    session.prefix = keep.prefix;
    session.apiKey = keep.apiKey;
    if (session.drain) session.drain.prefix = keep.prefix;
  }
  await waitReady(session.child, session.readyUrl, signal, 180_000);
  if (!keep) await variant.prepare!(session, signal);
  const snapshot = await waitSnapshot(database.url, before, signal);
  return { session, port, baseUrl: `http://${HOST}:${port}`, database, snapshotS: snapshot?.seconds ?? null, snapshot: snapshotLine(snapshot) };
}

/**
 * Stops a variant; a fresh one's database goes with it, and its keys when `redis` is given (a
 * Cluster of the bench's own is stopped whole instead).
 */
export async function shutdown(r: Running, at: Launcher, redis: Redis | null, fresh: boolean): Promise<void> {
  await stop(r.session.child);
  if (r.session.workers) await stop(r.session.workers);
  if (fresh) {
    if (redis !== null) await deleteByPrefix(redis, r.session.prefix!);
    await dropDatabase(at.postgres, r.database.name);
  }
}

/** An admin or application GET answered as JSON (throws on another status than `expect`). */
export async function getJson<T>(r: Running, path: string, expect = 200): Promise<T> {
  const res = await fetch(`${r.baseUrl}${path}`, { headers: { 'x-api-key': r.session.apiKey } });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`GET ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function sendJson<T>(r: Running, method: string, path: string, body: unknown, expect: number): Promise<T> {
  const res = await fetch(`${r.baseUrl}${path}`, { method, headers: { 'x-api-key': r.session.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Reads at a fixed rate while the load runs, each timed from its scheduled send. */
export interface Reads {
  /** The path of the i-th read. */
  path(i: number): string;
  perSecond: number;
  /** What the body of an answer that counts as the read asked matches (a 2xx: a rank and percentile, say). */
  expect?: RegExp;
}

/** The reads of a pass: how many answered, how many failed, their latency, the client's own delay and the latency from the send (p99). */
export interface ReadsResult {
  count: number;
  failed: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  sendDelayP99Ms: number | null;
  /** The reads' p99 from the moment the client sent each (its own delay before sending left out). */
  fromSendP99Ms: number | null;
}

export interface PassResult {
  reqPerS: number;
  p99Ms: number;
  non2xx: number;
  loadAverage: number;
  /** CPU µs per event: the api (and workers), Redis. */
  cpuUs: { api: number; redis: number };
  reads: ReadsResult | null;
}

/**
 * CPU ticks of a variant's laurel: its process, its api processes when it runs several (the
 * primary's children, the workers in the primary) and its workers' process when apart.
 */
function laurelTicks(r: Running): number {
  const pid = r.session.child.proc.pid;
  const children = pid === undefined ? [] : childPids(pid);
  return ticks(pid) + children.reduce((n, c) => n + ticks(c), 0) + ticks(r.session.workers?.proc.pid);
}

/** The users of a pass: `u<round>-<n>`, new to every variant in each round. */
export const userPrefixOf = (round: number): string => `u${round}-`;

/**
 * One pass: a warm-up of `warmupS`, then `durationS` measured, wrk's event load on the round's
 * users, and the reads (if any) during the measured part. `redisPids`: the Redis processes whose
 * CPU counts.
 */
export async function pass(r: Running, o: { round: number; tag: string; warmupS: number; durationS: number; connections: number; redisPids: number[]; reads?: Reads }, signal: AbortSignal): Promise<PassResult> {
  const wrk = (durationS: number, tag: string) => runWrk({
    url: r.session.eventUrl, script: `${ROOT}bench/wrk/event.lua`,
    scriptArgs: [r.session.apiKey, String(USERS), '0.1', '20000', tag, userPrefixOf(o.round)],
    threads: 2, connections: o.connections, durationS, timeoutS: 5,
  }, signal);
  if (o.warmupS > 0) await wrk(o.warmupS, `${o.tag}-warm`);
  const before = { api: laurelTicks(r), redis: o.redisPids.reduce((n, p) => n + ticks(p), 0) };
  const loadAverage = loadavg()[0];
  const reading = o.reads ? readsBeside(r, o.reads, o.durationS, `${o.tag}-reads`, signal) : null;
  const w = await wrk(o.durationS, o.tag);
  const reads = reading ? await reading : null;
  const after = { api: laurelTicks(r), redis: o.redisPids.reduce((n, p) => n + ticks(p), 0) };
  const us = tickUs();
  const non2xx = Object.entries(w.statuses).filter(([s]) => !s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  return {
    reqPerS: Math.round(w.requests / (w.durationUs / 1e6)),
    p99Ms: round2(w.latencyUs.p99 / 1000),
    non2xx,
    loadAverage: round2(loadAverage),
    cpuUs: { api: round1(((after.api - before.api) * us) / w.requests), redis: round1(((after.redis - before.redis) * us) / w.requests) },
    reads,
  };
}

/** An open-loop pass: the events at a fixed rate (their own latencies), the reads beside them. */
export interface OpenPassResult {
  /** The share of the peak asked for, and the events a second it makes (0: the reads alone). */
  fraction: number;
  rate: number;
  events: { achievedRate: number; p50Ms: number | null; p99Ms: number | null; unanswered: number; non2xx: number; waitedForConnection: number } | null;
  loadAverage: number;
  /** CPU µs an event; with the reads alone, CPU µs a read (where a read's time goes). */
  cpuUs: { api: number; redis: number } | null;
  reads: ReadsResult;
  /** On a single Redis: the commands that took it the most time over the pass (INFO commandstats). */
  commands: { command: string; calls: number; usec: number }[] | null;
}

/**
 * One open-loop pass: `fraction` of `peak` events a second (bench/open-loop-client.ts, each
 * timed from its scheduled send) for `durationS`, on users new to the pass (`o<round>.<n>-`), and
 * the reads beside them over the same seconds; with `fraction` 0, the reads alone.
 */
export async function openPass(
  r: Running, o: { round: number; n: number; tag: string; fraction: number; peak: number; durationS: number; connections: number; redisPids: number[]; reads: Reads; admin: Redis | Cluster },
  signal: AbortSignal,
): Promise<OpenPassResult> {
  const rate = Math.round(o.fraction * o.peak);
  const statsBefore = o.admin instanceof Redis ? await commandStats(o.admin) : null;
  const url = new URL(r.session.eventUrl);
  const before = { api: laurelTicks(r), redis: o.redisPids.reduce((n, p) => n + ticks(p), 0) };
  const loadAverage = loadavg()[0];
  const reading = readsBeside(r, o.reads, o.durationS, `${o.tag}-reads`, signal);
  const result: OpenLoopResult | null = rate <= 0 ? null : await runOpenLoop({
    host: url.hostname, port: Number(url.port), path: url.pathname, apiKey: r.session.apiKey,
    rate, durationS: o.durationS, connections: o.connections, users: USERS, userPrefix: `o${o.round}.${o.n}-`,
    idempotencyShare: 0.1, idempotencyPool: 20_000, tag: o.tag, timeoutS: 5,
  }, signal);
  const reads = await reading;
  const after = { api: laurelTicks(r), redis: o.redisPids.reduce((n, p) => n + ticks(p), 0) };
  const commands = statsBefore === null || !(o.admin instanceof Redis) ? null : busiest(statsBefore, await commandStats(o.admin), 6);
  const us = tickUs();
  const events = result === null ? null : {
    achievedRate: Math.round(result.achievedRate), p50Ms: result.latencyMs.p50, p99Ms: result.latencyMs.p99, unanswered: result.unanswered,
    non2xx: Object.entries(result.statuses).filter(([s]) => !s.startsWith('2')).reduce((n, [, c]) => n + c, 0),
    waitedForConnection: result.waitedForConnection,
  };
  const per = result === null ? reads.count : result.completed;
  const cpuUs = per === 0 ? null : { api: round1(((after.api - before.api) * us) / per), redis: round1(((after.redis - before.redis) * us) / per) };
  return { fraction: o.fraction, rate, events, loadAverage: round2(loadAverage), cpuUs, reads, commands };
}

/** Connections of the reads' client: at 50 reads a second, a read that finds none free is the server's doing. */
const READ_CONNECTIONS = 16;

/**
 * The reads beside a pass, for `durationS` seconds: bench/open-loop-client.ts in a process of its
 * own (as the events' open loop), each read sent at its scheduled time on a keep-alive connection
 * and timed from then, the client's own delay apart. A read fails when it is not answered, not a
 * 2xx, or (with `expect`) its body does not match.
 */
async function readsBeside(r: Running, reads: Reads, durationS: number, tag: string, signal: AbortSignal): Promise<ReadsResult> {
  const url = new URL(r.baseUrl);
  const count = Math.max(1, Math.floor(reads.perSecond * durationS));
  const result = await runOpenLoop({
    host: url.hostname, port: Number(url.port), path: '', apiKey: r.session.apiKey,
    rate: reads.perSecond, durationS, connections: READ_CONNECTIONS, users: 0, idempotencyShare: 0, idempotencyPool: 1, tag, timeoutS: 5,
    gets: Array.from({ length: count }, (_, i) => reads.path(i)), ...(reads.expect !== undefined && { expect: reads.expect.source }),
  }, signal);
  const ok = Object.entries(result.statuses).filter(([s]) => s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  return {
    count: result.completed,
    failed: result.completed - ok + result.unanswered + (result.unexpected ?? 0),
    p50Ms: result.latencyMs.p50, p99Ms: result.latencyMs.p99, maxMs: result.latencyMs.max,
    sendDelayP99Ms: result.sendDelayMs.p99, fromSendP99Ms: result.latencyFromSendMs.p99,
  };
}
