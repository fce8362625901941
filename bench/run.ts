/**
 * The bench runner (`npm run bench`): in each of BENCH_ROUNDS rounds, each named variant of the
 * metric-event workload alone, one after another: its server started (a child process, on a free
 * port, with its workers where it has them), prepared, warmed up (discarded), measured for
 * BENCH_DURATION seconds of wrk, given its open-loop pass, then stopped and its Redis keys (and its
 * database) deleted before the next starts. Then print and write the report (medians over rounds,
 * every round's figures, per-round ratios).
 * Only one variant runs at a time: they share the machine's cores, and a variant left running
 * while another is measured is not idle (its workers pass over the log every second, snapshot,
 * send). The order rotates from round to round (A B C, B C A, C A B, ...), so no variant is
 * always first or last, and the machine's drift over a run falls on each in turn.
 *
 * Environment (bench/README.md):
 *   BENCH_ROUNDS       rounds, each measuring every selected variant once (3)
 *   BENCH_DURATION     seconds measured per variant and round (8)
 *   BENCH_WARMUP       seconds of discarded warm-up per variant and round (2; 0 skips it)
 *   BENCH_CONNECTIONS  open connections (64)
 *   BENCH_THREADS      wrk threads (2)
 *   BENCH_VARIANTS     comma-separated subset of variant names (all)
 *   BENCH_BASELINE     a git revision: each selected laurel variant also runs as of it (<name>@base),
 *                      in the same rounds, with the ratio of the two per round (bench/baseline.ts)
 *   BENCH_OPEN_DURATION seconds of each open-loop pass, at a quarter and at half the round's peak (8; 0 skips them)
 *   BENCH_OPEN_LOOP    the variants that get them (trivial-script,laurel-api,laurel-system,laurel-system-2,laurel-split,laurel-batch,
 *                      steady-system; `all`, or `none`)
 *   BENCH_STEADY_USERS the steady-state population's users (1,000,000), BENCH_STEADY_DAYS its days of history (7)
 *   BENCH_DRAIN_SAMPLE_MS how often the drain's backlog is read, ms (250)
 *   BENCH_CPU_PROFILE  1: each variant's processes run with node's --cpu-prof, their costliest functions reported
 *                      (bench/cpu-profile.ts)
 *   REDIS_URL          Redis for trivial-script and the laurel variants (redis://127.0.0.1:6379)
 *   DATABASE_URL       Postgres of laurel-system, laurel-system-2 and laurel-split (postgres://postgres@127.0.0.1:5432/postgres)
 *
 * A variant whose workers run (laurel-system, laurel-system-2, laurel-split) is measured with its workers running:
 * during its load and after it the runner reads the event log drain's backlog (bench/drain.ts),
 * waits until the drain has copied the load's events (so its CPU per event includes the drain's
 * tail), and reads the CPU of each process, Postgres's too (bench/cpu.ts). After its closed-loop
 * load, a variant of BENCH_OPEN_LOOP gets open-loop passes at a quarter and at half its req/s in the round
 * (bench/open-loop.ts).
 *
 * The steady variants (steady-system, steady-system-hooks, steady-league, steady-uncapped) run on a
 * population made before the first round (bench/steady-population.ts) on a redis-server of its own,
 * shared by every steady variant and round and deleted at the end; their load is
 * bench/wrk/steady.lua's. trivial-script also runs, after each round, at the
 * open-loop rates of laurel-system and steady-system (measureReferences).
 *
 * Only a run of every variant with the default rounds, durations, connections and threads
 * writes results/latest.* and the README's table; any other run writes results/partial.*.
 */
import { waitForWebhooks, webhooksReceived } from './webhook-receiver.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { readProfiles, summed } from './cpu-profile.js';
import type { Redis } from 'ioredis';
import { BaselineError, prepareBaseline, twinOf, type Baseline } from './baseline.js';
import type pg from 'pg';
import { addTicks, childPids, isLocalRedis, perRequest, postgresTicks, sample, ZERO_SAMPLE, type CpuSample, type Pids } from './cpu.js';
import { DrainMonitor, evalMicros, mergeDrainTurns, SAMPLE_MS, type DrainTurn } from './drain.js';
import { BATCH_CAP_S, BatchMonitor, batchLine, mergeBatchTurns, type BatchTurn } from './batches.js';
import { runOpenLoop } from './open-loop.js';
import { connectPostgres, countRows, createDatabase, dropDatabase, postgresVersion, PostgresUnavailableError } from './postgres.js';
import { freePort, portAnswers, stop, stopAll, waitReady } from './processes.js';
import { commandStats, connectRedis, deleteByPrefix, redisVersion, RedisUnavailableError } from './redis.js';
import { commandsPerRequest, scriptsPerRequest, slowlogEverything, slowlogRead, type CommandShare, type CommandStats } from './redis-profile.js';
import {
  buildReport, mergeSlices, ratioName, renderMarkdown, roundRatios, TARGETS, variantResult, writeReport,
  type Machine, type OpenLoopPass, type RoundResult, type Settings, type VariantResult,
} from './report.js';
import { baselineTwin, DEFAULT_DATABASE_URL, EVENT_PATH, gitCommit, ROOT, VARIANTS, type Session, type Variant } from './variants.js';
import { acceptedEvents, refusedBacklogFull, runWrk, WRK_MISSING, wrkVersion, type WrkResult } from './wrk.js';
import { makePopulation, type Population } from './steady-population.js';
import { startOwnRedis } from './own-redis.js';
import { lastSnapshotId, SNAPSHOT_ENV, snapshotLine, waitSnapshot } from './snapshot-wait.js';
import { STEADY_NEW_SHARE, STEADY_SKEW } from './steady-draw.js';
import { steadyOutcomes, type SteadyOutcomes } from './steady-outcomes.js';
import type { OpenLoopOptions } from './open-loop.js';

const HOST = '127.0.0.1';
const WRK_SCRIPT = `${ROOT}bench/wrk/event.lua`;
/** The batch variants' (Session.batch): `batch` events a request. */
const WRK_BATCH_SCRIPT = `${ROOT}bench/wrk/batch.lua`;
/** The steady variants' (Variant.steady): returning users of the population, a share of new ones. */
const WRK_STEADY_SCRIPT = `${ROOT}bench/wrk/steady.lua`;

/**
 * The variants whose open-loop rates trivial-script is also run at, after the round (the same
 * rates in the same run: what laurel's latency is beside the floor's at that load).
 */
const REFERENCE_RATES_OF = ['laurel-system', 'steady-system'];

/** The open-loop passes of a variant, as shares of its peak: a quarter, then half. */
const OPEN_LOOP_SHARES = [0.25, 0.5];

/** The steady-state population of this run (made before the first round when a steady variant is selected). */
let population: Population | null = null;

/** A Redis the bench measures on: its URL, a connection, and its process (null: not on this machine). */
interface RedisAt {
  url: string;
  client: Redis;
  pid: number | null;
}

/**
 * The population's own redis-server (bench/own-redis.ts): its millions of keys never reach the
 * shared Redis, so the launch-day variants' key walks (the snapshot's, the startup check's SCAN
 * over the whole keyspace) do not pay for them, and a steady variant's Redis CPU is its own.
 */
let populationRedis: (RedisAt & { stop(): Promise<void> }) | null = null;

/**
 * The seed of a steady load (bench/random.ts): fixed by the variant, the round and the pass, so a
 * run sends what any run sends, and no two passes the same events.
 */
function seedOf(variant: string, round: number, pass: string): number {
  let h = 0x811c9dc5;
  for (const c of `${variant}|${round}|${pass}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

class UsageError extends Error {}

/** Aborted by the first SIGINT/SIGTERM; every wait of the run listens to it. */
const controller = new AbortController();

function seconds(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+)s?$/.exec(raw.trim());
  if (!m || Number(m[1]) < min) throw new UsageError(`${name} must be a whole number of seconds ≥ ${min}, got "${raw}"`);
  return Number(m[1]);
}

function count(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

/**
 * The published setup: only a run with these (and every variant) replaces results/latest.* and
 * the README's table. Short passes, repeated over rounds: three rounds of 8 s per variant say more
 * on a noisy machine than one 30 s pass; a full run of every variant, with the starts, the drain's
 * tails and the open-loop passes, takes about half an hour.
 */
const DEFAULTS = { rounds: 3, warmupS: 2, durationS: 8, connections: 64, threads: 2, openLoopS: 8 };

/**
 * The open loop's variants by default: the floor, and the full scenario with and without the
 * workers (each pass adds BENCH_OPEN_DURATION seconds to a round).
 */
const DEFAULT_OPEN_LOOP = ['trivial-script', 'laurel-api', 'laurel-system', 'laurel-system-2', 'laurel-split', 'laurel-batch', 'steady-system'];

/** The longest wait for a drain to finish after a load (then the run goes on, and says so). */
const DRAIN_CAP_S = 30;

function openLoopVariants(): string[] {
  const raw = (process.env.BENCH_OPEN_LOOP ?? '').trim();
  if (raw === '') return DEFAULT_OPEN_LOOP;
  if (raw === 'none') return [];
  if (raw === 'all') return VARIANTS.map((v) => v.name);
  const names = raw.split(',').map((x) => x.trim()).filter(Boolean);
  const unknown = names.filter((n) => !VARIANTS.some((v) => v.name === n));
  if (unknown.length > 0) throw new UsageError(`BENCH_OPEN_LOOP: unknown ${unknown.join(', ')}; known: all, none, ${VARIANTS.map((v) => v.name).join(', ')}`);
  return names;
}

function loadSettings(): Settings {
  const threads = count('BENCH_THREADS', DEFAULTS.threads, 1);
  const durationS = seconds('BENCH_DURATION', DEFAULTS.durationS, 1);
  return {
    rounds: count('BENCH_ROUNDS', DEFAULTS.rounds, 1),
    threads,
    // wrk refuses fewer connections than threads.
    connections: count('BENCH_CONNECTIONS', DEFAULTS.connections, threads),
    warmupS: seconds('BENCH_WARMUP', DEFAULTS.warmupS, 0),
    durationS,
    timeoutS: 5,
    users: 100_000,
    idempotencyShare: 0.1,
    // Small enough that keys repeat within a run (so replays, HTTP 202, are loaded too), large
    // enough that most keyed requests are first uses at laurel's rate on this machine.
    idempotencyPool: 20_000,
    redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    baseline: null,
    openLoopS: seconds('BENCH_OPEN_DURATION', DEFAULTS.openLoopS, 0),
    openLoopVariants: openLoopVariants(),
    drainCapS: DRAIN_CAP_S,
    drainSampleMs: count('BENCH_DRAIN_SAMPLE_MS', SAMPLE_MS, 50),
    databaseUrl: process.env.DATABASE_URL || DEFAULT_DATABASE_URL,
    cpuProfile: process.env.BENCH_CPU_PROFILE === '1',
    steady: {
      users: count('BENCH_STEADY_USERS', 1_000_000, 1000),
      days: count('BENCH_STEADY_DAYS', 7, 2),
      newShare: STEADY_NEW_SHARE,
      skew: STEADY_SKEW,
      made: null,
    },
  };
}

/** Why a run is not the published setup (so it writes `partial`); empty when it is. */
function partialReasons(settings: Settings, variants: Variant[]): string[] {
  const reasons: string[] = [];
  if (settings.baseline !== null) reasons.push(`BENCH_BASELINE=${settings.baseline.revision} adds the baseline's variants`);
  else if (variants.length !== VARIANTS.length) reasons.push('BENCH_VARIANTS selects a subset');
  const differs: [string, keyof typeof DEFAULTS][] = [
    ['BENCH_ROUNDS', 'rounds'], ['BENCH_WARMUP', 'warmupS'], ['BENCH_DURATION', 'durationS'],
    ['BENCH_CONNECTIONS', 'connections'], ['BENCH_THREADS', 'threads'],
  ];
  for (const [env, key] of differs) {
    if (settings[key] !== DEFAULTS[key]) reasons.push(`${env}=${settings[key]} (default ${DEFAULTS[key]})`);
  }
  if (settings.drainSampleMs !== SAMPLE_MS) reasons.push(`BENCH_DRAIN_SAMPLE_MS=${settings.drainSampleMs} (default ${SAMPLE_MS})`);
  if (settings.cpuProfile === true) reasons.push('BENCH_CPU_PROFILE=1 runs every process under the profiler');
  if (settings.openLoopS !== DEFAULTS.openLoopS) reasons.push(`BENCH_OPEN_DURATION=${settings.openLoopS} (default ${DEFAULTS.openLoopS})`);
  if (settings.openLoopVariants.join(',') !== DEFAULT_OPEN_LOOP.join(',')) reasons.push(`BENCH_OPEN_LOOP=${settings.openLoopVariants.join(',') || 'none'}`);
  if (settings.steady?.users !== 1_000_000) reasons.push(`BENCH_STEADY_USERS=${settings.steady?.users} (default 1000000)`);
  if (settings.steady?.days !== 7) reasons.push(`BENCH_STEADY_DAYS=${settings.steady?.days} (default 7)`);
  return reasons;
}

/** The selected variants, each laurel one followed by its baseline twin when there is a baseline. */
function selectVariants(baseline: Baseline | null): Variant[] {
  const selected = selectedVariants();
  if (baseline === null) return selected;
  const twins = selected.flatMap((v) => {
    const twin = baselineTwin(v.name, baseline.root, baseline.commit);
    return twin === null ? [v] : [v, twin];
  });
  if (twins.length === selected.length) throw new UsageError('BENCH_BASELINE: select a laurel variant in BENCH_VARIANTS to compare');
  return twins;
}

function selectedVariants(): Variant[] {
  const raw = process.env.BENCH_VARIANTS;
  if (!raw) return VARIANTS;
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !VARIANTS.some((v) => v.name === n));
  if (unknown.length > 0) {
    throw new UsageError(`BENCH_VARIANTS: unknown ${unknown.join(', ')}; known: ${VARIANTS.map((v) => v.name).join(', ')}`);
  }
  return VARIANTS.filter((v) => names.includes(v.name));
}

/** Round `index` (0-based) runs the variants rotated left by `index`: A B C, B C A, C A B, ... */
function rotated<T>(list: T[], index: number): T[] {
  const k = list.length === 0 ? 0 : index % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

async function machineFacts(redis: Redis, wrk: string, postgres: pg.Client | null): Promise<Machine> {
  const cpuList = cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    loadAverageAtStart: loadavg(),
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    redis: await redisVersion(redis),
    redisKeysAtStart: await redis.dbsize(),
    postgres: postgres === null ? null : await postgresVersion(postgres),
    wrk,
    commit: gitCommit(),
  };
}

/**
 * How fast the machine runs right now: the milliseconds a fixed loop of integer arithmetic takes
 * (the best of three, so a single preemption does not count). On the shared development
 * machine a loop like it has run two thirds slower from one minute to the next (0.62 to 1.02 s):
 * a run's ratios are comparable with another run's only as far as these are.
 */
function speedProbe(): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const started = process.hrtime.bigint();
    let x = 0;
    for (let i = 0; i < 100_000_000; i++) x = (x + (i % 7)) | 0;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // `x` is used, so the loop is not optimised away.
    if (x === 42) best = -1;
    best = Math.min(best, ms);
  }
  return best;
}

/** Redis's pid when it runs on this machine (its CPU time is then read from /proc), else null. */
async function localRedisPid(redis: Redis): Promise<number | null> {
  const m = /process_id:(\d+)/.exec(await redis.info('server'));
  return m !== null && isLocalRedis(Number(m[1])) ? Number(m[1]) : null;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * One wrk pass against a session: the same script and arguments for every variant. `tag` names
 * the pass's idempotency keys: the warm-up has its own, so the measured load's share of replays is
 * that of one pass of BENCH_DURATION seconds, whatever the warm-up.
 */
async function load(settings: Settings, session: Session, durationS: number, tag: string, signal: AbortSignal, seed: number | null = null): Promise<WrkResult> {
  const batch = session.batch;
  if (seed !== null && settings.steady) {
    const s = settings.steady;
    return runWrk({
      url: session.eventUrl, script: WRK_STEADY_SCRIPT,
      scriptArgs: [session.apiKey, String(s.users), String(s.newShare), String(s.skew), tag, String(seed)],
      threads: settings.threads, connections: settings.connections, durationS, timeoutS: settings.timeoutS,
    }, signal);
  }
  const args = [session.apiKey, String(settings.users), String(settings.idempotencyShare), String(settings.idempotencyPool), tag];
  const r = await runWrk({
    url: session.eventUrl,
    script: batch === undefined ? WRK_SCRIPT : WRK_BATCH_SCRIPT,
    scriptArgs: batch === undefined ? args : [...args, String(batch), String(session.batchPerUser ?? 1)],
    threads: settings.threads,
    connections: settings.connections,
    durationS,
    timeoutS: settings.timeoutS,
  }, signal);
  if (batch === undefined) return r;
  // A batch variant counts events: each request carried `batch` (its latency stays a request's),
  // and only a batch accepted (202) is applied, not one the backlog gate refused.
  const statuses = Object.fromEntries(Object.entries(r.statuses).map(([status, n]) => [status, n * batch]));
  return { ...r, requests: acceptedEvents(statuses), statuses };
}

const tagOf = (what: string) => `${what}-${Date.now().toString(36)}`;

interface Running {
  variant: Variant;
  session: Session;
  port: number;
  warm: WrkResult | null;
  slices: WrkResult[];
  /** CPU ticks of the measured slices (and their drains' tails), summed (null: not readable). */
  ticks: CpuSample;
  /** The runner's own CPU µs over the measured slices (sampling the drain, reading /proc). */
  runnerUs: number;
  /** Redis µs of the drain's sampling (its script calls) over the measured slices. */
  samplerRedisUs: number;
  /** Reads the drain of a variant whose workers run; null otherwise. */
  monitor: DrainMonitor | null;
  drainTurns: DrainTurn[];
  /** Reads the batch queues of a batch variant (bench/batches.ts); null otherwise. */
  batches: BatchMonitor | null;
  batchTurns: BatchTurn[];
  /** The variant's own database (bench/postgres.ts), when its workers run. */
  database: { name: string; url: string } | null;
  /** The round (0-based): a steady load's seed. */
  round: number;
  /** A steady variant's outcomes of each measured load. */
  outcomes: SteadyOutcomes[];
  /** INFO commandstats of the variant's Redis before and after its measured load (bench/redis-profile.ts). */
  commands: { before: CommandStats; after: CommandStats } | null;
}

/**
 * The processes whose CPU a pass reads. Api processes forked by a primary are its children (read at
 * each sample: one started again in between leaves the figure wrong, not missing), and under
 * `laurel start` the primary itself runs the workers; a `laurel start` without children (a baseline
 * tree that ran its one api process in the primary) is the api and the workers in one.
 */
function pidsOf(session: Session, redisPid: number | null): Pids {
  const primary = session.child.proc.pid;
  const apis = primary === undefined ? [] : childPids(primary);
  // `laurel start`: its workers run (a drain to watch) in no process of their own, so in the primary.
  const start = session.drain !== null && session.workers === null;
  if (start && apis.length > 0) return { server: apis, workers: primary!, redis: redisPid };
  if ((session.apiProcesses ?? 1) > 1 && primary !== undefined) {
    return { server: [primary, ...apis], workers: session.workers?.proc.pid ?? null, redis: redisPid };
  }
  return { server: primary, workers: session.workers?.proc.pid ?? null, redis: redisPid };
}

/** The runner's user + system CPU µs so far. */
function runnerUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function drainLine(d: DrainTurn, capS: number): string {
  const tail = d.drainedAfterS === null ? `NOT drained ${capS} s after the load` : `drained ${d.drainedAfterS.toFixed(2)} s after the load`;
  return `drain: at most ${d.maxLagS.toFixed(2)} s behind, ${d.maxBacklog} entries waiting; ${d.backlogAtLoadEnd} at the load's end; ${tail}`;
}

/**
 * Waits until a variant whose workers run has copied its log (after its probe event: the workers
 * are up and the drain works end to end; after a warm-up: a load starts with nothing waiting).
 * Fails when the workers exit.
 */
async function settleDrain(r: Running, capS: number, what: string, signal: AbortSignal): Promise<void> {
  if (r.monitor === null) return;
  // A batch variant's items are applied first: their events are what the drain then copies.
  if (r.batches !== null) {
    const { batch } = await r.batches.watch(Promise.resolve(), capS, signal);
    if (batch.emptiedAfterS === null) log(`  ${r.variant.name}: the batches were not applied ${capS} s after the ${what}`);
  }
  const procs = [r.session.child, ...(r.session.workers === null ? [] : [r.session.workers])];
  const exited = procs.find((c) => c.proc.exitCode !== null || c.proc.signalCode !== null);
  if (exited) throw new Error(`${exited.name} exited:\n${exited.output.join('\n')}`);
  if (!(await r.monitor.waitDrained(capS, signal))) {
    const dead = procs.find((c) => c.proc.exitCode !== null || c.proc.signalCode !== null);
    if (dead) throw new Error(`${dead.name} exited:\n${dead.output.join('\n')}`);
    if (what === 'probe') throw new Error(`${r.variant.name}: the drain did not copy the probe event within ${capS} s:\n${procs.flatMap((c) => c.output).join('\n')}`);
    log(`  ${r.variant.name}: the drain had not caught up ${capS} s after the ${what}`);
  }
}

/**
 * A batch variant's pass counted as the workers applied it: the events accepted during the load
 * (those still waiting when the wait for them ended left out) over the seconds from the load's
 * start until they were all applied (or the wait ended). The api accepts faster than the workers
 * apply: the rate it accepted at says nothing of what the system does with the events.
 */
function appliedSlice(slice: WrkResult, batch: BatchTurn, capS: number): WrkResult {
  const tailS = batch.emptiedAfterS ?? capS;
  return { ...slice, requests: Math.max(0, slice.requests - batch.waitingAtEnd), durationUs: slice.durationUs + tailS * 1e6 };
}

/** Stops a session's processes (the workers' own too), the way an operator would. */
async function stopSession(session: Session): Promise<void> {
  await Promise.all([stop(session.child), ...(session.workers === null ? [] : [stop(session.workers)])]);
}

/**
 * One round: each variant alone, in the round's order. Its server (and workers) started and
 * prepared, warmed up, measured for BENCH_DURATION seconds (a variant whose workers run: its load
 * followed by the wait for its drain), given its open-loop pass, then stopped, its keys (and its
 * database) deleted before the next variant starts: no variant runs during another's measurement,
 * so none pays for another's background (its workers' passes, snapshots, webhooks' sender).
 */
async function measureRound(
  order: Variant[], settings: Settings, redis: Redis, redisPid: number | null, postgres: pg.Client | null, signal: AbortSignal, round: number,
): Promise<VariantResult[]> {
  const results: VariantResult[] = [];
  for (const variant of order) results.push(await measureAlone(variant, settings, redis, redisPid, postgres, signal, round));
  return results;
}

/** A variant's turn of a round: started, warmed up, measured, its open-loop pass, stopped and cleaned up. */
async function measureAlone(
  variant: Variant, settings: Settings, sharedRedis: Redis, sharedPid: number | null, postgres: pg.Client | null, signal: AbortSignal, round: number,
): Promise<VariantResult> {
  const withPostgres = postgresTicks() !== null;
  // A steady variant runs on the population's own Redis.
  const own = variant.steady ? populationRedis : null;
  const redis = own?.client ?? sharedRedis;
  const redisPid = own === null ? sharedPid : own.pid;
  const port = await freePort(HOST);
  // A steady variant's database is the population's, kept when it stops.
  const database = variant.postgres && !variant.steady && postgres !== null ? await createDatabase(postgres, settings.databaseUrl) : null;
  const shared = variant.steady && population !== null
    ? { prefix: population.prefix, apiKey: population.apiKey, databaseUrl: population.database.url } : undefined;
  let result: VariantResult | null = null;
  let r: Running | null = null;
  let startSnapshotS: number | null = null;
  // The processes' profiles, written as each exits (bench/cpu-profile.ts).
  const profiles = settings.cpuProfile === true ? mkdtempSync(join(tmpdir(), 'laurel-cpu-')) : null;
  try {
    // A steady variant's workers snapshot as they start (bench/snapshot-wait.ts), then once a day.
    const lastSnapshot = shared === undefined ? 0 : await lastSnapshotId(shared.databaseUrl);
    const session = variant.launch({
      host: HOST, port, redisUrl: own?.url ?? settings.redisUrl, databaseUrl: database?.url, population: shared,
      ...(shared === undefined ? {} : { env: SNAPSHOT_ENV }),
      // A primary's api processes are forked with its flags: they are profiled too.
      ...(profiles === null ? {} : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`] }),
    });
    r = {
      variant, session, port, warm: null, slices: [], ticks: { ...ZERO_SAMPLE }, runnerUs: 0, samplerRedisUs: 0, commands: null,
      monitor: session.drain === null ? null : new DrainMonitor(redis, session.drain.prefix, session.drain.partitions, settings.drainSampleMs),
      drainTurns: [], database,
      batches: session.batch === undefined || session.drain === null
        ? null : new BatchMonitor(redis, session.drain.prefix, session.drain.partitions, settings.drainSampleMs),
      batchTurns: [], round, outcomes: [],
    };
    log(`${variant.name}: ${variant.description}`);
    log(`  server pid ${session.child.proc.pid ?? '?'}${session.workers ? `, workers pid ${session.workers.proc.pid ?? '?'}` : ''} on ${HOST}:${port}`);
    // A minute, as the other benches give: on a machine loaded by other work a server takes more
    // than the default 20 s to start.
    await waitReady(session.child, session.readyUrl, signal, 60_000);
    if (shared !== undefined) {
      const snapshot = await waitSnapshot(shared.databaseUrl, lastSnapshot, signal);
      startSnapshotS = snapshot?.seconds ?? null;
      log(`  the workers' start-up snapshot: ${snapshotLine(snapshot)}, before the load`);
    }
    await variant.prepare?.(session, signal);
    await settleDrain(r, 20, 'probe', signal);
    let scripts: CommandShare[] | null = null;
    if (settings.warmupS > 0) {
      log(`  warm-up ${settings.warmupS} s`);
      // Redis's time by script, from its slow log of every command during the warm-up, which is
      // not measured (the log costs Redis a little a command).
      const slowlog = await slowlogEverything(redis);
      try {
        r.warm = await load(settings, session, settings.warmupS, tagOf('warm'), signal, variant.steady ? seedOf(variant.name, round, 'warm') : null);
      } finally {
        scripts = scriptsPerRequest(await slowlogRead(redis, slowlog), r.warm?.requests ?? 0);
      }
      await settleDrain(r, settings.drainCapS, 'warm-up', signal);
    }
    log(`  measuring ${settings.durationS} s${r.monitor === null ? '' : ', then the wait for the drain'}`);
    await measureLoad(r, settings, redis, redisPid, withPostgres, signal);
    const measured = mergeSlices(r.slices);
    const cpu = perRequest(ZERO_SAMPLE, r.ticks, measured.requests);
    result = variantResult(variant.name, variant.description, measured, r.warm, 0, cpu);
    result.processes = variant.processes ?? null;
    result.apiProcesses = variant.apiProcesses ?? null;
    result.drain = mergeDrainTurns(r.drainTurns);
    if (r.batches !== null) result.batch = mergeBatchTurns(r.batchTurns);
    result.runnerCpuUs = measured.requests > 0 ? r.runnerUs / measured.requests : null;
    result.samplerRedisUs = r.monitor === null || measured.requests === 0 ? null : r.samplerRedisUs / measured.requests;
    result.redisCommands = r.commands === null ? null : commandsPerRequest(r.commands.before, r.commands.after, measured.requests);
    result.redisScripts = scripts;
    if (variant.steady) {
      result.steady = r.outcomes[0] ?? null;
      result.startSnapshotS = startSnapshotS;
    }
    log(`${variant.name}:${summary(result)}`);
    // A baseline's twin gets its variant's open-loop passes.
    if (settings.openLoopS > 0 && settings.openLoopVariants.includes(twinOf(variant.name) ?? variant.name)) {
      for (const share of OPEN_LOOP_SHARES) {
        const o = await openLoop(r, result.requestsPerSecond, share, settings, redisPid, withPostgres, signal);
        if (share === 0.5) result.openLoop = o;
        else result.openLoopQuarter = o;
        log(`  ${variant.name} open loop at ${share} of the peak, ${openLoopLine(o, settings)}`);
      }
    }
    return result;
  } finally {
    // Every step on its own: a failed clean-up neither hides the error that ended the turn nor
    // skips the next step.
    const step = async (what: string, f: () => Promise<void>) => {
      try {
        await f();
      } catch (err) {
        log(`  WARNING: ${what} failed: ${(err as Error).message}`);
      }
    };
    if (r !== null) {
      const { session } = r;
      if (variant.release) await step(`releasing ${variant.name}`, () => variant.release!(session, signal));
      await step(`stopping ${variant.name}`, () => stopSession(session));
      if (profiles !== null) {
        await step(`reading the CPU profiles of ${variant.name}`, async () => {
          // The process the runner started: `laurel start`'s primary, which runs the workers and
          // forks the api processes (any other pid), or `laurel api` with one api process.
          const child = session.child.proc.pid ?? -1;
          const primary = variant.processes === 'start' ? 'primary (workers)' : (variant.apiProcesses ?? 1) > 1 ? 'primary' : 'api';
          const roles = new Map<number, string>([[child, primary]]);
          if (session.workers?.proc.pid !== undefined) roles.set(session.workers.proc.pid, 'workers');
          const read = readProfiles(profiles, roles, 'api');
          if (result) result.cpuFrames = [...read].map(([role, times]) => ({ role, times: Object.fromEntries(summed(times)) }));
        });
        rmSync(profiles, { recursive: true, force: true });
      }
      // The port must be free again: a server still on it would take connections of the next variant.
      if (await portAnswers(port, HOST)) log(`  WARNING: something still answers on ${HOST}:${port} after ${variant.name} stopped`);
      if (session.prefix !== null && !variant.steady) {
        await step(`deleting the keys of ${variant.name}`, async () => {
          const deleted = await deleteByPrefix(redis, session.prefix!);
          if (result) result.keysDeleted = deleted;
          log(`  deleted ${deleted} keys under ${session.prefix}:`);
        });
      }
    }
    if (database !== null) {
      const rows = await countRows(database.url);
      if (result) result.postgresRows = rows;
      log(`  ${rows ?? '?'} rows in Postgres (laurel_events, laurel_config); dropping the database ${database.name}`);
      await step(`dropping the database ${database.name}`, () => dropDatabase(postgres!, database.name));
    }
  }
}

/**
 * The measured load of a variant: BENCH_DURATION seconds of wrk; with workers, the drain watched
 * during it and waited for after it (and a batch variant's items applied first), inside the CPU
 * sampled: work the load called for.
 */
async function measureLoad(r: Running, settings: Settings, redis: Redis, redisPid: number | null, withPostgres: boolean, signal: AbortSignal): Promise<void> {
  const pids = pidsOf(r.session, redisPid);
  const statsBefore = await commandStats(redis);
  const before = sample(pids, withPostgres);
  const ownBefore = runnerUs();
  const loadStartMs = Date.now();
  let loadEndMs: number | null = null;
  const pass = load(settings, r.session, settings.durationS, tagOf(`idem-${r.variant.name}`), signal, r.variant.steady ? seedOf(r.variant.name, r.round, 'load') : null);
  let slice: WrkResult;
  if (r.monitor === null) {
    slice = await pass;
  } else {
    const evalBefore = await evalMicros(redis);
    const hooksBefore = webhooksReceived();
    // A batch variant's load ends, for the drain, once the workers have applied its items.
    let batched = '';
    const applied = r.batches === null ? pass : r.batches.watch(pass, BATCH_CAP_S, signal).then(({ result, batch }) => {
      r.batchTurns.push(batch);
      const tail = batch.emptiedAfterS === null || batch.emptiedAfterS === 0 ? '' : `, ${Math.round(batch.waitingAtLoadEnd / batch.emptiedAfterS)} events/s applied after the load`;
      batched = `; ${Math.round(result.requests / (result.durationUs / 1e6))} events/s accepted${tail}; ${batchLine(batch, BATCH_CAP_S)}`;
      return appliedSlice(result, batch, BATCH_CAP_S);
    });
    const watched = await r.monitor.watch(applied, settings.drainCapS, signal);
    r.samplerRedisUs += (await evalMicros(redis)) - evalBefore;
    slice = watched.result;
    r.drainTurns.push(watched.drain);
    // The receiver is the runner's (bench/webhook-receiver.ts): what arrived while the load ran, the
    // drain caught up and the sender sent what the outbox held (inside the CPU sampled: work the load called for).
    let hooks = '';
    if (r.variant.name.includes('hooks') && r.session.drain !== null) {
      const tail = await waitForWebhooks(r.session.drain.databaseUrl, redis, r.session.drain.prefix, watched.loadEndMs, settings.drainCapS);
      const sent = tail.sentAfterS === null ? `not all sent ${settings.drainCapS} s after the load` : `all sent ${tail.sentAfterS.toFixed(2)} s after the load`;
      hooks = `; webhooks: ${webhooksReceived() - hooksBefore} received, ${tail.waiting} waiting once drained, ${sent}`;
    }
    const rate = Math.round(slice.requests / (slice.durationUs / 1e6));
    const figure = r.session.batch === undefined
      ? `${rate} req/s`
      : `${rate} events/s applied (${r.session.batch} a request${batched})`;
    log(`  ${r.variant.name}: ${figure}; ${drainLine(watched.drain, settings.drainCapS)}${hooks}`);
    loadEndMs = watched.loadEndMs;
  }
  const after = sample(pids, withPostgres);
  r.runnerUs += runnerUs() - ownBefore;
  r.commands = { before: statsBefore, after: await commandStats(redis) };
  r.slices.push(slice);
  r.ticks = addTicks(r.ticks, before, after);
  // What the events did, read from the archive after the CPU was sampled: the query's own Postgres
  // time (a scan of the population's archive) is the runner's, not the load's.
  if (r.variant.steady && r.session.drain !== null && loadEndMs !== null) {
    const o = await steadyOutcomes(r.session.drain.databaseUrl, r.session.drain.prefix, loadStartMs, loadEndMs + 1000);
    r.outcomes.push(o);
    log(`  ${r.variant.name}: ${o.events} events: ${o.usersCreated} users created, ${o.streaksStarted} streaks started, ` +
      `${o.streaksExtended} extended, ${o.achievements} achievements completed`);
  }
}

function openLoopLine(o: OpenLoopPass, settings: Settings): string {
  const f = (x: number | null) => (x === null ? 'unanswered' : `${x.toFixed(2)} ms`);
  return `${Math.round(o.rate)} req/s: p50 ${f(o.latencyMs.p50)}, p99 ${f(o.latencyMs.p99)}, ` +
    `${o.unanswered} unanswered, client delay p99 ${f(o.sendDelayMs.p99)}${o.batch == null ? '' : `; ${batchLine(o.batch, settings.drainCapS)}`}` +
    `${o.drain === null ? '' : `; ${drainLine(o.drain, settings.drainCapS)}`}`;
}

/** The open loop's requests of a variant: bench/wrk/steady.lua's for a steady one, else event.lua's (or batch.lua's). */
function openLoopLoad(r: Running, settings: Settings, share: number): Pick<OpenLoopOptions, 'users' | 'idempotencyShare' | 'idempotencyPool' | 'steady'> {
  const s = settings.steady;
  const base = { users: settings.users, idempotencyShare: settings.idempotencyShare, idempotencyPool: settings.idempotencyPool };
  if (!r.variant.steady || !s) return base;
  return { ...base, steady: { population: s.users, newShare: s.newShare, skew: s.skew, seed: seedOf(r.variant.name, r.round, `open-${share}`) } };
}

/**
 * An open-loop pass of one variant: `share` of its req/s of the round (`peak`), for
 * BENCH_OPEN_DURATION seconds, with the drain watched (and waited for) as in a closed-loop turn.
 */
async function openLoop(
  r: Running, peak: number, share: number, settings: Settings, redisPid: number | null, withPostgres: boolean, signal: AbortSignal,
): Promise<OpenLoopPass> {
  const url = new URL(r.session.eventUrl);
  const pids = pidsOf(r.session, redisPid);
  const before = sample(pids, withPostgres);
  // A batch variant: requests of `size` events, as many a second as make half its events/s.
  const size = r.session.batch;
  const pass = runOpenLoop({
    host: url.hostname, port: Number(url.port), path: size === undefined ? EVENT_PATH : url.pathname, apiKey: r.session.apiKey,
    rate: size === undefined ? peak * share : (peak * share) / size, durationS: settings.openLoopS, connections: settings.connections,
    ...openLoopLoad(r, settings, share),
    tag: tagOf(`open-${r.variant.name}`), timeoutS: settings.timeoutS, ...(size === undefined ? {} : { batch: size }),
  }, signal);
  let drain: DrainTurn | null = null;
  let batch: BatchTurn | null = null;
  let result;
  if (r.monitor === null) {
    result = await pass;
  } else {
    // A batch variant's load ends, for the drain, once the workers have applied its items.
    const applied = r.batches === null ? pass : r.batches.watch(pass, settings.drainCapS, signal).then((w) => {
      batch = w.batch;
      return w.result;
    });
    const watched = await r.monitor.watch(applied, settings.drainCapS, signal);
    result = watched.result;
    drain = watched.drain;
  }
  const after = sample(pids, withPostgres);
  if (size === undefined) return { ...result, peak, drain, cpu: perRequest(before, after, result.completed) };
  // Its rates and CPU in events (its latencies stay a request's: a batch's acceptance).
  const events = { ...result, rate: result.rate * size, achievedRate: result.achievedRate * size };
  return { ...events, peak, drain, batch, cpu: perRequest(before, after, result.completed * size) };
}

/**
 * trivial-script's open-loop passes at the rates of the round's passes of REFERENCE_RATES_OF (a
 * server of its own started for them, stopped and its keys deleted after): the floor's latency at
 * the same load, in the same run. Empty unless trivial-script is selected and gets open-loop passes.
 */
async function measureReferences(
  results: VariantResult[], settings: Settings, redis: Redis, redisPid: number | null, signal: AbortSignal,
): Promise<{ name: string; pass: OpenLoopPass }[]> {
  const trivial = VARIANTS.find((v) => v.name === 'trivial-script')!;
  if (settings.openLoopS === 0 || !settings.openLoopVariants.includes(trivial.name) || !results.some((v) => v.name === trivial.name)) return [];
  const of = results.filter((v) => REFERENCE_RATES_OF.includes(v.name));
  if (of.length === 0) return [];
  const port = await freePort(HOST);
  const session = trivial.launch({ host: HOST, port, redisUrl: settings.redisUrl });
  const r: Running = {
    variant: trivial, session, port, warm: null, slices: [], ticks: { ...ZERO_SAMPLE }, runnerUs: 0, samplerRedisUs: 0, commands: null,
    monitor: null, drainTurns: [], database: null, batches: null, batchTurns: [], round: 0, outcomes: [],
  };
  const references: { name: string; pass: OpenLoopPass }[] = [];
  try {
    await waitReady(session.child, session.readyUrl, signal);
    for (const v of of) {
      for (const share of OPEN_LOOP_SHARES) {
        const name = `trivial-script at ${v.name}'s ${share === 0.5 ? '½' : '¼'}`;
        const pass = await openLoop(r, v.requestsPerSecond, share, settings, redisPid, postgresTicks() !== null, signal);
        references.push({ name, pass });
        log(`  ${name}, ${openLoopLine(pass, settings)}`);
      }
    }
    return references;
  } finally {
    await stopSession(session);
    if (session.prefix !== null) await deleteByPrefix(redis, session.prefix);
  }
}

function summary(r: VariantResult): string {
  const errors = r.non2xx + r.socketErrors > 0 ? `, ERRORS non-2xx ${r.non2xx} socket ${r.socketErrors}` : '';
  const refused = refusedBacklogFull(r.wrk); // a batch variant's statuses count events
  const gate = refused > 0 ? `, ${refused} events refused (batch_backlog_full)` : '';
  return `  ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${gate}${errors}`;
}

/** First SIGINT/SIGTERM: abort and clean up (servers stopped, keys deleted). Second: exit now. */
function onSignals(): void {
  const handler = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      log(`${signal} again: killing children and exiting`);
      process.exit(130); // the 'exit' hook in processes.ts SIGKILLs what is left
    }
    log(`${signal}: stopping servers and cleaning up (again to force)`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

async function main(): Promise<number> {
  const settings = loadSettings();
  const revision = process.env.BENCH_BASELINE;
  let baseline: Baseline | null = null;
  if (revision) {
    log(`bench: building the baseline ${revision} (once per commit)`);
    baseline = prepareBaseline(ROOT, revision);
    settings.baseline = { revision, commit: baseline.commit };
    log(`bench: baseline ${revision} = ${baseline.commit.slice(0, 12)} in ${baseline.root}` +
      (baseline.lockDiffers ? ' (its package-lock.json differs from this checkout\'s: it runs with this checkout\'s node_modules)' : ''));
  }
  const variants = selectVariants(baseline);
  const wrk = wrkVersion();
  if (wrk === null) {
    process.stderr.write(`${WRK_MISSING}\n`);
    return 2;
  }
  if (!existsSync(`${ROOT}dist/src/cli.js`) || !existsSync(`${ROOT}dist/bench/servers/hello.js`)) {
    throw new UsageError('dist/ is missing: run `npm run bench` (it builds first), not dist/bench/run.js alone');
  }
  const redis = await connectRedis(settings.redisUrl);
  let postgres: pg.Client | null = null;
  if (variants.some((v) => v.postgres)) {
    try {
      postgres = await connectPostgres(settings.databaseUrl);
    } catch (err) {
      redis.disconnect();
      throw err;
    }
  }
  onSignals();
  const rounds: RoundResult[] = [];
  try {
    const machine = await machineFacts(redis, wrk, postgres);
    const redisPid = await localRedisPid(redis);
    if (variants.some((v) => v.steady) && postgres !== null && settings.steady) {
      const s = settings.steady;
      const server = await startOwnRedis();
      populationRedis = { url: server.url, client: await connectRedis(server.url), pid: server.pid, stop: server.stop };
      log(`bench: making the steady-state population: ${s.users} users, ${s.days} days of history (bench/steady-population.ts), ` +
        `on a redis-server of its own (:${server.port})`);
      population = await makePopulation({ users: s.users, days: s.days, host: HOST, redisUrl: server.url, databaseUrl: settings.databaseUrl },
        populationRedis.client, postgres, log, controller.signal);
      s.made = { items: population.items, lessons: population.lessons, seconds: population.seconds };
      log(`bench: population made in ${Math.round(population.seconds)} s: ${population.items} items (${Math.round(population.items / population.seconds)} a second), ` +
        `${population.lessons} lessons, under ${population.prefix}: and in ${population.database.name}`);
    } else if (settings.steady) {
      settings.steady = null;
    }
    const passes = settings.rounds * variants.length;
    log(`bench: ${variants.map((v) => v.name).join(', ')}; ${settings.rounds} round(s), ${settings.threads} wrk threads, ` +
      `${settings.connections} connections, ${settings.warmupS} s warm-up + ${settings.durationS} s per variant and round, ` +
      'each variant alone ' +
      `(${passes * (settings.warmupS + settings.durationS)} s of load in all); ` +
      `${machine.cpus} CPUs, load ${machine.loadAverageAtStart[0].toFixed(2)}`);
    // A launch-day variant's snapshot and start-up check walk the whole keyspace of the shared
    // Redis: another installation's keys there (a stopped run's, say) slow every such variant.
    if ((machine.redisKeysAtStart ?? 0) > 10_000) {
      log(`bench: WARNING: the shared Redis holds ${machine.redisKeysAtStart} keys: the launch-day variants' key walks cover them all; run on an empty Redis`);
    }
    for (let i = 0; i < settings.rounds; i++) {
      const order = rotated(variants, i);
      const round: RoundResult = {
        round: i + 1,
        startedAt: new Date().toISOString(),
        loadAverageAtStart: loadavg(),
        speedProbeMs: speedProbe(),
        order: order.map((v) => v.name),
        variants: [],
        ratios: [],
      };
      log(`round ${round.round}/${settings.rounds}: ${round.order.join(' → ')} (load ${round.loadAverageAtStart[0].toFixed(2)}, ` +
        `speed probe ${Math.round(round.speedProbeMs)} ms)`);
      round.variants = await measureRound(order, settings, redis, redisPid, postgres, controller.signal, i);
      round.references = await measureReferences(round.variants, settings, redis, redisPid, controller.signal);
      round.ratios = roundRatios(round.variants);
      // The targets' ratios and how the two laurel variants compare, as far as measured.
      const twins = order.flatMap((v) => { const of = twinOf(v.name); return of === null ? [] : [ratioName(of, v.name)]; });
      const figures = [...twins, ...TARGETS.map((t) => ratioName(t.of, t.over)), ratioName('laurel-features', 'laurel-event')]
        .map((name) => ({ name, value: round.ratios.find((x) => x.name === name)?.value ?? null }))
        .filter((x): x is { name: string; value: number } => x.value !== null)
        .map((x) => `${x.name} ${(x.value * 100).toFixed(1)}%`);
      if (figures.length > 0) log(`  round ${round.round}: ${figures.join(', ')}`);
      rounds.push(round);
    }
    const report = buildReport(machine, settings, variants.map((v) => v.name), rounds);
    log(`\n${renderMarkdown(report)}`);
    // `latest` and the README always hold a full comparison in the published setup; a subset of
    // the variants or other rounds, durations, connections or threads go to `partial`
    // (git-ignored), so a quick look never replaces the published table.
    const reasons = partialReasons(settings, variants);
    const full = reasons.length === 0;
    if (!full) log(`not the published setup (${reasons.join('; ')}): writing results/partial.*, leaving latest.* and the README alone`);
    const written = await writeReport(`${ROOT}bench/results`, full ? 'latest' : 'partial', full ? `${ROOT}bench/README.md` : null, report);
    log(`written: ${written.map((p) => p.replace(ROOT, '')).join(', ')}`);
    const failed = report.variants.filter((v) => v.non2xx + v.socketErrors > 0);
    if (failed.length > 0) {
      process.stderr.write(`bench: errors in ${failed.map((v) => v.name).join(', ')}; the figures are not comparable\n`);
      return 1;
    }
    return 0;
  } finally {
    await stopAll();
    if (population !== null && postgres !== null) {
      await dropDatabase(postgres, population.database.name)
        .catch((err: unknown) => log(`WARNING: dropping the population's database failed: ${(err as Error).message}`));
    }
    if (populationRedis !== null) {
      populationRedis.client.disconnect();
      await populationRedis.stop();
    }
    redis.disconnect();
    await postgres?.end().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (controller.signal.aborted) {
      process.stderr.write(`bench: ${(controller.signal.reason as Error).message}; servers stopped, keys deleted\n`);
      process.exit(130);
    }
    const setup = err instanceof UsageError || err instanceof RedisUnavailableError || err instanceof BaselineError ||
      err instanceof PostgresUnavailableError;
    process.stderr.write(`bench: ${setup ? (err as Error).message : (err as Error).stack ?? String(err)}\n`);
    process.exit(setup ? 2 : 1);
  },
);
