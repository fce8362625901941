/**
 * The written report: one markdown table of the variants side by side (median over rounds and
 * every round's req/s), the ratios and the targets, then the whole system (the event log drain's
 * backlog, each process's CPU per event, the open-loop latencies) with its targets, printed and
 * saved with the machine facts and every round's full results (bench/results/latest.{json,md}),
 * and copied into bench/README.md between its results markers so the docs show the last measured
 * run.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { baselineName } from './baseline.js';
import type { CpuPerRequest } from './cpu.js';
import { medianOutcomes, type SteadyOutcomes } from './steady-outcomes.js';
import { TAIL_LIMIT_S, type DrainTurn } from './drain.js';
import { BATCH_CAP_S, type BatchTurn } from './batches.js';
import type { OpenLoopResult } from './open-loop.js';
import type { Processes } from './variants.js';
import type { CommandShare } from './redis-profile.js';
import { summed, topFrames, type ProcessFrames } from './cpu-profile.js';
import { non2xx, socketErrors, type WrkResult } from './wrk.js';

export interface VariantResult {
  name: string;
  description: string;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  non2xx: number;
  socketErrors: number;
  /** Keys removed from Redis after the variant. */
  keysDeleted: number;
  /** The warm-up's own figures, kept to show how stable the server was; not compared. */
  warmup: { requestsPerSecond: number; non2xx: number; socketErrors: number } | null;
  /**
   * CPU µs per request of the server, the workers' own process, Redis, Postgres and wrk during the
   * measured pass (bench/cpu.ts); for a variant whose workers run, until its drain had copied the
   * pass's events (the drain's tail is work the events cost).
   */
  cpu: CpuPerRequest;
  wrk: WrkResult;
  /** How laurel ran (null: a bench server). */
  processes: Processes | null;
  /** LAUREL_API_PROCESSES of a laurel variant (null: a bench server; absent in reports before it). */
  apiProcesses?: number | null;
  /** The event log drain during and after the measured pass (its turns merged: the worst of each); null without workers. */
  drain: DrainTurn | null;
  /** The open-loop pass at half this round's req/s; null when not run. */
  openLoop: OpenLoopPass | null;
  /** The open-loop pass at a quarter of it; null or absent when not run. */
  openLoopQuarter?: OpenLoopPass | null;
  /** A steady variant's outcomes of its measured load (bench/steady-outcomes.ts); absent for the others. */
  steady?: SteadyOutcomes | null;
  /** A steady variant's workers' start-up snapshot in seconds, waited for before its load (null: none seen); absent for the others. */
  startSnapshotS?: number | null;
  /** CPU µs per request of the runner itself (sampling the drain, reading /proc) over the measured pass. */
  runnerCpuUs: number | null;
  /** Redis µs per request of the drain's sampling (bench/drain.ts), included in `cpu.redis`; null without workers. */
  samplerRedisUs: number | null;
  /** The variant's Redis time by command over the measured load (bench/redis-profile.ts); absent in reports before it. */
  redisCommands?: CommandShare[] | null;
  /** The variant's Redis time by script over its warm-up (bench/redis-profile.ts scriptsPerRequest); absent in reports before it. */
  redisScripts?: CommandShare[] | null;
  /** Each process's self time by function, its whole life (BENCH_CPU_PROFILE, bench/cpu-profile.ts); absent when not profiled. */
  cpuFrames?: { role: string; times: Record<string, number> }[] | null;
  /** Rows in the variant's Postgres database when it stopped (every log entry drained, and the configuration); null without one. */
  postgresRows: number | null;
  /**
   * A batch variant's queues during and after the measured pass (bench/batches.ts; its turns merged:
   * the worst of each); absent for the others. Its requests are counted as events (500 a request),
   * and its req/s is the events the workers applied a second: the events accepted over the seconds
   * from the load's start until the workers had applied them all (bench/run.ts appliedSlice).
   */
  batch?: BatchTurn | null;
}

/** An open-loop pass (bench/open-loop.ts) with what the runner measured around it. */
export interface OpenLoopPass extends OpenLoopResult {
  /** The round's closed-loop req/s the rate is half of. */
  peak: number;
  /** CPU µs per request over the pass (and the drain's tail); `wrk` is the open-loop client. */
  cpu: CpuPerRequest;
  drain: DrainTurn | null;
  /** A batch variant's queues during and after the pass (its rate and counts are then in events); absent for the others. */
  batch?: BatchTurn | null;
}

export interface Machine {
  date: string;
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  loadAverageAtStart: number[];
  memoryGb: number;
  redis: string;
  /** Keys in the shared Redis at the start (absent in reports before it): each launch-day variant's key walks cover them. */
  redisKeysAtStart?: number;
  /** Postgres's server_version when a variant whose workers run was selected, else null. */
  postgres: string | null;
  wrk: string;
  commit: string;
}

export interface Settings {
  /** Rounds; each measures every selected variant once, in an order rotated per round. */
  rounds: number;
  threads: number;
  connections: number;
  warmupS: number;
  durationS: number;
  timeoutS: number;
  users: number;
  idempotencyShare: number;
  idempotencyPool: number;
  redisUrl: string;
  /** BENCH_BASELINE: the commit each laurel variant is also run as of (`<name>@base`), or null. */
  baseline: { revision: string; commit: string } | null;
  /** Seconds of each open-loop pass (BENCH_OPEN_DURATION; 0: none). */
  openLoopS: number;
  /** The variants that get an open-loop pass (BENCH_OPEN_LOOP). */
  openLoopVariants: string[];
  /** The longest wait for a drain to finish after a load, seconds. */
  drainCapS: number;
  /** How often the drain is read during a load and after it, ms (BENCH_DRAIN_SAMPLE_MS). */
  drainSampleMs: number;
  /** Postgres of the variants whose workers run (DATABASE_URL). */
  databaseUrl: string;
  /** BENCH_CPU_PROFILE: each variant's processes run with `--cpu-prof` (bench/cpu-profile.ts); absent in reports before it. */
  cpuProfile?: boolean;
  /** The steady-state workload's settings and how its population was made; null (or absent) without a steady variant. */
  steady?: {
    users: number;
    days: number;
    newShare: number;
    skew: number;
    made: { items: number; lessons: number; seconds: number } | null;
  } | null;
}

/** One measured pass of every selected variant, in the order they ran. */
export interface RoundResult {
  /** 1-based. */
  round: number;
  startedAt: string;
  loadAverageAtStart: number[];
  /**
   * Milliseconds a fixed JavaScript loop took right before the round (bench/run.ts speedProbe):
   * how fast the machine ran then (on the shared development machine a loop like it has run
   * two thirds slower from one minute to the next).
   */
  speedProbeMs: number;
  /** Variant names in the order they ran this round (rotated from round to round). */
  order: string[];
  /** Full results, in `order`. */
  variants: VariantResult[];
  /**
   * trivial-script's open-loop passes at the rates of other variants' passes of this round (the
   * same rates, same run: bench/run.ts), named `trivial-script at <variant> <share>`.
   */
  references?: { name: string; pass: OpenLoopPass }[];
  /** The ratios of this round's own figures (both sides measured minutes apart at most). */
  ratios: Ratio[];
}

/** One variant over all rounds. */
export interface VariantSummary {
  name: string;
  description: string;
  /** Median over rounds of req/s. */
  requestsPerSecond: number;
  /** req/s of each round, in round order (round 1 first). */
  perRound: number[];
  /** (max − min) / median of `perRound`: how far apart the rounds were. */
  spread: number;
  /** Medians over rounds of each latency percentile (each percentile's own median). */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** Sums over rounds. */
  non2xx: number;
  socketErrors: number;
  errors: WrkResult['errors'];
  statuses: Record<string, number>;
  /** Medians over rounds of each process's CPU µs per request (null where a round lacks it). */
  cpu: CpuPerRequest;
  processes: Processes | null;
  apiProcesses: number | null;
  /** The drain over the rounds; null without workers. */
  drain: DrainSummary | null;
  /** The open-loop passes over the rounds; null when none ran. */
  openLoop: OpenLoopSummary | null;
  /** The passes at a quarter of the peak over the rounds; null when none ran. */
  openLoopQuarter: OpenLoopSummary | null;
  /** A steady variant's outcomes, each the median over rounds; null for the others. */
  steady: SteadyOutcomes | null;
  /** A batch variant's queues over the rounds (the closed loop's); null for the others. */
  batch: BatchSummary | null;
  runnerCpuUs: number | null;
  samplerRedisUs: number | null;
  /** The Redis time by command, each the median over rounds (bench/redis-profile.ts); null when not profiled. */
  redisCommands: CommandShare[] | null;
  /** The Redis time by script, each the median over rounds (bench/redis-profile.ts); null when not profiled. */
  redisScripts: CommandShare[] | null;
  /** Each process role's costliest frames over every round (bench/cpu-profile.ts); null when not profiled. */
  cpuFrames: ProcessFrames[] | null;
}

/**
 * A figure over rounds: each round's, in round order, and their median. null stands for "beyond
 * measure" (a drain not done within the wait, a percentile that fell on an unanswered request)
 * and ranks above every number.
 */
export interface OverRounds {
  perRound: (number | null)[];
  median: number | null;
}

/** A batch variant's queues: the most seconds the oldest item waited, and when all were applied after the load. */
export interface BatchSummary {
  maxLagS: OverRounds;
  emptiedAfterS: OverRounds;
}

export interface DrainSummary {
  maxLagS: OverRounds;
  maxBacklog: OverRounds;
  backlogAtLoadEnd: OverRounds;
  drainedAfterS: OverRounds;
  leftAfter5s: OverRounds;
}

export interface OpenLoopSummary {
  rate: OverRounds;
  achievedRate: OverRounds;
  p50Ms: OverRounds;
  p90Ms: OverRounds;
  p99Ms: OverRounds;
  p999Ms: OverRounds;
  sendDelayP99Ms: OverRounds;
  /** Sums over rounds. */
  unanswered: number;
  waitedForConnection: number;
  scheduled: number;
  statuses: Record<string, number>;
  errors: { connect: number; closed: number; parse: number };
  cpu: CpuPerRequest;
  drainMaxLagS: OverRounds | null;
  /** A batch variant's: the most seconds its oldest item waited (acceptance to applied); null for the others. */
  batchMaxLagS: OverRounds | null;
}

export interface Ratio {
  name: string;
  value: number | null;
}

/** A ratio over rounds: of the medians, and each round's own with their median. */
export interface RatioSummary {
  name: string;
  /** median(of) / median(over). */
  ofMedians: number | null;
  /** of / over within each round, in round order; null where a side is missing. */
  perRound: (number | null)[];
  /** Median of the per-round ratios that exist. */
  medianOfRounds: number | null;
}

export interface Report {
  machine: Machine;
  settings: Settings;
  /** Every round's full results, wrk's raw counters included. */
  rounds: RoundResult[];
  /** Per variant over the rounds, in the configured variant order. */
  variants: VariantSummary[];
  ratios: RatioSummary[];
  /** One per entry of TARGETS, in that order. */
  targets: TargetResult[];
  /** One per entry of SYSTEM_TARGETS, in that order: the drain and the open loop. */
  systemTargets: SystemTargetResult[];
  /** trivial-script's passes at other variants' open-loop rates, over the rounds (RoundResult.references). */
  references: { name: string; openLoop: OpenLoopSummary }[];
  /** The first of `targets` (laurel-event), kept for readers of earlier reports. */
  target: TargetResult;
}

/**
 * "<of> ≥ 60% of <over>", judged on the median of the per-round ratios (`ratio`); the ratio of
 * the medians is shown beside it. `met` is null when either side was not measured.
 */
export interface TargetResult {
  of: string;
  over: string;
  description: string;
  threshold: number;
  ratio: number | null;
  ratioOfMedians: number | null;
  roundsMet: number;
  roundsMeasured: number;
  met: boolean | null;
}

export interface Target {
  of: string;
  over: string;
  threshold: number;
}

/**
 * The targets: laurel as users run it, the api and the workers together (`laurel start`, or `laurel
 * api` beside `laurel workers`), against the design's floor, and its batches against its single
 * events. The api-alone variants (laurel-event to laurel-api) are diagnostics: their ratios are
 * reported, not judged.
 */
export const TARGETS: Target[] = [
  { of: 'laurel-system', over: 'trivial-script', threshold: 0.6 },
  { of: 'laurel-split', over: 'trivial-script', threshold: 0.6 },
  // Issue 37: batches of 500 bring at least 2.5 times the events a second of single events.
  { of: 'laurel-batch', over: 'laurel-system', threshold: 2.5 },
  // Issue 54: batches of a minute of traffic (several events a user) at least twice single events.
  { of: 'laurel-batch-minute', over: 'laurel-system', threshold: 2 },
];

/** What a system target judges, each round's figure against an upper bound. */
export type SystemFigure = 'drain-lag' | 'drain-tail' | 'open-loop-p99';

export interface SystemTarget {
  variant: string;
  figure: SystemFigure;
  /** The most the figure may be (seconds, or ms for the open loop's p99). */
  threshold: number;
}

export interface SystemTargetResult extends SystemTarget {
  description: string;
  /** Each measured round's figure, in round order; null: beyond measure (ranks above any bound). */
  perRound: (number | null)[];
  /** The median of `perRound` (null: beyond measure, or not measured when `roundsMeasured` is 0). */
  value: number | null;
  roundsMet: number;
  roundsMeasured: number;
  met: boolean | null;
}

/** The drain keeps up (never more than 2 s behind, nothing left 5 s after the load), and p99 at half the peak. */
export const SYSTEM_TARGETS: SystemTarget[] = ['laurel-system', 'laurel-split'].flatMap((variant): SystemTarget[] => [
  { variant, figure: 'drain-lag', threshold: 2 },
  { variant, figure: 'drain-tail', threshold: TAIL_LIMIT_S },
  { variant, figure: 'open-loop-p99', threshold: 10 },
]);

export const RATIO_PAIRS: [string, string][] = [
  ['laurel-event', 'trivial-script'],
  ['laurel-streaks', 'trivial-script'],
  ['laurel-points', 'trivial-script'],
  ['laurel-features', 'trivial-script'],
  ['laurel-features', 'laurel-event'],
  ['ten-command-script', 'trivial-script'],
  ['laurel-points', 'ten-command-script'],
  ['laurel-features', 'ten-command-script'],
  ['laurel-event', 'uws-hello'],
  ['trivial-script', 'uws-hello'],
  ['laurel-api', 'trivial-script'],
  ['laurel-system', 'trivial-script'],
  ['laurel-split', 'trivial-script'],
  ['laurel-system', 'laurel-api'],
  ['laurel-split', 'laurel-api'],
  ['laurel-api', 'laurel-features'],
  ['laurel-system-2', 'trivial-script'],
  ['laurel-system-2', 'laurel-system'],
  ['laurel-system-notify', 'laurel-system'],
  ['laurel-system-hooks', 'laurel-system'],
  ['laurel-split-notify', 'laurel-split'],
  ['laurel-split-hooks', 'laurel-split'],
  ['laurel-event', 'laurel-event-nometrics'],
  ['laurel-features', 'laurel-features-nometrics'],
  ['laurel-system-limits', 'laurel-system'],
  ['laurel-system-uncapped', 'laurel-system'],
  ['zset-floor', 'zset-floor-1000'],
  ['laurel-system-league', 'laurel-system'],
  ['laurel-batch', 'laurel-system'],
  ['laurel-batch-minute', 'laurel-system'],
];

export const ratioName = (of: string, over: string) => `${of} / ${over}`;

/** RATIO_PAIRS, after each variant over its baseline twin where the run has one (bench/baseline.ts). */
export function ratioPairs(names: string[]): [string, string][] {
  const twins = names.filter((n) => names.includes(baselineName(n))).map((n): [string, string] => [n, baselineName(n)]);
  return [...twins, ...RATIO_PAIRS];
}

/** Builds a variant's result from wrk's figures. */
export function variantResult(
  name: string, description: string, measured: WrkResult, warm: WrkResult | null, keysDeleted: number,
  cpu: CpuPerRequest = { server: null, workers: null, redis: null, postgres: null, wrk: null },
): VariantResult {
  const rps = (r: WrkResult) => r.requests / (r.durationUs / 1e6);
  return {
    name,
    description,
    requestsPerSecond: rps(measured),
    p50Ms: measured.latencyUs.p50 / 1000,
    p90Ms: measured.latencyUs.p90 / 1000,
    p99Ms: measured.latencyUs.p99 / 1000,
    non2xx: non2xx(measured),
    socketErrors: socketErrors(measured),
    keysDeleted,
    warmup: warm && { requestsPerSecond: rps(warm), non2xx: non2xx(warm), socketErrors: socketErrors(warm) },
    cpu,
    wrk: measured,
    processes: null,
    apiProcesses: null,
    drain: null,
    openLoop: null,
    runnerCpuUs: null,
    samplerRedisUs: null,
    postgresRows: null,
  };
}

/**
 * A variant's measured slices as one pass: counts and durations summed; each latency percentile
 * the median over the slices (the mean weighted by requests, the maximum the largest).
 */
export function mergeSlices(slices: WrkResult[]): WrkResult {
  if (slices.length === 1) return slices[0];
  const sum = (f: (r: WrkResult) => number) => slices.reduce((a, r) => a + f(r), 0);
  const requests = sum((r) => r.requests);
  const statuses: Record<string, number> = {};
  for (const r of slices) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const mid = (f: (r: WrkResult) => number) => median(slices.map(f));
  return {
    durationUs: sum((r) => r.durationUs),
    requests,
    bytes: sum((r) => r.bytes),
    errors: {
      connect: sum((r) => r.errors.connect), read: sum((r) => r.errors.read), write: sum((r) => r.errors.write),
      status: sum((r) => r.errors.status), timeout: sum((r) => r.errors.timeout),
    },
    latencyUs: {
      p50: mid((r) => r.latencyUs.p50), p90: mid((r) => r.latencyUs.p90), p99: mid((r) => r.latencyUs.p99),
      p999: mid((r) => r.latencyUs.p999), stdev: mid((r) => r.latencyUs.stdev),
      mean: requests === 0 ? 0 : sum((r) => r.latencyUs.mean * r.requests) / requests,
      max: Math.max(...slices.map((r) => r.latencyUs.max)),
    },
    statuses,
  };
}

/** The median; the mean of the two middle values for an even count. */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function ratioOf(variants: { name: string; requestsPerSecond: number }[], of: string, over: string): number | null {
  const a = variants.find((v) => v.name === of);
  const b = variants.find((v) => v.name === over);
  return a && b && b.requestsPerSecond > 0 ? a.requestsPerSecond / b.requestsPerSecond : null;
}

/** The ratios of one round's figures. */
export function roundRatios(variants: VariantResult[]): Ratio[] {
  return ratioPairs(variants.map((v) => v.name)).map(([of, over]) => ({ name: ratioName(of, over), value: ratioOf(variants, of, over) }));
}

function summarize(name: string, rounds: RoundResult[]): VariantSummary | null {
  const results = rounds.map((r) => r.variants.find((v) => v.name === name)).filter((v): v is VariantResult => v !== undefined);
  if (results.length === 0) return null;
  const perRound = results.map((v) => v.requestsPerSecond);
  const rps = median(perRound);
  const errors = { connect: 0, read: 0, write: 0, status: 0, timeout: 0 };
  const statuses: Record<string, number> = {};
  for (const v of results) {
    for (const k of Object.keys(errors) as (keyof typeof errors)[]) errors[k] += v.wrk.errors[k];
    for (const [status, n] of Object.entries(v.wrk.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  }
  return {
    name,
    description: results[0].description,
    requestsPerSecond: rps,
    perRound,
    spread: rps > 0 ? (Math.max(...perRound) - Math.min(...perRound)) / rps : 0,
    p50Ms: median(results.map((v) => v.p50Ms)),
    p90Ms: median(results.map((v) => v.p90Ms)),
    p99Ms: median(results.map((v) => v.p99Ms)),
    non2xx: results.reduce((n, v) => n + v.non2xx, 0),
    socketErrors: results.reduce((n, v) => n + v.socketErrors, 0),
    errors,
    statuses,
    cpu: medianCpu(results.map((v) => v.cpu)),
    processes: results[0].processes ?? null,
    apiProcesses: results[0].apiProcesses ?? null,
    drain: summarizeDrainRounds(results.map((v) => v.drain ?? null)),
    openLoop: summarizeOpenLoops(results.map((v) => v.openLoop ?? null)),
    openLoopQuarter: summarizeOpenLoops(results.map((v) => v.openLoopQuarter ?? null)),
    steady: medianOutcomes(results.map((v) => v.steady ?? null).filter((x): x is SteadyOutcomes => x !== null), median),
    batch: summarizeBatchRounds(results.map((v) => v.batch ?? null)),
    runnerCpuUs: medianOrNull(results.map((v) => v.runnerCpuUs ?? null)),
    samplerRedisUs: medianOrNull(results.map((v) => v.samplerRedisUs ?? null)),
    redisCommands: medianProfile(results.map((v) => v.redisCommands)),
    redisScripts: medianProfile(results.map((v) => v.redisScripts)),
    cpuFrames: framesOverRounds(results.map((v) => v.cpuFrames ?? null)),
  };
}

/** Each process role's self times summed over the rounds, its costliest ten frames; null when no round was profiled. */
function framesOverRounds(rounds: ({ role: string; times: Record<string, number> }[] | null)[]): ProcessFrames[] | null {
  const byRole = new Map<string, Map<string, number>[]>();
  for (const round of rounds) {
    for (const p of round ?? []) byRole.set(p.role, [...(byRole.get(p.role) ?? []), new Map(Object.entries(p.times))]);
  }
  if (byRole.size === 0) return null;
  return [...byRole].sort((a, b) => a[0].localeCompare(b[0])).map(([role, times]) => ({ role, ...topFrames(summed(times)) }));
}

/** Each process's median over rounds. */
function medianCpu(cpus: (CpuPerRequest | undefined)[]): CpuPerRequest {
  const of = (k: keyof CpuPerRequest) => medianOrNull(cpus.map((c) => c?.[k] ?? null));
  return { server: of('server'), workers: of('workers'), redis: of('redis'), postgres: of('postgres'), wrk: of('wrk') };
}

/**
 * The median of figures where null means "beyond measure" and ranks above every number; null
 * when the median falls there (or there is nothing).
 */
export function medianBeyond(values: (number | null)[]): number | null {
  if (values.length === 0) return null;
  const m = median(values.map((v) => (v === null ? Infinity : v)));
  return Number.isFinite(m) ? m : null;
}

const overRounds = (perRound: (number | null)[]): OverRounds => ({ perRound, median: medianBeyond(perRound) });

/** A batch variant's queues over the rounds that measured them; null when none did. */
function summarizeBatchRounds(turns: (BatchTurn | null)[]): BatchSummary | null {
  const b = turns.filter((t): t is BatchTurn => t !== null);
  if (b.length === 0) return null;
  return { maxLagS: overRounds(b.map((t) => t.maxLagS)), emptiedAfterS: overRounds(b.map((t) => t.emptiedAfterS)) };
}

/** The drain over the rounds that measured it; null when none did. */
export function summarizeDrainRounds(turns: (DrainTurn | null)[]): DrainSummary | null {
  const d = turns.filter((t): t is DrainTurn => t !== null);
  if (d.length === 0) return null;
  return {
    maxLagS: overRounds(d.map((t) => t.maxLagS)),
    maxBacklog: overRounds(d.map((t) => t.maxBacklog)),
    backlogAtLoadEnd: overRounds(d.map((t) => t.backlogAtLoadEnd)),
    drainedAfterS: overRounds(d.map((t) => t.drainedAfterS)),
    leftAfter5s: overRounds(d.map((t) => t.leftAfter5s)),
  };
}

function summarizeOpenLoops(passes: (OpenLoopPass | null)[]): OpenLoopSummary | null {
  const o = passes.filter((p): p is OpenLoopPass => p !== null);
  if (o.length === 0) return null;
  const statuses: Record<string, number> = {};
  const errors = { connect: 0, closed: 0, parse: 0 };
  for (const p of o) {
    for (const [k, n] of Object.entries(p.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
    errors.connect += p.errors.connect;
    errors.closed += p.errors.closed;
    errors.parse += p.errors.parse;
  }
  const drains = o.map((p) => p.drain);
  return {
    rate: overRounds(o.map((p) => p.rate)),
    achievedRate: overRounds(o.map((p) => p.achievedRate)),
    p50Ms: overRounds(o.map((p) => p.latencyMs.p50)),
    p90Ms: overRounds(o.map((p) => p.latencyMs.p90)),
    p99Ms: overRounds(o.map((p) => p.latencyMs.p99)),
    p999Ms: overRounds(o.map((p) => p.latencyMs.p999)),
    sendDelayP99Ms: overRounds(o.map((p) => p.sendDelayMs.p99)),
    unanswered: o.reduce((n, p) => n + p.unanswered, 0),
    waitedForConnection: o.reduce((n, p) => n + p.waitedForConnection, 0),
    scheduled: o.reduce((n, p) => n + p.scheduled, 0),
    statuses,
    errors,
    cpu: medianCpu(o.map((p) => p.cpu)),
    drainMaxLagS: drains.every((d) => d !== null) ? overRounds(drains.map((d) => d!.maxLagS)) : null,
    batchMaxLagS: o.every((p) => p.batch != null) ? overRounds(o.map((p) => p.batch!.maxLagS)) : null,
  };
}

/** A variant's figure for a system target in one round: undefined when the round did not measure it. */
function systemFigure(v: VariantResult, figure: SystemFigure): number | null | undefined {
  if (figure === 'open-loop-p99') return v.openLoop === null || v.openLoop === undefined ? undefined : v.openLoop.latencyMs.p99;
  if (v.drain === null || v.drain === undefined) return undefined;
  return figure === 'drain-lag' ? v.drain.maxLagS : v.drain.drainedAfterS;
}

const SYSTEM_WORDS: Record<SystemFigure, (t: SystemTarget) => string> = {
  'drain-lag': (t) => `${t.variant}: the drain never more than ${t.threshold} s behind during the load (the most seconds behind)`,
  'drain-tail': (t) => `${t.variant}: nothing left to copy ${t.threshold} s after the load stopped (seconds until drained)`,
  'open-loop-p99': (t) => `${t.variant}: p99 ≤ ${t.threshold} ms at half the peak, open loop (latency from the scheduled send)`,
};

/** Judges one system target on the rounds that measured it: the median of each round's figure. */
export function judgeSystemTarget(target: SystemTarget, rounds: RoundResult[]): SystemTargetResult {
  const perRound = rounds
    .map((r) => r.variants.find((v) => v.name === target.variant))
    .map((v) => (v === undefined ? undefined : systemFigure(v, target.figure)))
    .filter((x): x is number | null => x !== undefined);
  const value = medianBeyond(perRound);
  const within = (x: number | null) => x !== null && x <= target.threshold;
  return {
    ...target,
    description: SYSTEM_WORDS[target.figure](target),
    perRound,
    value,
    roundsMet: perRound.filter(within).length,
    roundsMeasured: perRound.length,
    met: perRound.length === 0 ? null : within(value),
  };
}

/** The median, or null when any value is missing. */
function medianOrNull(values: (number | null)[]): number | null {
  return values.some((x) => x === null) ? null : median(values as number[]);
}

/** `names`: the selected variants in their configured order (the summary's row order). */
export function buildReport(machine: Machine, settings: Settings, names: string[], rounds: RoundResult[]): Report {
  const variants = names.map((n) => summarize(n, rounds)).filter((v): v is VariantSummary => v !== null);
  const ratios: RatioSummary[] = ratioPairs(names).map(([of, over]) => {
    const name = ratioName(of, over);
    const perRound = rounds.map((r) => r.ratios.find((x) => x.name === name)?.value ?? null);
    const present = perRound.filter((x): x is number => x !== null);
    return { name, ofMedians: ratioOf(variants, of, over), perRound, medianOfRounds: present.length > 0 ? median(present) : null };
  });
  const targets = TARGETS.map((target): TargetResult => {
    const t = ratios.find((x) => x.name === ratioName(target.of, target.over));
    if (t === undefined) throw new Error(`no ratio ${ratioName(target.of, target.over)} for the target`);
    const measured = t.perRound.filter((x): x is number => x !== null);
    const r = t.medianOfRounds;
    return {
      of: target.of,
      over: target.over,
      description: `${target.of} ≥ ${target.threshold * 100}% of ${target.over} (requests/s)`,
      threshold: target.threshold,
      ratio: r,
      ratioOfMedians: t.ofMedians,
      roundsMet: measured.filter((x) => x >= target.threshold).length,
      roundsMeasured: measured.length,
      met: r === null ? null : r >= target.threshold,
    };
  });
  const systemTargets = SYSTEM_TARGETS.map((t) => judgeSystemTarget(t, rounds));
  const referenceNames = [...new Set(rounds.flatMap((r) => (r.references ?? []).map((x) => x.name)))];
  const references = referenceNames.map((name) => ({
    name, openLoop: summarizeOpenLoops(rounds.map((r) => r.references?.find((x) => x.name === name)?.pass ?? null))!,
  }));
  return { machine, settings, rounds, variants, ratios, targets, systemTargets, references, target: targets[0] };
}

function errorsCell(v: VariantSummary): string {
  if (v.non2xx === 0 && v.socketErrors === 0) return '0';
  const parts: string[] = [];
  if (v.non2xx > 0) parts.push(`**${v.non2xx} non-2xx**`);
  if (v.socketErrors > 0) {
    const e = v.errors;
    parts.push(`**${v.socketErrors} socket** (connect ${e.connect}, read ${e.read}, write ${e.write}, timeout ${e.timeout})`);
  }
  return parts.join(', ');
}

function statusesCell(v: VariantSummary): string {
  return Object.entries(v.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const us = (n: number | null) => (n === null ? 'n/a' : n.toFixed(1));
/** The variant's own processes: the server, and the workers when they run in a process of their own. */
const ownCpu = (c: CpuPerRequest) => (c.server === null || c.workers === null ? c.server : c.server + c.workers);
const cpuCell = (v: VariantSummary) => `${us(ownCpu(v.cpu))} / ${us(v.cpu.redis)} / ${us(v.cpu.wrk)}`;
const ms = (n: number) => n.toFixed(2);
const pct = (n: number | null) => (n === null ? 'n/a' : `${(n * 100).toFixed(1)}%`);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function ratioLine(r: RatioSummary, rounds: number): string {
  if (r.ofMedians === null) return `- ${r.name}: n/a`;
  if (rounds === 1) return `- ${r.name}: ${pct(r.ofMedians)}`;
  return `- ${r.name}: per round ${r.perRound.map(pct).join(' / ')}, median ${pct(r.medianOfRounds)}; of the medians ${pct(r.ofMedians)}`;
}

function targetLine(t: TargetResult): string {
  const head = `- Target ${t.description}: `;
  if (t.met === null) return `${head}not measured`;
  const verdict = t.met ? '**met**' : '**NOT met**';
  if (t.roundsMeasured === 1) return `${head}${verdict} (${pct(t.ratio)})`;
  return `${head}${verdict}: median of the per-round ratios ${pct(t.ratio)}, met in ${t.roundsMet} of ${t.roundsMeasured} rounds;` +
    ` ratio of the medians ${pct(t.ratioOfMedians)}`;
}

export function renderMarkdown(report: Report): string {
  const { machine: m, settings: s } = report;
  const n = report.rounds.length;
  const many = n > 1;
  const orders = report.rounds.map((r) => r.order.join(' → ')).join('; ');
  const header = many
    ? ['| variant | req/s (median) | req/s per round | spread | p50 ms | p99 ms | CPU µs/request: server / Redis / wrk | errors | responses (all rounds) |',
      '|---|---:|---:|---:|---:|---:|---:|---|---|']
    : ['| variant | req/s | p50 ms | p99 ms | CPU µs/request: server / Redis / wrk | errors | responses |', '|---|---:|---:|---:|---:|---|---|'];
  const row = (v: VariantSummary) => many
    ? `| ${v.name} | ${int(v.requestsPerSecond)} | ${v.perRound.map(int).join(' / ')} | ${pct(v.spread)} | ${ms(v.p50Ms)} | ${ms(v.p99Ms)} | ${cpuCell(v)} | ${errorsCell(v)} | ${statusesCell(v)} |`
    : `| ${v.name} | ${int(v.requestsPerSecond)} | ${ms(v.p50Ms)} | ${ms(v.p99Ms)} | ${cpuCell(v)} | ${errorsCell(v)} | ${statusesCell(v)} |`;
  const lines = [
    `Measured ${m.date} on ${m.cpus} × ${m.cpuModel}, Node ${m.node}, Redis ${m.redis}${m.postgres ? `, Postgres ${m.postgres}` : ''}, ${m.wrk}` +
      ` (commit ${m.commit.slice(0, 12)}, load average at start ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')}` +
      `${m.redisKeysAtStart === undefined ? '' : `, ${m.redisKeysAtStart.toLocaleString('en-US')} keys in the shared Redis`}).`,
    `wrk: ${s.threads} threads, ${s.connections} connections, ${s.warmupS} s warm-up (discarded), then ${s.durationS} s measured per variant;` +
      ` ${s.users.toLocaleString('en-US')} users, ${s.idempotencyShare * 100}% of requests with an Idempotency-Key from a pool of ${s.idempotencyPool.toLocaleString('en-US')}.` +
      (report.variants.some((v) => v.drain !== null)
        ? ` Variants whose workers run: their load followed by the wait for` +
          ` their drain (at most ${s.drainCapS} s); CPU per request includes that tail.`
        : '') +
      ' Each variant runs alone: started, warmed up, measured and stopped before the next starts.',
    many
      ? `${plural(n, 'round')}, each with a fresh server per variant, one variant at a time,` +
        ` in rotated order (${orders}). req/s: each round's requests over its measured seconds, the median over rounds, then each round's` +
        ' (round 1 first); spread: (max − min) / median; p50 and p99: the median over rounds of each percentile;' +
        ' CPU: each process\'s user and system time over the measured load per request, the median over rounds' +
        ' (bench/cpu.ts); errors and responses: summed over rounds.'
      : '1 round: one measurement per variant; set BENCH_ROUNDS ≥ 3 to compare runs on a noisy machine.',
    `Machine speed before each round (a fixed JavaScript loop, ms; lower is faster): ${report.rounds.map((r) => int(r.speedProbeMs)).join(' / ')}.`,
    ...(s.baseline === null ? [] : [
      `Baseline: ${s.baseline.revision} (commit ${s.baseline.commit.slice(0, 12)}): each laurel variant also runs as of that commit,` +
        ` as \`<variant>${baselineName('')}\`, in the same rounds; \`<variant> / <variant>${baselineName('')}\` is this checkout's rate over the baseline's.`,
    ]),
    '',
    ...header,
    ...report.variants.map(row),
    '',
    ...report.ratios.map((r) => ratioLine(r, n)),
    ...report.targets.map(targetLine),
  ];
  const system = renderSystem(report);
  if (system.length > 0) lines.push('', ...system);
  const steady = renderSteady(report);
  if (steady.length > 0) lines.push('', ...steady);
  const commands = renderCommands(report);
  if (commands.length > 0) lines.push('', ...commands);
  const frames = renderFrames(report);
  if (frames.length > 0) lines.push('', ...frames);
  return lines.join('\n') + '\n';
}

/**
 * The rounds' profiles (bench/redis-profile.ts) as one: each command's calls and µs, the median over
 * the rounds that were profiled (a command missing from a round counts 0 there), the costliest
 * first (at most `n`); null when no round was.
 */
export function medianProfile(rounds: (CommandShare[] | null | undefined)[], n = 8): CommandShare[] | null {
  const profiled = rounds.filter((r): r is CommandShare[] => Array.isArray(r));
  if (profiled.length === 0) return null;
  const names = [...new Set(profiled.flatMap((r) => r.map((c) => c.command)))];
  const of = (r: CommandShare[], command: string) => r.find((c) => c.command === command);
  return names
    .map((command) => ({
      command,
      calls: median(profiled.map((r) => of(r, command)?.calls ?? 0)),
      us: median(profiled.map((r) => of(r, command)?.us ?? 0)),
    }))
    .sort((x, y) => y.us - x.us || x.command.localeCompare(y.command))
    .slice(0, n);
}

/** A profile in one cell: `fcall 61.2 µs × 1.00, hset 3.1 µs × 5.30, …`. */
function profileCell(profile: CommandShare[], n = 6): string {
  return profile.slice(0, n).map((c) => `${c.command} ${c.us.toFixed(1)} µs × ${c.calls.toFixed(2)}`).join(', ');
}

/** Each profiled variant's costliest functions by process (BENCH_CPU_PROFILE, bench/cpu-profile.ts). */
export function renderFrames(report: Report): string[] {
  const profiled = report.variants.filter((v) => v.cpuFrames !== null && v.cpuFrames.length > 0);
  if (profiled.length === 0) return [];
  const lines = [
    '### CPU by function',
    '',
    'Each process\'s ten costliest functions by self time (`--cpu-prof`), summed over the rounds, with their share of the' +
      ' process\'s busy time (its idle time left out): the process\'s whole life, its start, preparation and stop besides' +
      ' the warm-up, the load and the drain.',
  ];
  for (const v of profiled) {
    for (const p of v.cpuFrames!) {
      lines.push('', `${v.name}, ${p.role} (${(p.busyMs / 1000).toFixed(1)} s busy):`, '', '| function | self ms | share |', '|---|---:|---:|');
      for (const f of p.frames) lines.push(`| \`${f.frame.replace(/\|/g, '\\|')}\` | ${f.ms.toFixed(0)} | ${(100 * f.share).toFixed(1)}% |`);
    }
  }
  return lines;
}

/** Each profiled variant's Redis time by command (bench/redis-profile.ts), the costliest first. */
export function renderCommands(report: Report): string[] {
  const profiled = report.variants.filter((v) => v.redisCommands !== null && v.redisCommands.length > 0);
  if (profiled.length === 0) return [];
  return [
    '### Redis by command',
    '',
    'Each variant\'s Redis time by command over its measured load, from `INFO commandstats` before and after it:' +
      ' µs and calls a request, the median over rounds, the costliest first. A script\'s µs (`fcall`, `evalsha`) include' +
      ' those of the commands it runs, which are listed under their own names too; `eval` is the runner\'s sampling of the' +
      ' drain (bench/drain.ts), not laurel\'s; what no command accounts for (the sockets, the event loop) is in the Redis' +
      ' CPU only. On the shared Redis, anything else it served meanwhile is counted too.',
    '',
    '| variant | Redis CPU µs/request | commands: µs a request × calls a request |',
    '|---|---:|---|',
    ...profiled.map((v) => `| ${v.name} | ${us(v.cpu.redis)} | ${profileCell(v.redisCommands!)} |`),
    ...renderScripts(report),
  ];
}

/** Each variant's Redis time by script over its warm-up (bench/redis-profile.ts scriptsPerRequest). */
function renderScripts(report: Report): string[] {
  const profiled = report.variants.filter((v) => v.redisScripts != null && v.redisScripts.length > 0);
  if (profiled.length === 0) return [];
  return [
    '',
    'By script, from Redis\'s slow log of every command during each variant\'s warm-up (which is not measured: the' +
      ' log costs Redis a little a command): µs and calls a request, the median over rounds, each script\'s µs those of' +
      ' its calls whole, the commands it runs included.',
    '',
    '| variant | scripts: µs a request × calls a request |',
    '|---|---|',
    ...profiled.map((v) => `| ${v.name} | ${profileCell(v.redisScripts!, 8)} |`),
  ];
}

const secs = (n: number | null) => (n === null ? '—' : n.toFixed(2));

/** A figure over rounds: the median, then each round's when there are several. */
function overCell(o: OverRounds, fmt: (n: number | null) => string, beyond: string, many: boolean): string {
  const f = (x: number | null) => (x === null ? beyond : fmt(x));
  return many ? `${f(o.median)} (${o.perRound.map(f).join(' / ')})` : f(o.median);
}

/**
 * The workers' CPU: under `laurel start` the primary's, apart from its api processes (none apart:
 * a baseline tree that ran its one api process in the primary, "in api").
 */
const workersCell = (v: VariantSummary, c: CpuPerRequest) =>
  v.processes === 'start' ? (c.workers === null ? 'in api' : us(c.workers)) : v.processes === 'split' ? us(c.workers) : '—';

function systemCpuCell(v: VariantSummary, c: CpuPerRequest): string {
  return `${us(c.server)} / ${workersCell(v, c)} / ${us(c.redis)} / ${us(c.postgres)} / ${us(c.wrk)}`;
}

const RUNS_AS: Record<Processes, string> = {
  api: '`laurel api`, no workers',
  start: '`laurel start`: an api process + workers in the primary',
  split: '`laurel api` + `laurel workers`',
};

function runsAs(v: VariantSummary): string {
  if (v.processes === null) return 'bench server';
  const n = v.apiProcesses ?? 1;
  if (n === 1) return RUNS_AS[v.processes];
  return v.processes === 'start' ? `\`laurel start\`: ${n} api processes + workers in the primary` : `${RUNS_AS[v.processes]}, ${n} api processes`;
}

function systemTargetLine(t: SystemTargetResult): string {
  const head = `- Target ${t.description}: `;
  if (t.met === null) return `${head}not measured`;
  const unit = t.figure === 'open-loop-p99' ? ' ms' : ' s';
  // Seconds to the millisecond (stream ids and clocks have it): 1.997 s is within 2 s, 2.004 s is not.
  const digits = t.figure === 'open-loop-p99' ? 2 : 3;
  const f = (x: number | null) => (x === null ? (t.figure === 'open-loop-p99' ? 'unanswered' : `not drained within the wait`) : `${x.toFixed(digits)}${unit}`);
  const verdict = t.met ? '**met**' : '**NOT met**';
  if (t.roundsMeasured === 1) return `${head}${verdict} (${f(t.value)})`;
  return `${head}${verdict}: median ${f(t.value)} (per round ${t.perRound.map(f).join(' / ')}), met in ${t.roundsMet} of ${t.roundsMeasured} rounds`;
}

/**
 * The whole system: per variant the drain's backlog and every process's CPU per event, then the
 * open-loop passes, then the system's targets. Empty when the run measured none of it.
 */
export function renderSystem(report: Report): string[] {
  const many = report.rounds.length > 1;
  const drained = report.variants.some((v) => v.drain !== null);
  const open = report.variants.filter((v) => v.openLoop !== null || v.openLoopQuarter !== null);
  if (!drained && open.length === 0) return [];
  const s = report.settings;
  const lines = [
    '### The whole system',
    '',
    'The event log drain (src/engine/log-drain/drain.ts) of the variants whose workers run, read from Redis during each measured pass and' +
      ` after it (bench/drain.ts, every ${s.drainSampleMs} ms): the most seconds behind (now − the time of the oldest entry` +
      ' not yet in Postgres) and the most entries waiting during the load, what waited when it stopped, and the seconds until nothing' +
      ` waited (the wait stops at ${s.drainCapS} s). CPU µs per event of each process over the measured pass, and for those with workers` +
      ' until their drain had copied its events: api (the server) / workers (their own process) / Redis / Postgres (every local Postgres' +
      " process: shared, so the variants without workers show the background) / load generator; the runner's own (sampling) apart." +
      (many ? " Each cell: the median over rounds, then each round's." : ''),
    '',
    '| variant | runs as | req/s | drain: most behind, s | most waiting | waiting at load end | drained after, s | CPU µs/event: api / workers / Redis / Postgres / wrk | sampling µs/event: runner / Redis |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...report.variants.map((v) => {
      const d = v.drain;
      const dc = d === null
        ? ['—', '—', '—', '—']
        : [overCell(d.maxLagS, secs, '—', many), overCell(d.maxBacklog, (x) => int(x ?? 0), '—', many),
          overCell(d.backlogAtLoadEnd, (x) => int(x ?? 0), '—', many), overCell(d.drainedAfterS, secs, `> ${s.drainCapS}`, many)];
      return `| ${v.name} | ${runsAs(v)} | ${int(v.requestsPerSecond)} | ${dc.join(' | ')} | ${systemCpuCell(v, v.cpu)} | ${us(v.runnerCpuUs)} / ${v.samplerRedisUs === null ? '—' : us(v.samplerRedisUs)} |`;
    }),
  ];
  if (open.length > 0) {
    lines.push(
      '',
      `Open loop: after the round's closed-loop passes, ${s.openLoopS} s at a fixed rate of a quarter of the variant's req/s in that round` +
        ` ("at ¼"), then ${s.openLoopS} s at half of it, evenly spaced, over ${s.connections} keep-alive connections (bench/open-loop-client.ts,` +
        " the same requests as wrk's); \"trivial-script at <variant>'s ¼\" is trivial-script at that variant's rate of the round, run once the" +
        ' round\'s variants are done (a server of its own, the launch-day requests). Every latency is' +
        " measured from the request's scheduled send time (queueing shows; no coordinated omission); a request not answered within" +
        ` ${s.timeoutS} s after the last was scheduled ranks above every answer. Client delay: from the scheduled time to the client's write` +
        ' (its own share of the latency). CPU as above, the open-loop client in place of wrk.',
      '',
      '| variant | rate, req/s | answered/s | p50 ms | p90 ms | p99 ms | p99.9 ms | unanswered | client delay p99 ms | waited for a connection | drain: most behind, s | CPU µs/request: api / workers / Redis / Postgres / client | errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...open.flatMap((v) => [
        ...(v.openLoopQuarter === null ? [] : [openLoopRow(`${v.name} at ¼`, v, v.openLoopQuarter, many)]),
        ...(v.openLoop === null ? [] : [openLoopRow(v.name, v, v.openLoop, many)]),
      ]),
      ...(report.references ?? []).flatMap((x) => {
        const trivial = report.variants.find((v) => v.name === 'trivial-script');
        return trivial === undefined ? [] : [openLoopRow(x.name, trivial, x.openLoop, many)];
      }),
    );
  }
  const batched = report.variants.filter((v) => v.batch !== null);
  if (batched.length > 0) {
    lines.push(
      '',
      'Batches: a batch variant\'s req/s is the events the workers applied a second, the events accepted during the load over the' +
        ' seconds from its start until the workers had applied them all (not the rate the api accepted them at, which outruns the' +
        ' workers). Closed loop: the most seconds the oldest item waited (acceptance to applied) and when all were applied after the load;' +
        ' open loop (half that rate, above): the most seconds the oldest item waited, the batches\' own latency.',
      '',
      '| variant | events/s applied | closed loop: most behind, s | applied after the load, s | open loop: events/s | open loop: batches most behind, s | open loop: drain most behind, s |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...batched.map((v) => {
        const b = v.batch!;
        const o = v.openLoop;
        return `| ${v.name} | ${int(v.requestsPerSecond)} | ${overCell(b.maxLagS, secs, '—', many)} | ${overCell(b.emptiedAfterS, secs, `> ${BATCH_CAP_S}`, many)}` +
          ` | ${o === null ? '—' : overCell(o.rate, (x) => int(x ?? 0), '—', many)}` +
          ` | ${o === null || o.batchMaxLagS === null ? '—' : overCell(o.batchMaxLagS, secs, '—', many)}` +
          ` | ${o === null || o.drainMaxLagS === null ? '—' : overCell(o.drainMaxLagS, secs, '—', many)} |`;
      }),
    );
  }
  lines.push('', ...report.systemTargets.map(systemTargetLine));
  return lines;
}

/** One row of the open-loop table: `label`'s pass (or passes over rounds) `o`, run by variant `v`. */
function openLoopRow(label: string, v: VariantSummary, o: OpenLoopSummary, many: boolean): string {
  const e = o.errors;
  const errs = e.connect + e.closed + e.parse === 0 ? '0' : `**connect ${e.connect}, closed ${e.closed}, parse ${e.parse}**`;
  const non2xx = Object.entries(o.statuses).filter(([k]) => !k.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  return `| ${label} | ${overCell(o.rate, (x) => int(x ?? 0), '—', many)} | ${overCell(o.achievedRate, (x) => int(x ?? 0), '—', many)}` +
    ` | ${overCell(o.p50Ms, secs, 'unanswered', many)} | ${overCell(o.p90Ms, secs, 'unanswered', false)} | ${overCell(o.p99Ms, secs, 'unanswered', many)}` +
    ` | ${overCell(o.p999Ms, secs, 'unanswered', false)} | ${int(o.unanswered)} of ${int(o.scheduled)} | ${overCell(o.sendDelayP99Ms, secs, '—', false)}` +
    ` | ${int(o.waitedForConnection)} | ${o.drainMaxLagS === null ? '—' : overCell(o.drainMaxLagS, secs, '—', many)} | ${systemCpuCell(v, o.cpu)}` +
    ` | ${non2xx > 0 ? `**${non2xx} non-2xx**${errs === '0' ? '' : `, ${errs}`}` : errs} |`;
}

/** The steady variants' outcomes (bench/steady-outcomes.ts); empty when none ran. */
export function renderSteady(report: Report): string[] {
  const steady = report.variants.filter((v) => v.steady !== null);
  const s = report.settings.steady;
  if (steady.length === 0 || s === null || s === undefined) return [];
  const p = s.made;
  const share = (n: number, of: number) => (of > 0 ? `${int(n)} (${(n / of * 100).toFixed(1)}%)` : int(n));
  return [
    '### The steady-state workload',
    '',
    `Population: ${int(s.users)} users with ${s.days} days of history` +
      (p === null ? '' : ` (${int(p.items)} items, ${int(p.lessons)} lessons, made in ${Math.round(p.seconds)} s)`) +
      `; the load's events ${(s.newShare * 100).toFixed(0)}% from new users, the rest drawn by a power law of exponent ${s.skew} over the population.` +
      ' What the measured load\'s events did, read from the log\'s archive and the user directory once drained (the median over rounds;' +
      ' a board\'s move leaves no log entry and is not counted):',
    '',
    '| variant | events | users created | streaks started | streaks extended | achievements completed |',
    '|---|---:|---:|---:|---:|---:|',
    ...steady.map((v) => {
      const o = v.steady!;
      return `| ${v.name} | ${int(o.events)} | ${share(o.usersCreated, o.events)} | ${share(o.streaksStarted, o.events)} | ${share(o.streaksExtended, o.events)} | ${share(o.achievements, o.events)} |`;
    }),
  ];
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Replaces the results section of a doc, when the doc has the markers; true when it did. */
async function writeIntoDoc(path: string, markdown: string): Promise<boolean> {
  let doc: string;
  try {
    doc = await readFile(path, 'utf8');
  } catch {
    return false;
  }
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) return false;
  await writeFile(path, `${doc.slice(0, a + START.length)}\n${markdown}${doc.slice(b)}`);
  return true;
}

/**
 * Writes `<name>.json` and `<name>.md` into `dir`, and the table into the README when `readme` is
 * given; returns the paths written.
 */
export async function writeReport(dir: string, name: string, readme: string | null, report: Report): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const markdown = renderMarkdown(report);
  const json = join(dir, `${name}.json`);
  const md = join(dir, `${name}.md`);
  await writeFile(json, JSON.stringify(report, null, 2) + '\n');
  await writeFile(md, `# laurel bench: ${name} run\n\n${markdown}`);
  const written = [json, md];
  if (readme !== null && (await writeIntoDoc(readme, markdown))) written.push(readme);
  return written;
}
