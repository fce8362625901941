/**
 * The open-loop pass: a fixed rate of requests (half the variant's peak measured in the same
 * round), each sent at its scheduled time whether or not earlier ones were answered, with every
 * latency measured from the request's scheduled send time. wrk is a closed loop: each connection
 * waits for its answer before it sends again, so a server that stalls also stalls the load, and the
 * requests that would have queued behind the stall are never sent (coordinated omission). Here they
 * are sent on schedule, and a stall shows in the latency of every request scheduled during it.
 *
 * The load generator is bench/open-loop-client.ts, run in a child process of its own (as wrk is):
 * keep-alive TCP connections (node:net) carrying raw HTTP/1.1 requests, the same requests as
 * bench/wrk/event.lua. This module holds what the runner and the client share: the schedule, the
 * request mix, the percentiles (those of `laurel loadtest`), and the runner's side (start the client, read its one JSON line).
 * The arithmetic is pure and tested in test/ops/bench.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { newHistogram, percentileMs, percentiles as percentilesOfHistogram, recordMs, type Percentiles } from '../src/loadtest/histogram.js';
import { RESULT_MARKER, runReporting } from './processes.js';

export type { Percentiles };

/** What the runner hands the client (one JSON argument). */
export interface OpenLoopOptions {
  host: string;
  port: number;
  path: string;
  apiKey: string;
  /** Requests per second, spaced evenly. */
  rate: number;
  durationS: number;
  connections: number;
  users: number;
  /** The users' ids: `<userPrefix><n>` (`user-` unless said, as bench/wrk/event.lua's). */
  userPrefix?: string;
  idempotencyShare: number;
  idempotencyPool: number;
  /** Names this pass's idempotency keys (as wrk's run tag). */
  tag: string;
  /** Seconds a request may take after the last one was scheduled; later ones count as not answered. */
  timeoutS: number;
  /**
   * Events a request carries, for a batch variant: each request is bench/wrk/batch.lua's (a JSON
   * array of `batch` items to `path`, the idempotency keys item by item) and `rate` counts requests.
   */
  batch?: number;
  /**
   * The steady-state workload instead (bench/wrk/steady.lua's requests, drawn as
   * bench/steady-draw.ts draws them from bench/random.ts seeded `seed`; `users` and the
   * idempotency keys unused).
   */
  steady?: SteadyLoad;
  /**
   * Reads instead: request i is `GET gets[i % gets.length]` with X-API-KEY (`path`, `users` and the
   * idempotency keys unused): the reads beside a load (bench/scale-pass.ts), timed as the events are.
   */
  gets?: string[];
  /** With `gets`: a pattern (RegExp source) every 2xx answer's body should match; those that do not are counted. */
  expect?: string;
}

/** The steady-state workload's draw: the population, the share of new users, the power law, the seed. */
export interface SteadyLoad {
  population: number;
  newShare: number;
  skew: number;
  seed: number;
}

export interface OpenLoopResult {
  /** The rate asked for, and the rate of the answers over the scheduled seconds. */
  rate: number;
  achievedRate: number;
  durationS: number;
  scheduled: number;
  sent: number;
  completed: number;
  /** Scheduled but not answered by the end of the wait (counted as slower than any answer). */
  unanswered: number;
  statuses: Record<string, number>;
  errors: { connect: number; closed: number; parse: number };
  /** From each request's scheduled send time to its whole answer read. */
  latencyMs: Percentiles;
  /**
   * From the scheduled time to the moment the client wrote the request, for the requests that
   * found a free connection: the client's own delay (its timer, its event loop).
   */
  sendDelayMs: Percentiles;
  /**
   * From the moment the client wrote each request to its whole answer read: the latency without
   * the client's delay before sending (its delay in reading the answer is still in it).
   */
  latencyFromSendMs: Percentiles;
  /** Requests that found every connection busy and waited in the client for one to be answered. */
  waitedForConnection: number;
  /** With `expect`: the 2xx answers whose body did not match it (the others count by their status). */
  unexpected?: number;
}

/** Request `i`'s scheduled send time, ms after the start: evenly spaced at `rate` per second. */
export function scheduledAt(i: number, rate: number): number {
  return (i * 1000) / rate;
}

/** How many requests a pass of `durationS` at `rate` schedules. */
export function scheduledCount(rate: number, durationS: number): number {
  return Math.max(0, Math.floor(rate * durationS));
}

/**
 * Nearest-rank percentiles of `values` (ms, any order) together with `unanswered` requests that
 * rank above every value: a percentile that falls on one of them is null (not answered, later
 * than the wait). `ps` in percent. Taken as `laurel loadtest` takes them (HdrHistogram,
 * src/loadtest/histogram.ts: within 0.1% of the value).
 */
export function percentilesOf(values: ArrayLike<number>, unanswered: number, ps: number[]): (number | null)[] {
  const h = histogramOf(values);
  return ps.map((p) => percentileMs(h, p, unanswered));
}

function histogramOf(values: ArrayLike<number>) {
  const h = newHistogram();
  for (let i = 0; i < values.length; i++) recordMs(h, values[i]);
  return h;
}

/**
 * The latencies of an open-loop pass: for each request answered, its answer's time minus its
 * scheduled time (not its send time: a request the client could only send late, because the
 * server or the client fell behind, waited from its scheduled time). `answeredAt[i]` is NaN for a
 * request never answered. Times in ms from the same origin.
 */
export function latenciesFromSchedule(scheduled: ArrayLike<number>, answeredAt: ArrayLike<number>): { latencies: Float64Array; unanswered: number } {
  const out = new Float64Array(scheduled.length);
  let k = 0;
  for (let i = 0; i < scheduled.length; i++) {
    const a = answeredAt[i];
    if (Number.isNaN(a)) continue;
    out[k++] = a - scheduled[i];
  }
  return { latencies: out.subarray(0, k), unanswered: scheduled.length - k };
}

/** The five reported percentiles. */
export function percentiles(values: ArrayLike<number>, unanswered: number): Percentiles {
  return percentilesOfHistogram(histogramOf(values), unanswered);
}

/** User and idempotency key of request draw `r` (as bench/wrk/event.lua draws them). */
export function drawRequest(users: number, share: number, pool: number, random: () => number): { user: number; key: number | null } {
  if (random() < share) {
    const j = Math.floor(random() * pool);
    // 7919 is prime and coprime with 100,000: pool entries land on distinct, spread-out users.
    return { user: (j * 7919) % users, key: j };
  }
  return { user: Math.floor(random() * users), key: null };
}

const MARKER = RESULT_MARKER;
const CLIENT = fileURLToPath(new URL('./open-loop-client.js', import.meta.url));

/** Runs the client once (node, in its own process) and returns what it reported. */
export function runOpenLoop(o: OpenLoopOptions, signal: AbortSignal): Promise<OpenLoopResult> {
  return runReporting<OpenLoopResult>('open-loop', process.execPath, [CLIENT, JSON.stringify(o)], signal);
}

export { MARKER as OPEN_LOOP_MARKER };
