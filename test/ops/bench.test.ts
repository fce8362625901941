/**
 * The bench's own arithmetic (bench/report.ts): a variant measured in turns is reported as one
 * pass of all its turns; a baseline's variants are compared with this checkout's; the drain's
 * backlog (bench/drain.ts), the open loop's latencies (bench/open-loop.ts), the system's targets
 * over rounds and the CPU per request (bench/cpu.ts); the steady-state workload's draw
 * (bench/steady-draw.ts, bench/steady-population.ts).
 */
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { baselineName, prepareBaseline, twinOf } from '../../bench/baseline.js';
import { addTicks, childPids, perRequest, sample, statTimes, type CpuSample } from '../../bench/cpu.js';
import {
  addMark, compareStreamIds, copiedOf, lagSeconds, marksAfter, mergeDrainTurns, openRange, parseStreamId, planCopied, summarizeDrain,
  type DrainSample, type DrainTurn, type Mark, type PartitionRead,
} from '../../bench/drain.js';
import {
  drawRequest, latenciesFromSchedule, percentiles, percentilesOf, scheduledAt, scheduledCount, type OpenLoopOptions, type OpenLoopResult,
} from '../../bench/open-loop.js';
import { runReporting } from '../../bench/processes.js';
import { databaseUrlFor } from '../../bench/postgres.js';
import {
  buildReport, judgeSystemTarget, medianBeyond, medianProfile, mergeSlices, RATIO_PAIRS, ratioPairs, renderCommands, renderFrames, renderSystem, summarizeDrainRounds, variantResult,
  type Machine, type RoundResult, type Settings,
} from '../../bench/report.js';
import { acceptedEvents, BACKLOG_FULL, refusedBacklogFull, type WrkResult } from '../../bench/wrk.js';
import { random } from '../../bench/random.js';
import { commandStats, connectRedis } from '../../bench/redis.js';
import { commandsPerRequest, scriptsPerRequest, slowlogEverything, slowlogRead } from '../../bench/redis-profile.js';
import { startRedisServer } from '../support/redis-server.js';
import { Redis } from 'ioredis';
import { drawSteady, STEADY_NEW_SHARE, STEADY_SKEW } from '../../bench/steady-draw.js';
import { dayItems } from '../../bench/steady-population.js';

/** The open loop's client as the bench runs it: built (`npm test` builds first), in a process of its own. */
const OPEN_LOOP_CLIENT = fileURLToPath(new URL('../../dist/bench/open-loop-client.js', import.meta.url));

/** The built client's report of one pass with the options `options(port)` makes, against a real server answering with `handler` on loopback. */
async function clientAgainst(handler: RequestListener, options: (port: number) => OpenLoopOptions): Promise<OpenLoopResult> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const o = options((server.address() as AddressInfo).port);
    return await runReporting<OpenLoopResult>('open-loop', process.execPath, [OPEN_LOOP_CLIENT, JSON.stringify(o)], AbortSignal.timeout(20_000));
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

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

  it('counts the batches the backlog gate refused apart from the errors, and any other 503 as one', () => {
    const r = variantResult('laurel-batch', 'x', slice(1302, 1, 1000, 5000, { 202: 1000, [BACKLOG_FULL]: 300, 503: 2 }), null, 0);
    expect(r.non2xx).toBe(2);
    expect(refusedBacklogFull(r.wrk)).toBe(300);
    expect(variantResult('x', 'x', slice(10, 1, 1, 2, { 202: 10, [BACKLOG_FULL]: 4 }), null, 0).non2xx).toBe(0);
    // A batch variant's events applied are those of the batches accepted, not of those refused.
    expect(acceptedEvents({ 202: 1000, [BACKLOG_FULL]: 300, 503: 2 })).toBe(1000);
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

  it('knows the variant a twin is of', () => {
    expect(twinOf(baselineName('laurel-system'))).toBe('laurel-system');
    expect(twinOf('laurel-system')).toBeNull();
  });

  it('refuses what is not a commit of the repository, with the reason', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(() => prepareBaseline(root, 'no-such-branch-x')).toThrow(/no commit "no-such-branch-x"/);
    expect(() => prepareBaseline(root, 'HEAD; rm -rf /')).toThrow(/is not a git revision/);
  });
});

describe('bench: the event log drain\'s backlog (bench/drain.ts)', () => {
  const read = (cursor: string | null, lastId: string | null, added: number, firstId: string | null = null): PartitionRead => ({ cursor, lastId, added, firstId });

  it('orders stream ids by time, then sequence (not as text)', () => {
    expect(compareStreamIds('1000-9', '1000-10')).toBeLessThan(0);
    expect(compareStreamIds('999-5', '1000-0')).toBeLessThan(0);
    expect(compareStreamIds('1000-3', '1000-3')).toBe(0);
    expect(parseStreamId('1795465779772-12')).toEqual([1795465779772, 12]);
  });

  it('knows the entries up to the cursor without a read when a mark or the stream\'s end is there', () => {
    expect(planCopied([], read(null, '5-0', 7))).toEqual({ kind: 'known', copied: 0 });
    expect(planCopied([], read('5-0', '5-0', 7))).toEqual({ kind: 'known', copied: 7 });
    expect(planCopied([{ id: '3-0', count: 4 }, { id: '5-0', count: 7 }], read('3-0', '6-0', 9))).toEqual({ kind: 'known', copied: 4 });
  });

  it('counts from the last mark before the cursor, or back from the end when there is none', () => {
    const marks = [{ id: '2-0', count: 3 }, { id: '4-0', count: 6 }, { id: '6-0', count: 9 }];
    expect(planCopied(marks, read('5-1', '8-0', 12, '1-0'))).toEqual({ kind: 'after-mark', mark: { id: '4-0', count: 6 } });
    expect(planCopied(marks, read('1-5', '8-0', 12, '1-0'))).toEqual({ kind: 'to-end' });
    // The entries after the mark were trimmed (the first entry is past it): from the end.
    expect(planCopied(marks, read('5-1', '8-0', 12, '4-2'))).toEqual({ kind: 'to-end' });
    expect(copiedOf({ kind: 'after-mark', mark: { id: '4-0', count: 6 } }, read('5-1', '8-0', 12), 2)).toBe(8);
    expect(copiedOf({ kind: 'to-end' }, read('5-1', '8-0', 12), 4)).toBe(8);
    expect(openRange({ kind: 'to-end' }, read('5-1', '8-0', 12))).toEqual({ from: '5-1', to: '8-0' });
    expect(openRange({ kind: 'after-mark', mark: { id: '4-0', count: 6 } }, read('5-1', '8-0', 12))).toEqual({ from: '4-0', to: '5-1' });
  });

  it('keeps marks in id order and drops those the cursor has passed', () => {
    const marks = [{ id: '2-0', count: 3 }, { id: '4-0', count: 6 }];
    expect(addMark(marks, { id: '3-0', count: 5 }, null).map((m) => m.id)).toEqual(['2-0', '3-0', '4-0']);
    // The last mark at or before the cursor stays (the next count starts there).
    expect(addMark(marks, { id: '9-0', count: 20 }, '4-5').map((m) => m.id)).toEqual(['4-0', '9-0']);
  });

  it('follows a simulated stream exactly: appends, a cursor that moves, trims up to it', () => {
    // The stream as the drain leaves it: ids 1-0, 2-0, ...; the cursor moves forward by random
    // steps; entries up to the cursor may be trimmed. Each sample: plan, count, marks.
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    let added = 0;
    let first = 1;
    let cursor = 0;
    let marks: Mark[] = [];
    const idOf = (n: number) => `${n}-0`;
    for (let step = 0; step < 500; step++) {
      added += Math.floor(random() * 5);
      if (random() < 0.4) cursor = Math.min(added, cursor + Math.floor(random() * 12));
      if (random() < 0.3) first = Math.max(first, Math.min(cursor + 1, added));
      const r = read(cursor === 0 ? null : idOf(cursor), added === 0 ? null : idOf(added), added, added === 0 ? null : idOf(first));
      const plan = planCopied(marks, r);
      const range = openRange(plan, r);
      // The entries a read of the range would find: ids from..to that are still in the stream.
      const counted = range === null ? 0 : Math.max(0, Number(range.to.split('-')[0]) - Math.max(Number(range.from.split('-')[0]), first - 1));
      const copied = copiedOf(plan, r, counted);
      marks = marksAfter(marks, r, plan, copied);
      expect(added - copied).toBe(added - cursor);
    }
  });

  it('is as far behind as the oldest entry waiting', () => {
    expect(lagSeconds(10_500, '9000-3')).toBe(1.5);
    expect(lagSeconds(10_500, null)).toBe(0);
  });

  it('summarises a load: the worst during it, what was left, and when nothing was', () => {
    const s = (atMs: number, backlog: number, lagS: number): DrainSample => ({ atMs, backlog, lagS });
    const during = [s(0, 0, 0), s(250, 900, 0.8), s(500, 2500, 1.9), s(750, 1200, 0.6), s(1000, 3000, 1.2)];
    const d = summarizeDrain(during, [s(1000, 3100, 1.3), s(1350, 3100, 1.5), s(1600, 0, 0)], 1000);
    expect(d.maxBacklog).toBe(3000);
    expect(d.maxLagS).toBe(1.9);
    expect(d.backlogAtLoadEnd).toBe(3100);
    expect(d.drainedAfterS).toBeCloseTo(0.6);
    expect(d.leftAfter5s).toBe(0);
    // Never drained within the wait: no tail, and what was left 5 s after the load.
    const stuck = summarizeDrain([s(0, 10, 0.1), s(1000, 500, 1)], [s(3000, 400, 3), s(6000, 300, 6), s(9000, 200, 9)], 1000);
    expect(stuck.drainedAfterS).toBeNull();
    expect(stuck.leftAfter5s).toBe(300);
    // Turns of one pass: the worst of each; one turn never drained makes the pass never drained.
    const merged = mergeDrainTurns([d, stuck])!;
    expect(merged.maxLagS).toBe(1.9);
    expect(merged.drainedAfterS).toBeNull();
    expect(mergeDrainTurns([d, d])!.drainedAfterS).toBeCloseTo(0.6);
    expect(mergeDrainTurns([])).toBeNull();
    // Drained at the first sample after the load, taken in the load's last millisecond.
    expect(summarizeDrain(during, [s(1000, 0, 0)], 1000)).toMatchObject({ backlogAtLoadEnd: 0, drainedAfterS: 0, leftAfter5s: 0 });
  });
});

describe('bench: the open loop (bench/open-loop.ts)', () => {
  it('spaces requests evenly at the rate', () => {
    expect(scheduledCount(5000, 8)).toBe(40_000);
    expect(scheduledAt(0, 4000)).toBe(0);
    expect(scheduledAt(4000, 4000)).toBe(1000);
    expect(scheduledAt(3, 2000)).toBe(1.5);
  });

  it('measures from the scheduled time, so a request sent late waited from then (no coordinated omission)', () => {
    // Three requests due at 0, 1 and 2 ms; the server stalls until 10 ms and answers all at once.
    const { latencies, unanswered } = latenciesFromSchedule([0, 1, 2], [10, 10.5, 11]);
    expect([...latencies]).toEqual([10, 9.5, 9]);
    expect(unanswered).toBe(0);
    const lost = latenciesFromSchedule([0, 1, 2], [3, NaN, 4]);
    expect([...lost.latencies]).toEqual([3, 2]);
    expect(lost.unanswered).toBe(1);
  });

  it('takes nearest-rank percentiles, with requests never answered ranked above every answer', () => {
    // HdrHistogram's: each within 0.1% of the value at that rank.
    const near = (got: (number | null)[], want: (number | null)[]) => {
      expect(got.map((x) => x === null)).toEqual(want.map((x) => x === null));
      got.forEach((x, i) => { if (x !== null) expect(Math.abs(x - want[i]!) / want[i]!).toBeLessThanOrEqual(0.001); });
    };
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    near(percentilesOf(values, 0, [50, 99, 100]), [50, 99, 100]);
    // Two of 100 never answered: p99 falls on one of them.
    near(percentilesOf(values.slice(0, 98), 2, [50, 98, 99]), [50, 98, null]);
    expect(percentilesOf([], 0, [50])).toEqual([null]);
    const p = percentiles([5, 1, 3], 0);
    near([p.p50, p.p90, p.p99, p.p999, p.max], [3, 5, 5, 5, 5]);
  });

  it('sends the requests still waiting for a connection when the schedule has run out (the built client, a real server)', async () => {
    // Two connections to a server that answers after 5 ms carry 400 requests a second; 200 due in
    // 0.2 s leave about 120 waiting when the last falls due, each sent as an answer frees a connection.
    const r = await clientAgainst((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(201, { 'content-type': 'application/json', 'content-length': 2 }).end('{}'), 5));
    }, (port) => ({
      host: '127.0.0.1', port, path: '/events', apiKey: 'k', rate: 1000, durationS: 0.2, connections: 2,
      users: 100, idempotencyShare: 0.1, idempotencyPool: 10, tag: 't', timeoutS: 3,
    }));
    expect(r.waitedForConnection).toBeGreaterThan(50);
    expect(r).toMatchObject({ scheduled: 200, sent: 200, completed: 200, unanswered: 0, statuses: { 201: 200 } });
    // From the send, a request's latency is the server's 5 ms and the client's reading, not its
    // wait for a connection: below the latency from the schedule, which holds that wait.
    expect(r.latencyFromSendMs.p50!).toBeGreaterThanOrEqual(4.9);
    expect(r.latencyFromSendMs.p99!).toBeLessThan(r.latencyMs.p99!);
  });

  it('reads the paths it is given in order, keyed, and counts the 2xx answers whose body does not match (the built client, a real server)', async () => {
    const seen: { method: string | undefined; url: string | undefined; key: string | string[] | undefined; length: string | undefined }[] = [];
    const r = await clientAgainst((req, res) => {
      seen.push({ method: req.method, url: req.url, key: req.headers['x-api-key'], length: req.headers['content-length'] });
      req.resume();
      // i = 1 answers without a percentile: it does not match `expect`; i = 3 fails, counted by its status alone.
      const i = Number(new URL(req.url ?? '', 'http://x').searchParams.get('i'));
      const body = i % 2 === 0 ? '{"percentile":42.5}' : i === 1 ? '{"percentile":null}' : '{"error":"x"}';
      res.writeHead(i === 3 ? 500 : 200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
    }, (port) => ({
      host: '127.0.0.1', port, path: '', apiKey: 'k', rate: 200, durationS: 0.1, connections: 1,
      users: 0, idempotencyShare: 0, idempotencyPool: 1, tag: 'r', timeoutS: 3,
      gets: ['/b?i=0', '/b?i=1', '/b?i=2', '/b?i=3'], expect: '"percentile":\\d',
    }));
    expect(r).toMatchObject({ scheduled: 20, completed: 20, unanswered: 0, statuses: { 200: 15, 500: 5 }, unexpected: 5 });
    expect(seen.map((x) => x.url)).toEqual(Array.from({ length: 20 }, (_, i) => `/b?i=${i % 4}`));
    expect(seen.every((x) => x.method === 'GET' && x.key === 'k' && x.length === undefined)).toBe(true);
  });

  it('draws the requests as bench/wrk/event.lua does: keys bound to users, the share keyed', () => {
    const draws = [0.05, 0.5, 0.5, 0.25];
    let k = 0;
    const random = () => draws[k++];
    expect(drawRequest(100_000, 0.1, 20_000, random)).toEqual({ user: (10_000 * 7919) % 100_000, key: 10_000 });
    expect(drawRequest(100_000, 0.1, 20_000, random)).toEqual({ user: 25_000, key: null });
  });
});

describe('bench: the whole system over rounds (bench/report.ts)', () => {
  it('takes the median with "beyond measure" (null) above every number', () => {
    expect(medianBeyond([1, null, 3])).toBe(3);
    expect(medianBeyond([null, null, 3])).toBeNull();
    expect(medianBeyond([2, 4])).toBe(3);
    expect(medianBeyond([])).toBeNull();
  });

  it('summarises the drain over the rounds that ran it', () => {
    const turn = (maxLagS: number, drainedAfterS: number | null): DrainTurn => ({
      maxBacklog: 100, maxLagS, backlogAtLoadEnd: 50, lagAtLoadEndS: 1, drainedAfterS, leftAfter5s: drainedAfterS === null ? 9 : 0, samples: 10,
    });
    const d = summarizeDrainRounds([turn(1.5, 0.5), null, turn(2.5, null), turn(1.8, 1.1)])!;
    expect(d.maxLagS).toEqual({ perRound: [1.5, 2.5, 1.8], median: 1.8 });
    expect(d.drainedAfterS).toEqual({ perRound: [0.5, null, 1.1], median: 1.1 });
    expect(summarizeDrainRounds([null, null])).toBeNull();
  });

  it('judges a system target on the median of the rounds that measured it', () => {
    const round = (n: number, lag: number | null, tail: number | null, p99: number | null): RoundResult => ({
      round: n, startedAt: '', loadAverageAtStart: [], speedProbeMs: 100, order: ['laurel-system'], ratios: [],
      variants: [{
        ...variantResult('laurel-system', 'x', slice(1000, 1, 1000, 2000, { 201: 1000 }), null, 0),
        drain: lag === null ? null : { maxBacklog: 1, maxLagS: lag, backlogAtLoadEnd: 1, lagAtLoadEndS: 1, drainedAfterS: tail, leftAfter5s: 0, samples: 1 },
        openLoop: p99 === null ? null : {
          rate: 1, achievedRate: 1, durationS: 1, scheduled: 1, sent: 1, completed: 1, unanswered: 0, statuses: {}, waitedForConnection: 0,
          errors: { connect: 0, closed: 0, parse: 0 }, peak: 2, drain: null,
          latencyMs: { p50: 1, p90: 1, p99, p999: 1, max: 1 }, sendDelayMs: { p50: 0, p90: 0, p99: 0, p999: 0, max: 0 }, latencyFromSendMs: { p50: 1, p90: 1, p99, p999: 1, max: 1 },
          cpu: { server: null, workers: null, redis: null, postgres: null, wrk: null },
        },
      }],
    });
    const rounds = [round(1, 1.5, 0.5, 12), round(2, 2.5, null, 8), round(3, 1.9, 6, 9)];
    const lag = judgeSystemTarget({ variant: 'laurel-system', figure: 'drain-lag', threshold: 2 }, rounds);
    expect(lag).toMatchObject({ value: 1.9, roundsMet: 2, roundsMeasured: 3, met: true });
    const tail = judgeSystemTarget({ variant: 'laurel-system', figure: 'drain-tail', threshold: 5 }, rounds);
    expect(tail).toMatchObject({ perRound: [0.5, null, 6], value: 6, roundsMet: 1, met: false });
    const p99 = judgeSystemTarget({ variant: 'laurel-system', figure: 'open-loop-p99', threshold: 10 }, rounds);
    expect(p99).toMatchObject({ value: 9, roundsMet: 2, met: true });
    expect(judgeSystemTarget({ variant: 'laurel-split', figure: 'drain-lag', threshold: 2 }, rounds)).toMatchObject({ met: null, roundsMeasured: 0 });
  });
});

describe('bench: CPU per request of each process (bench/cpu.ts)', () => {
  it('reads the times after the command name, which may hold spaces and parentheses', () => {
    expect(statTimes('123 (postgres: 15/main: walwriter (x)) S 1 2 3 4 5 6 7 8 9 10 140 60 7 3 20 0')).toEqual([140, 60, 7, 3]);
  });

  it('sums the ticks of a pass\'s turns and divides by its requests; a process not there stays null', () => {
    const at = (server: number, postgres: number | null): CpuSample => ({ server, workers: null, redis: 10, postgres, children: 5 });
    let sum: CpuSample = { server: 0, workers: 0, redis: 0, postgres: 0, children: 0 };
    sum = addTicks(sum, at(100, 1000), at(150, 1040));
    sum = addTicks(sum, at(200, 1100), at(230, 1120));
    expect(sum).toEqual({ server: 80, workers: null, redis: 0, postgres: 60, children: 0 });
    // 10,000 µs a tick (100 Hz), 1,000 requests: 80 ticks = 800 µs a request.
    expect(perRequest({ server: 0, workers: 0, redis: 0, postgres: 0, children: 0 }, sum, 1000, 10_000)).toEqual({
      server: 800, workers: null, redis: 0, postgres: 600, wrk: 0,
    });
  });

  it('names each variant\'s own database on the server of DATABASE_URL', () => {
    expect(databaseUrlFor('postgres://postgres@127.0.0.1:5432/postgres', 'laurel_bench_0123456789ab'))
      .toBe('postgres://postgres@127.0.0.1:5432/laurel_bench_0123456789ab');
  });
});

describe('bench: several api processes (laurel-system-2)', () => {
  it('sums the CPU of the api processes, a primary\'s children; one gone leaves the figure unknown', async () => {
    const busy = 'const until = Date.now() + 300; while (Date.now() < until); setTimeout(() => {}, 60_000)';
    const kids = [spawn(process.execPath, ['-e', busy]), spawn(process.execPath, ['-e', busy])];
    try {
      await new Promise((r) => setTimeout(r, 1000));
      const pids = kids.map((k) => k.pid!);
      expect(childPids(process.pid)).toEqual(expect.arrayContaining(pids));
      const one = (pid: number) => sample({ server: pid, redis: null }, false).server!;
      const both = sample({ server: pids, redis: null }, false).server!;
      expect(both).toBe(one(pids[0]) + one(pids[1]));
      expect(both).toBeGreaterThan(0);
      expect(sample({ server: [], redis: null }, false).server).toBeNull();
      kids[1].kill('SIGKILL');
      await new Promise((r) => kids[1].once('exit', r));
      await new Promise((r) => setTimeout(r, 100));
      expect(sample({ server: pids, redis: null }, false).server).toBeNull();
    } finally {
      for (const k of kids) k.kill('SIGKILL');
    }
  });

  it('shows the api processes\' CPU and the primary\'s (the workers) apart, and how laurel ran', () => {
    const cpu = { server: 120, workers: 40, redis: 60, postgres: 10, wrk: 20 };
    const result = (name: string, apiProcesses: number, workers: number | null = cpu.workers) => ({
      ...variantResult(name, 'x', slice(1000, 1, 1000, 2000, { 201: 1000 }), null, 0, { ...cpu, workers }),
      processes: 'start' as const, apiProcesses,
      drain: { maxBacklog: 1, maxLagS: 1, backlogAtLoadEnd: 1, lagAtLoadEndS: 1, drainedAfterS: 0.5, leftAfter5s: 0, samples: 1 },
    });
    const names = ['laurel-system', 'laurel-system-2', 'laurel-system@base'];
    const rounds: RoundResult[] = [{
      round: 1, startedAt: '', loadAverageAtStart: [], speedProbeMs: 100, order: names, ratios: [],
      // A baseline tree that ran its one api process in the primary: no children, so no workers' CPU apart.
      variants: [result('laurel-system', 1), result('laurel-system-2', 2), result('laurel-system@base', 1, null)],
    }];
    const settings = { drainSampleMs: 250, drainCapS: 30, openLoopS: 0, connections: 64, timeoutS: 5 } as Settings;
    const lines = renderSystem(buildReport({} as Machine, settings, names, rounds));
    expect(lines.find((l) => l.startsWith('| laurel-system |'))).toContain('| `laurel start`: an api process + workers in the primary |');
    expect(lines.find((l) => l.startsWith('| laurel-system |'))).toContain('| 120.0 / 40.0 / 60.0 / 10.0 / 20.0 |');
    expect(lines.find((l) => l.startsWith('| laurel-system@base |'))).toContain('| 120.0 / in api / 60.0 / 10.0 / 20.0 |');
    expect(lines.find((l) => l.startsWith('| laurel-system-2 |'))).toContain('| `laurel start`: 2 api processes + workers in the primary |');
    expect(lines.find((l) => l.startsWith('| laurel-system-2 |'))).toContain('| 120.0 / 40.0 / 60.0 / 10.0 / 20.0 |');
  });
});

describe('bench: Redis by command (bench/redis-profile.ts)', () => {
  it('gives each command\'s calls and µs a request between two readings of a real Redis, the runner\'s INFO left out', async () => {
    const redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const key = `bench-profile-${process.pid}`;
    try {
      const before = await commandStats(redis);
      for (let i = 0; i < 50; i++) await redis.hset(key, `f${i}`, i);
      for (let i = 0; i < 25; i++) await redis.hget(key, `f${i}`);
      const after = await commandStats(redis);
      // 25 requests: other files' commands on the shared Redis may come in between, never fewer of these.
      const profile = commandsPerRequest(before, after, 25);
      expect(profile.find((c) => c.command === 'hset')!.calls).toBeGreaterThanOrEqual(2);
      expect(profile.find((c) => c.command === 'hget')!.calls).toBeGreaterThanOrEqual(1);
      expect(profile.find((c) => c.command === 'hset')!.us).toBeGreaterThan(0);
      expect(profile.some((c) => c.command === 'info')).toBe(false);
      expect(profile.map((c) => c.us)).toEqual([...profile.map((c) => c.us)].sort((a, b) => b - a));
    } finally {
      await redis.del(key);
      redis.disconnect();
    }
  });

  it('takes each command\'s median over the rounds profiled, a command missing from a round counting 0 there', () => {
    expect(medianProfile([null, undefined])).toBeNull();
    expect(medianProfile([
      [{ command: 'fcall', calls: 1, us: 60 }, { command: 'hset', calls: 5, us: 10 }],
      [{ command: 'fcall', calls: 1, us: 70 }],
      [{ command: 'fcall', calls: 1, us: 50 }, { command: 'hset', calls: 4, us: 8 }],
      null,
    ])).toEqual([{ command: 'fcall', calls: 1, us: 60 }, { command: 'hset', calls: 4, us: 8 }]);
  });

  it('shows each profiled variant\'s commands beside its Redis CPU', () => {
    const cpu = { server: 120, workers: null, redis: 60, postgres: null, wrk: 20 };
    const profiled = { ...variantResult('laurel-event', 'x', slice(1000, 1, 1000, 2000, { 201: 1000 }), null, 0, cpu), redisCommands: [{ command: 'fcall', calls: 1, us: 52.25 }, { command: 'hset', calls: 5.3, us: 9.5 }] };
    const plain = variantResult('uws-hello', 'x', slice(1000, 1, 1000, 2000, { 200: 1000 }), null, 0, cpu);
    const names = ['laurel-event', 'uws-hello'];
    const rounds: RoundResult[] = [{ round: 1, startedAt: '', loadAverageAtStart: [], speedProbeMs: 100, order: names, ratios: [], variants: [profiled, plain] }];
    const lines = renderCommands(buildReport({} as Machine, { drainSampleMs: 250, drainCapS: 30, openLoopS: 0, connections: 64, timeoutS: 5 } as Settings, names, rounds));
    expect(lines[0]).toBe('### Redis by command');
    expect(lines.filter((l) => l.startsWith('| laurel-event |'))).toEqual(['| laurel-event | 60.0 | fcall 52.3 µs × 1.00, hset 9.5 µs × 5.30 |']);
    expect(lines.some((l) => l.startsWith('| uws-hello |'))).toBe(false);
  });

  it('reads each script\'s calls and time from a Redis\'s slow log of every command, its settings put back', async () => {
    const own = await startRedisServer();
    const redis = new Redis(own.url, { lazyConnect: false });
    try {
      await redis.config('SET', 'slowlog-log-slower-than', '10000');
      const sha = String(await redis.script('LOAD', "return redis.call('INCR', KEYS[1])"));
      const state = await slowlogEverything(redis);
      for (let i = 0; i < 10; i++) {
        await redis.evalsha(sha, 1, 'bench-scripts');
        await redis.hset('bench-scripts-h', 'f', String(i));
      }
      const entries = await slowlogRead(redis, state);
      const scripts = scriptsPerRequest(entries, 5);
      expect(scripts.map((s) => [s.command, s.calls])).toEqual([[sha, 2]]);
      expect(scripts[0].us).toBeGreaterThan(0);
      expect(await redis.config('GET', 'slowlog-log-slower-than')).toEqual(['slowlog-log-slower-than', '10000']);
      expect(await redis.slowlog('LEN')).toBe(0);
    } finally {
      redis.disconnect();
      await own.stop();
    }
  });

  it('sums each process\'s functions over the rounds profiled and shows its costliest', () => {
    const cpu = { server: 120, workers: null, redis: 60, postgres: null, wrk: 20 };
    const round = (n: number, times: Record<string, number>): RoundResult => ({
      round: n, startedAt: '', loadAverageAtStart: [], speedProbeMs: 100, order: ['laurel-split'], ratios: [],
      variants: [{ ...variantResult('laurel-split', 'x', slice(1000, 1, 1000, 2000, { 201: 1000 }), null, 0, cpu), cpuFrames: [{ role: 'api', times }] }],
    });
    const report = buildReport({} as Machine, { drainSampleMs: 250, drainCapS: 30, openLoopS: 0, connections: 64, timeoutS: 5 } as Settings,
      ['laurel-split'], [round(1, { send: 300, '(idle)': 900, 'a|b': 100 }), round(2, { send: 300, settle: 200 })]);
    const lines = renderFrames(report);
    expect(lines[0]).toBe('### CPU by function');
    expect(lines.slice(lines.indexOf('laurel-split, api (0.9 s busy):'))).toEqual([
      'laurel-split, api (0.9 s busy):', '', '| function | self ms | share |', '|---|---:|---:|',
      '| `send` | 600 | 66.7% |', '| `settle` | 200 | 22.2% |', '| `a\\|b` | 100 | 11.1% |',
    ]);
    expect(renderFrames(buildReport({} as Machine, { drainSampleMs: 250 } as Settings, ['laurel-split'], [round(1, {})].map((r) => ({ ...r, variants: r.variants.map((v) => ({ ...v, cpuFrames: null })) }))))).toEqual([]);
  });
});

describe('bench: the steady-state workload\'s draw (bench/steady-draw.ts)', () => {
  const draws = (seed: number, n: number) => {
    const next = random(seed);
    return Array.from({ length: n }, () => drawSteady(1_000_000, STEADY_NEW_SHARE, STEADY_SKEW, next));
  };

  it('draws the same senders from the same seed, and others from another', () => {
    expect(draws(7, 1000)).toEqual(draws(7, 1000));
    expect(draws(8, 1000)).not.toEqual(draws(7, 1000));
  });

  it('sends the stated share from new users, the rest from ranks of the population', () => {
    const senders = draws(11, 100_000);
    const fresh = senders.filter((x) => x === -1).length / senders.length;
    expect(fresh).toBeGreaterThan(STEADY_NEW_SHARE - 0.003);
    expect(fresh).toBeLessThan(STEADY_NEW_SHARE + 0.003);
    expect(senders.every((x) => x === -1 || (Number.isInteger(x) && x >= 0 && x < 1_000_000))).toBe(true);
  });

  it('skews the returning users: the most active 1% send a tenth, the most active quarter half', () => {
    const ranks = draws(13, 100_000).filter((x) => x >= 0);
    const share = (below: number) => ranks.filter((x) => x < below).length / ranks.length;
    expect(share(10_000)).toBeGreaterThan(0.09);
    expect(share(10_000)).toBeLessThan(0.11);
    expect(share(250_000)).toBeGreaterThan(0.48);
    expect(share(250_000)).toBeLessThan(0.52);
  });

  it('gives every user of the population a first day of history, and the most active ones every day', () => {
    const next = random(3);
    const seen = new Set<number>();
    const everyDay = new Map<number, number>();
    for (let day = 0; day < 7; day++) {
      for (const rank of dayItems(7_000, 7, day, next).keys()) {
        seen.add(rank);
        everyDay.set(rank, (everyDay.get(rank) ?? 0) + 1);
      }
    }
    expect(seen.size).toBe(7_000);
    expect(everyDay.get(0)).toBe(7);
    expect(everyDay.get(1)).toBe(7);
  });
});
