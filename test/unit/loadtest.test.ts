/**
 * The load test's arithmetic (src/loadtest/): the open loop's schedule at a fixed rate and on a
 * ramp, shared between generator processes; the HdrHistogram percentiles with requests never
 * answered ranked above every answer, and merged across processes; the options refused.
 */
import { describe, expect, it } from 'vitest';
import { merged, newHistogram, percentileMs, percentiles, recordMs } from '../../src/loadtest/histogram.js';
import { parseLoadtestOptions } from '../../src/loadtest/options.js';
import { drawOperation } from '../../src/loadtest/requests.js';
import { dueAt, scheduledInSecond, scheduledTotal } from '../../src/loadtest/schedule.js';

describe('the schedule', () => {
  it('spaces a fixed rate evenly', () => {
    const s = { from: 200, to: 200, durationS: 5 };
    expect(scheduledTotal(s)).toBe(1000);
    expect(dueAt(s, 0)).toBe(0);
    expect(dueAt(s, 1)).toBe(5);
    expect(dueAt(s, 999)).toBe(4995);
    expect([0, 1, 2, 3, 4].map((k) => scheduledInSecond(s, k))).toEqual([200, 200, 200, 200, 200]);
  });

  it('ramps the rate linearly: each second holds the rate of its middle', () => {
    const s = { from: 100, to: 1100, durationS: 10 };
    expect(scheduledTotal(s)).toBe(6000);
    const perSecond = Array.from({ length: 10 }, (_, k) => scheduledInSecond(s, k));
    expect(perSecond).toEqual([150, 250, 350, 450, 550, 650, 750, 850, 950, 1050]);
    // Due times rise, and the last request falls in the last second.
    for (let i = 1; i < 6000; i += 97) expect(dueAt(s, i)).toBeGreaterThan(dueAt(s, i - 1));
    expect(dueAt(s, 5999)).toBeGreaterThan(9000);
    expect(dueAt(s, 5999)).toBeLessThan(10_000);
    // Falling, and from nothing.
    expect(scheduledTotal({ from: 1000, to: 0, durationS: 4 })).toBe(2000);
    expect(dueAt({ from: 1000, to: 0, durationS: 4 }, 1999)).toBeLessThan(4000);
    expect(dueAt({ from: 0, to: 100, durationS: 2 }, 25)).toBeCloseTo(1000, 6);
  });
});

describe('the histograms', () => {
  it('gives nearest-rank percentiles within HdrHistogram\'s 0.1%', () => {
    const h = newHistogram();
    for (let v = 1; v <= 1000; v++) recordMs(h, v / 10);
    const p = percentiles(h);
    expect(p.p50!).toBeCloseTo(50, 1);
    expect(p.p90!).toBeCloseTo(90, 1);
    expect(p.p99!).toBeCloseTo(99, 1);
    expect(p.p999!).toBeCloseTo(99.9, 1);
    expect(p.max!).toBeCloseTo(100, 1);
  });

  it('ranks requests never answered above every answer', () => {
    const h = newHistogram();
    for (let v = 1; v <= 98; v++) recordMs(h, v);
    expect(percentileMs(h, 50, 2)).toBeCloseTo(50, 1);
    expect(percentileMs(h, 98, 2)).toBeCloseTo(98, 1);
    expect(percentileMs(h, 99, 2)).toBeNull();
    expect(percentileMs(newHistogram(), 50)).toBeNull();
  });

  it('merges processes by adding their counts, not averaging their percentiles', () => {
    const fast = newHistogram();
    const slow = newHistogram();
    for (let i = 0; i < 900; i++) recordMs(fast, 1);
    for (let i = 0; i < 100; i++) recordMs(slow, 100);
    const all = merged([fast, slow]);
    expect(all.totalCount).toBe(1000);
    expect(percentileMs(all, 90)).toBeCloseTo(1, 2);
    expect(percentileMs(all, 91)).toBeCloseTo(100, 0);
  });
});

describe('the mix', () => {
  it('draws operations by weight', () => {
    const mix = [{ name: 'event' as const, weight: 50 }, { name: 'user' as const, weight: 25 }, { name: 'leaderboard' as const, weight: 25 }];
    expect(drawOperation(mix, 0)).toBe('event');
    expect(drawOperation(mix, 0.49)).toBe('event');
    expect(drawOperation(mix, 0.5)).toBe('user');
    expect(drawOperation(mix, 0.99)).toBe('leaderboard');
  });
});

describe('the options', () => {
  const base = ['--url', 'http://127.0.0.1:3000', '--key', 'k'];
  it('takes the defaults and a ramp', () => {
    const o = parseLoadtestOptions([...base, '--ramp', '10:100', '--duration', '20'])!;
    expect(o.schedule).toEqual({ from: 10, to: 100, durationS: 20 });
    expect(o).toMatchObject({ users: 10_000, connections: 64, workers: 1, batch: 0, setup: true, keep: false, tenant: null });
    expect(o.scenario.name).toBe('events');
    expect(parseLoadtestOptions(['--help'])).toBeNull();
  });

  it('refuses what it cannot run, naming it', () => {
    const refused = (args: string[]) => {
      try {
        parseLoadtestOptions(args);
      } catch (err) {
        return (err as Error).message.split('\n')[0];
      }
      return 'accepted';
    };
    expect(refused(['--key', 'k'])).toMatch(/--url is needed/);
    expect(refused(['--url', 'ftp://x', '--key', 'k'])).toMatch(/http:\/\/ or https:\/\//);
    expect(refused([...base, '--rate', '-1'])).toMatch(/--rate must be a number/);
    expect(refused([...base, '--ramp', '5'])).toMatch(/--ramp must be <from>:<to>/);
    expect(refused([...base, '--workers', '4', '--connections', '2'])).toMatch(/at least --workers/);
    expect(refused([...base, '--no-setup'])).toMatch(/--no-setup needs --metric/);
    expect(refused([...base, '--leaderboard', 'top'])).toMatch(/goes with --no-setup/);
    expect(refused([...base, '--batch', '5000'])).toMatch(/--batch must be a whole number from 1 to 1000/);
    expect(refused([...base, '--scenario', '/nonexistent.json'])).toMatch(/neither events, mixed nor a file/);
  });
});
