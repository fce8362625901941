/**
 * The load generator: wrk with a Lua script (bench/wrk/*.lua) that varies each request and
 * reports through its done() callback as one JSON line. Parsing that line is sturdier than
 * parsing wrk's text summary, whose units change with magnitude (us, ms, s; k, M).
 */
import { spawnSync } from 'node:child_process';
import { runReporting } from './processes.js';

export interface WrkOptions {
  url: string;
  script: string;
  /** Passed to the script's init(args). */
  scriptArgs: string[];
  threads: number;
  connections: number;
  durationS: number;
  /** Requests slower than this count as timeouts (wrk's own default is 2 s). */
  timeoutS: number;
}

export interface WrkResult {
  durationUs: number;
  requests: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { p50: number; p90: number; p99: number; p999: number; mean: number; stdev: number; max: number };
  /** Responses per HTTP status, e.g. { "201": 9000, "202": 120 }. */
  statuses: Record<string, number>;
}

/** wrk's version line, or null when wrk is not on PATH. */
export function wrkVersion(): string | null {
  const r = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (r.error) return null;
  // `wrk -v` prints the version and the usage, and exits 1: only the first line matters.
  const first = `${r.stdout}${r.stderr}`.split('\n').find((l) => l.startsWith('wrk'));
  return first?.replace(/\s+Copyright.*$/, '').trim() ?? 'wrk (version unknown)';
}

export const WRK_MISSING =
  'wrk is not on PATH. The bench drives load with wrk; install it first:\n' +
  '  Debian/Ubuntu: sudo apt-get install -y wrk\n' +
  '  macOS:         brew install wrk\n' +
  'then run `npm run bench` again.';

function args(o: WrkOptions): string[] {
  return [
    '-t', String(o.threads), '-c', String(o.connections), '-d', `${o.durationS}s`,
    '--timeout', `${o.timeoutS}s`, '-s', o.script, o.url, '--', ...o.scriptArgs,
  ];
}

/** Runs wrk once and returns what its done() callback reported. */
export function runWrk(o: WrkOptions, signal: AbortSignal): Promise<WrkResult> {
  return runReporting<WrkResult>('wrk', 'wrk', args(o), signal);
}

/**
 * The statuses' key of a batch refused with 503 `batch_backlog_full` (bench/wrk/results.lua): the
 * backlog gate's answer to a closed loop that sends batches faster than the workers apply them,
 * which is what it is for, not a failure.
 */
export const BACKLOG_FULL = '503:batch_backlog_full';

/**
 * Responses outside 2xx: failures for every variant (201 and 202 both count as success), except
 * the batches the backlog gate refused (`refusedBacklogFull`).
 */
export function non2xx(r: WrkResult): number {
  let n = 0;
  for (const [status, count] of Object.entries(r.statuses)) {
    if (!status.startsWith('2') && status !== BACKLOG_FULL) n += count;
  }
  return n;
}

/** The responses in 2xx: for a batch variant, whose statuses count events, the events accepted. */
export function acceptedEvents(statuses: Record<string, number>): number {
  let n = 0;
  for (const [status, count] of Object.entries(statuses)) {
    if (status.startsWith('2')) n += count;
  }
  return n;
}

/** Batches refused with 503 `batch_backlog_full`. */
export function refusedBacklogFull(r: WrkResult): number {
  return r.statuses[BACKLOG_FULL] ?? 0;
}

/** Connect, read, write errors and timeouts. */
export function socketErrors(r: WrkResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.timeout;
}
