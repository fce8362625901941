/**
 * The bench's own arithmetic (bench/report.ts): a variant measured in turns is reported as one
 * pass of all its turns; a baseline's variants are compared with this checkout's.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { baselineName, prepareBaseline } from '../../bench/baseline.js';
import { mergeSlices, RATIO_PAIRS, ratioPairs, variantResult } from '../../bench/report.js';
import type { WrkResult } from '../../bench/wrk.js';

function slice(requests: number, seconds: number, p50: number, p99: number, statuses: Record<string, number>): WrkResult {
  return {
    durationUs: seconds * 1e6, requests, bytes: requests * 100,
    errors: { connect: 0, read: 1, write: 0, status: 0, timeout: 0 },
    latencyUs: { p50, p90: p50 * 2, p99, p999: p99 * 2, mean: p50, stdev: 10, max: p99 * 3 },
    statuses,
  };
}

describe('bench: turns merged into one pass', () => {
  it('sums counts and time, takes the median of each percentile, weights the mean by requests', () => {
    const merged = mergeSlices([
      slice(30_000, 2, 1000, 5000, { 201: 29_000, 202: 1000 }),
      slice(10_000, 2, 3000, 9000, { 201: 10_000 }),
      slice(20_000, 2, 2000, 7000, { 201: 19_000, 202: 500, 422: 500 }),
    ]);
    expect(merged.requests).toBe(60_000);
    expect(merged.durationUs).toBe(6e6);
    expect(merged.errors.read).toBe(3);
    expect(merged.statuses).toEqual({ 201: 58_000, 202: 1500, 422: 500 });
    expect(merged.latencyUs.p50).toBe(2000);
    expect(merged.latencyUs.p99).toBe(7000);
    expect(merged.latencyUs.mean).toBeCloseTo((30_000 * 1000 + 10_000 * 3000 + 20_000 * 2000) / 60_000);
    expect(merged.latencyUs.max).toBe(27_000);
    // req/s of the whole: all requests over all measured seconds, not a mean of the turns' rates.
    const r = variantResult('x', 'x', merged, null, 0);
    expect(r.requestsPerSecond).toBe(10_000);
    expect(r.non2xx).toBe(500);
  });

  it('leaves a single pass as it is', () => {
    const one = slice(5, 1, 1, 2, { 201: 5 });
    expect(mergeSlices([one])).toBe(one);
  });
});

describe('bench: a baseline (BENCH_BASELINE)', () => {
  it('reports each variant over its baseline twin first, and only where both ran', () => {
    const pairs = ratioPairs(['trivial-script', 'laurel-points', baselineName('laurel-points'), 'laurel-event']);
    expect(pairs[0]).toEqual(['laurel-points', 'laurel-points@base']);
    expect(pairs.filter(([, over]) => over.endsWith('@base'))).toHaveLength(1);
    expect(pairs.slice(1)).toEqual(RATIO_PAIRS);
    expect(ratioPairs(['laurel-points'])).toEqual(RATIO_PAIRS);
  });

  it('refuses what is not a commit of the repository, with the reason', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(() => prepareBaseline(root, 'no-such-branch-x')).toThrow(/no commit "no-such-branch-x"/);
    expect(() => prepareBaseline(root, 'HEAD; rm -rf /')).toThrow(/is not a git revision/);
  });
});
