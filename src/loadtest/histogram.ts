/**
 * Latency histograms (HdrHistogram, `hdr-histogram-js`): values recorded in microseconds with 3
 * significant digits (a value is reported within 0.1% of what was recorded), up to an hour; a
 * record costs about 0.2 µs on the development machine, next to the tens of µs an HTTP request
 * costs the generator. Histograms travel between processes encoded (compressed base64) and are
 * merged by adding: the percentiles of several generator processes are those of every request,
 * never an average of percentiles.
 */
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';

/** An hour, in µs: the longest latency told apart. */
const HIGHEST_US = 3_600_000_000;

export function newHistogram(): Histogram {
  return build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3 });
}

/** Records a latency given in ms (rounded to the µs, at least 1 µs). */
export function recordMs(h: Histogram, ms: number): void {
  h.recordValue(Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000))));
}

export function encode(h: Histogram): string {
  return encodeIntoCompressedBase64(h);
}

export function decode(s: string): Histogram {
  return decodeFromCompressedBase64(s);
}

/** A new histogram holding the sum of `parts` (encoded or not). */
export function merged(parts: (Histogram | string)[]): Histogram {
  const out = newHistogram();
  for (const p of parts) out.add(typeof p === 'string' ? decode(p) : p);
  return out;
}

/** Latency percentiles in ms; null where the percentile falls on a request never answered. */
export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

/**
 * The percentile `p` (0 to 100) of the recorded values together with `unanswered` requests that
 * rank above every value recorded (a request with no answer took longer than any that had one):
 * null when the rank falls on one of those. Ranks are nearest-rank, as HdrHistogram takes them.
 */
export function percentileMs(h: Histogram, p: number, unanswered = 0): number | null {
  const answered = h.totalCount;
  const n = answered + unanswered;
  if (n === 0) return null;
  // (Less a hair: 99.9 / 100 * 1000 is 999.0000000000001 in floating point.)
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n - 1e-9)));
  if (rank > answered) return null;
  if (rank === answered) return h.maxValue / 1000;
  // The percentile among the answered values that has the same rank (half a rank below it, so
  // that neither rounding nor HdrHistogram's own ceiling moves it to the next one).
  return h.getValueAtPercentile(((rank - 0.5) / answered) * 100) / 1000;
}

export function percentiles(h: Histogram, unanswered = 0): Percentiles {
  const at = (p: number) => percentileMs(h, p, unanswered);
  return { p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: at(100) };
}

/**
 * The distribution as points for a percentile plot: for each `p` of a spread over the nines
 * (0, 50, 75, 90, ... 99.999), the latency in ms at it. Empty for an empty histogram.
 */
export function distribution(h: Histogram): { percentile: number; ms: number }[] {
  if (h.totalCount === 0) return [];
  const out: { percentile: number; ms: number }[] = [];
  for (let nines = 0; nines <= 5; nines += 0.125) {
    const p = 100 * (1 - 10 ** -nines);
    out.push({ percentile: Number(p.toFixed(4)), ms: h.getValueAtPercentile(p) / 1000 });
  }
  out.push({ percentile: 100, ms: h.maxValue / 1000 });
  return out;
}

export type { Histogram };
