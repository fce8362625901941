/**
 * The load test's report: the generator processes' figures merged (their histograms added, so
 * the percentiles are those of every request), the verdict a CI pipeline gates on, the table
 * printed at the end and the JSON of `--out` (docs/load-testing.md).
 */
import { distribution, merged, percentiles, type Histogram, type Percentiles } from './histogram.js';
import type { OperationResult, WorkerMessage } from './protocol.js';
import { rateAt, scheduledTotal, type Schedule } from './schedule.js';

type Done = Extract<WorkerMessage, { type: 'done' }>;
type Tick = Extract<WorkerMessage, { type: 'tick' }>;

export interface OperationReport {
  /** Requests due (for `batch-processed`: batches followed). */
  count: number;
  sent: number;
  answered: number;
  /** Answers with a 2xx status, per second of the run. */
  achieved: number;
  latencyMs: Percentiles;
  /** Answers that were not 2xx by status, and requests without an answer by reason. */
  errors: Record<string, number>;
  /** Events a request carries (the batch's size under --batch). */
  items: number;
}

export interface SecondPoint {
  second: number;
  /** The rate the schedule asked for in the middle of that second. */
  asked: number;
  sent: number;
  answered: number;
  failed: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

export interface Report {
  url: string;
  runId: string;
  scenario: string;
  startedAt: string;
  /** The rate asked for, averaged over the run: requests per second (events per second under --batch). */
  target: number;
  /** 2xx answers per second over the run (events per second under --batch, an item counted at the 202). */
  achieved: number;
  /** What was sent, per second of the run (same unit). */
  sentRate: number;
  durationS: number;
  /** Requests due, sent, answered (whatever the status), failed (not 2xx, or no answer). */
  scheduled: number;
  sent: number;
  requests: number;
  failed: number;
  errors: Record<string, number>;
  /** From each request's due time to its whole answer, every request operation together. */
  latencyMs: Percentiles;
  operations: Record<string, OperationReport>;
  generator: {
    workers: number;
    connections: number;
    /** From due time to the request handed to a free connection: the generator's own delay. */
    sendDelayMs: Percentiles;
    /**
     * How late the generator processes' event loops ran (the worst process at each percentile): a
     * send or the reading of an answer waits that long when the generator's core is busy.
     */
    loopDelayMs: { p50: number; p90: number; p99: number; max: number };
    /** Requests that found every connection busy and waited for one (the server's latency, counted). */
    waitedForConnection: number;
    /** Each process's CPU over its run, percent of one core. */
    cpuPercent: number[];
    /** True when the generator, not the server, may have set the figures; `notes` say why. */
    limited: boolean;
    notes: string[];
  };
  /** Second by second (by the time the answers arrived). */
  series: SecondPoint[];
  /** The latency at percentiles spread over the nines, every request operation together. */
  distribution: { percentile: number; ms: number }[];
  /** Exit 0 when `pass`; `reasons` say what failed. */
  verdict: { pass: boolean; reasons: string[] };
}

/** Operations that are requests of the load (`batch-processed` is a lag followed after them). */
const FOLLOWED = new Set(['batch-processed']);

/**
 * Sends, or an event loop, later than this at p99 mean the generator's own delay is in the
 * latencies at that size: figures of a few ms are then not the server's alone.
 */
const SEND_DELAY_LIMIT_MS = 2;
/** A generator process busier than this (percent of a core) may have been the limit. */
const CPU_LIMIT = 90;

export interface ReportInput {
  url: string;
  runId: string;
  scenario: string;
  startedAt: string;
  /** The schedule the processes shared (in requests). */
  schedule: Schedule;
  /** Events per request (the batch's size; 1 without --batch). */
  items: number;
  workers: number;
  connections: number;
  done: Done[];
  ticks: Tick[];
}

function errorsOf(statuses: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(statuses).filter(([s]) => !/^2\d\d$/.test(s)));
}

function sum(xs: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) for (const [k, v] of Object.entries(x)) out[k] = (out[k] ?? 0) + v;
  return out;
}

const count = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

export function buildReport(input: ReportInput): Report {
  const { schedule, items } = input;
  const durationS = schedule.durationS;
  const names = [...new Set(input.done.flatMap((d) => Object.keys(d.operations)))];
  const operations: Record<string, OperationReport> = {};
  const histograms = new Map<string, Histogram>();
  const unansweredOf = new Map<string, number>();
  for (const name of names) {
    const parts = input.done.map((d) => d.operations[name]).filter((o): o is OperationResult => o !== undefined);
    const h = merged(parts.map((p) => p.histogram));
    histograms.set(name, h);
    const statuses = sum(parts.map((p) => p.statuses));
    const unanswered = parts.reduce((a, p) => a + p.unanswered, 0);
    unansweredOf.set(name, unanswered);
    const ok = Object.entries(statuses).filter(([s]) => /^2\d\d$/.test(s)).reduce((a, [, n]) => a + n, 0);
    operations[name] = {
      count: parts.reduce((a, p) => a + p.scheduled, 0),
      sent: parts.reduce((a, p) => a + p.sent, 0),
      answered: parts.reduce((a, p) => a + p.answered, 0),
      achieved: ok / durationS,
      latencyMs: percentiles(h, unanswered),
      errors: errorsOf(statuses),
      items: parts[0]?.items ?? 1,
    };
  }
  const load = names.filter((n) => !FOLLOWED.has(n));
  const all = merged(load.map((n) => histograms.get(n)!));
  const unanswered = load.reduce((a, n) => a + unansweredOf.get(n)!, 0);
  // Due: the whole schedule (a run stopped early did not send the rest, and says so).
  const scheduled = scheduledTotal(schedule);
  const sent = load.reduce((a, n) => a + operations[n]!.sent, 0);
  const answered = load.reduce((a, n) => a + operations[n]!.answered, 0);
  const errors = sum(load.map((n) => operations[n]!.errors));
  const failed = count(errors) + Math.max(0, scheduled - sent);
  const okRequests = load.reduce((a, n) => a + operations[n]!.achieved * durationS, 0);

  const sendDelay = merged(input.done.map((d) => d.sendDelay));
  const sendDelayMs = percentiles(sendDelay);
  const cpuPercent = input.done.map((d) => Math.round(d.cpuPercent));
  const waitedForConnection = input.done.reduce((a, d) => a + d.waitedForConnection, 0);
  const worst = (k: 'p50' | 'p90' | 'p99' | 'max') => Math.max(0, ...input.done.map((d) => d.loopDelayMs[k]));
  const loopDelayMs = { p50: worst('p50'), p90: worst('p90'), p99: worst('p99'), max: worst('max') };
  const notes: string[] = [];
  let limited = false;
  if ((sendDelayMs.p99 ?? 0) > SEND_DELAY_LIMIT_MS || loopDelayMs.p99 > SEND_DELAY_LIMIT_MS) {
    limited = true;
    notes.push(`the generator ran late (p99 ${(sendDelayMs.p99 ?? 0).toFixed(1)} ms from a request's due time to its send, its event loop ${loopDelayMs.p99.toFixed(1)} ms late): ` +
      'part of the latency is its own; add --workers, cores or a quieter machine');
  }
  const busy = cpuPercent.filter((c) => c >= CPU_LIMIT);
  if (busy.length > 0) {
    limited = true;
    notes.push(`${busy.length} of ${cpuPercent.length} generator processes used ${busy.join(', ')}% of a core: add --workers (and cores) before trusting a higher rate`);
  }
  if (sent < scheduled) {
    limited = true;
    notes.push(`${scheduled - sent} of ${scheduled} requests due were never sent (the run stopped or the generator fell behind)`);
  }
  if (waitedForConnection > 0.01 * Math.max(1, sent)) {
    notes.push(`${waitedForConnection} requests found every connection busy and waited for one (their wait is in the latency): ` +
      'the server answered slower than --connections allows at this rate; raise --connections to send them on time');
  }

  const reasons: string[] = [];
  if (failed > 0.01 * scheduled) reasons.push(`${failed} of ${scheduled} requests failed (${((100 * failed) / Math.max(1, scheduled)).toFixed(2)}%, over 1%)`);
  if (sent < 0.95 * scheduled) reasons.push(`${sent} of ${scheduled} requests were sent (${((100 * sent) / Math.max(1, scheduled)).toFixed(1)}%, under 95% of the rate)`);

  return {
    url: input.url,
    runId: input.runId,
    scenario: input.scenario,
    startedAt: input.startedAt,
    target: (scheduled * items) / durationS,
    achieved: (okRequests * items) / durationS,
    sentRate: (sent * items) / durationS,
    durationS,
    scheduled,
    sent,
    requests: answered,
    failed,
    errors,
    latencyMs: percentiles(all, unanswered),
    operations,
    generator: { workers: input.workers, connections: input.connections, sendDelayMs, loopDelayMs, waitedForConnection, cpuPercent, limited, notes },
    series: seriesOf(input.ticks, schedule),
    distribution: distribution(all),
    verdict: { pass: reasons.length === 0, reasons },
  };
}

/** The ticks of every process merged second by second. */
export function seriesOf(ticks: Tick[], schedule: Schedule): SecondPoint[] {
  const bySecond = new Map<number, Tick[]>();
  for (const t of ticks) {
    if (t.second < 0) continue;
    bySecond.set(t.second, [...(bySecond.get(t.second) ?? []), t]);
  }
  return [...bySecond.keys()].sort((a, b) => a - b).map((second) => pointOf(second, bySecond.get(second)!, schedule));
}

export function pointOf(second: number, ticks: Tick[], schedule: Schedule, h: Histogram = merged(ticks.map((t) => t.histogram))): SecondPoint {
  const p = percentiles(h);
  return {
    second,
    asked: second < schedule.durationS ? rateAt(schedule, (second + 0.5) * 1000) : 0,
    sent: ticks.reduce((a, t) => a + t.sent, 0),
    answered: ticks.reduce((a, t) => a + t.answered, 0),
    failed: ticks.reduce((a, t) => a + t.failed, 0),
    p50: p.p50, p99: p.p99, max: p.max,
  };
}

const ms = (x: number | null) => (x === null ? 'n/a' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));

/** The table printed at the end: one row per operation, then every request together. */
export function formatTable(r: Report): string {
  const head = ['operation', 'count', 'rate/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'errors'];
  const rows: string[][] = [];
  const errs = (e: Record<string, number>) => (Object.keys(e).length === 0 ? '-' : Object.entries(e).map(([s, n]) => `${s}: ${n}`).join(', '));
  const row = (name: string, count: number, rate: number, l: Percentiles, e: Record<string, number>) =>
    rows.push([name, String(count), rate.toFixed(1), ms(l.p50), ms(l.p90), ms(l.p99), ms(l.p999), ms(l.max), errs(e)]);
  for (const [name, o] of Object.entries(r.operations)) row(name, o.count, o.achieved, o.latencyMs, o.errors);
  const loads = Object.entries(r.operations).filter(([n]) => !FOLLOWED.has(n));
  if (loads.length > 1) row('all', r.scheduled, loads.reduce((a, [, o]) => a + o.achieved, 0), r.latencyMs, r.errors);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

/** The summary printed under the table. */
export function formatSummary(r: Report, unit: string): string {
  const lines = [
    `asked ${r.target.toFixed(1)} ${unit}/s, sent ${r.sentRate.toFixed(1)}/s, achieved ${r.achieved.toFixed(1)}/s (2xx) over ${r.durationS} s; ` +
      `${r.failed} of ${r.scheduled} requests failed`,
    `generator: ${r.generator.workers} process(es), ${r.generator.connections} connections, send delay p99 ${ms(r.generator.sendDelayMs.p99)} ms, ` +
      `event loop late p99 ${ms(r.generator.loopDelayMs.p99)} ms, CPU ${r.generator.cpuPercent.map((c) => `${c}%`).join(', ')} of a core`,
    ...r.generator.notes.map((n) => `note: ${n}`),
    r.verdict.pass ? 'PASS' : `FAIL: ${r.verdict.reasons.join('; ')}`,
  ];
  return lines.join('\n');
}

