/**
 * The written report: one markdown table of the variants side by side (median over rounds and
 * every round's req/s), the ratios and the targets, printed and saved with the machine facts and
 * every round's full results (bench/results/latest.{json,md}), and copied into bench/README.md
 * between its results markers so the docs show the last measured run.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { baselineName } from './baseline.js';
import type { CpuPerRequest } from './cpu.js';
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
  /** CPU µs per request of the server, Redis and wrk during the measured pass (bench/cpu.ts). */
  cpu: CpuPerRequest;
  wrk: WrkResult;
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
  /** Seconds of one turn: the variants are measured in turns until each has had `durationS`. */
  sliceS: number;
  timeoutS: number;
  users: number;
  idempotencyShare: number;
  idempotencyPool: number;
  redisUrl: string;
  /** BENCH_BASELINE: the commit each laurel variant is also run as of (`<name>@base`), or null. */
  baseline: { revision: string; commit: string } | null;
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

/** Every laurel variant against the design's floor (the foundation's target, kept by each issue). */
export const TARGETS: Target[] = [
  { of: 'laurel-event', over: 'trivial-script', threshold: 0.6 },
  { of: 'laurel-streaks', over: 'trivial-script', threshold: 0.6 },
  { of: 'laurel-points', over: 'trivial-script', threshold: 0.6 },
  { of: 'laurel-features', over: 'trivial-script', threshold: 0.6 },
];

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
  cpu: CpuPerRequest = { server: null, redis: null, wrk: null },
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
    cpu: {
      server: medianOrNull(results.map((v) => v.cpu?.server ?? null)),
      redis: medianOrNull(results.map((v) => v.cpu?.redis ?? null)),
      wrk: medianOrNull(results.map((v) => v.cpu?.wrk ?? null)),
    },
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
  return { machine, settings, rounds, variants, ratios, targets, target: targets[0] };
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
const cpuCell = (v: VariantSummary) => `${us(v.cpu.server)} / ${us(v.cpu.redis)} / ${us(v.cpu.wrk)}`;
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
    `Measured ${m.date} on ${m.cpus} × ${m.cpuModel}, Node ${m.node}, Redis ${m.redis}, ${m.wrk}` +
      ` (commit ${m.commit.slice(0, 12)}, load average at start ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')}).`,
    `wrk: ${s.threads} threads, ${s.connections} connections, ${s.warmupS} s warm-up (discarded), then ${s.durationS} s measured per variant, in turns of ${s.sliceS} s;` +
      ` ${s.users.toLocaleString('en-US')} users, ${s.idempotencyShare * 100}% of requests with an Idempotency-Key from a pool of ${s.idempotencyPool.toLocaleString('en-US')}.`,
    many
      ? `${plural(n, 'round')}, each with a fresh server per variant, all started first, then measured in turns (forwards, then backwards),` +
        ` in rotated order (${orders}). req/s: each round's requests over its measured seconds, the median over rounds, then each round's` +
        ' (round 1 first); spread: (max − min) / median; p50 and p99: the median over rounds of each percentile (in a round, the median' +
        ' over its turns); CPU: each process\'s user and system time over the measured turns per request, the median over rounds' +
        ' (bench/cpu.ts); errors and responses: summed over rounds.'
      : '1 round: one measurement per variant; set BENCH_ROUNDS ≥ 3 to compare runs on a noisy machine.',
    `Machine speed before each round (a fixed JavaScript loop, ms; lower is faster): ${report.rounds.map((r) => int(r.speedProbeMs)).join(' / ')}.`,
    ...(s.baseline === null ? [] : [
      `Baseline: ${s.baseline.revision} (commit ${s.baseline.commit.slice(0, 12)}): each laurel variant also runs as of that commit,` +
        ` as \`<variant>${baselineName('')}\`, in the same turns; \`<variant> / <variant>${baselineName('')}\` is this checkout's rate over the baseline's.`,
    ]),
    '',
    ...header,
    ...report.variants.map(row),
    '',
    ...report.ratios.map((r) => ratioLine(r, n)),
    ...report.targets.map(targetLine),
  ];
  return lines.join('\n') + '\n';
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
