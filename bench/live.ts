/**
 * `npm run bench:live` (bench/README.md, "laurel-live"): live updates under the full scenario's
 * load. laurel runs as `npm start` runs it on this machine (`laurel start`, an api process per core:
 * the `laurel-system-2` variant's launch and preparation, bench/variants.ts), wrk loads the event
 * path with the bench's workload (bench/wrk/event.lua), and each round measures two phases in turn,
 * their order alternating from round to round:
 *   without  no socket open, and no topic followed (LAUREL_LIVE_LINGER=0: the topics the sockets of
 *            the phase before held are let go when they close);
 *   with     10,000 sockets (bench/live-sockets.ts, a process of its own): 1,000 on the board
 *            `leaderboard:top-learners`, the rest on users of the load (`user:user-<n>`) and on 10
 *            probe users, whose events (20 a second, beside wrk's) time each message from the
 *            event's answer to every socket that gets it.
 * It reports the event path's requests a second with sockets against without (each round's ratio
 * and their median; target: at least 90%), the latency from the answer to each socket's message
 * (p50, p90, p99 over every delivery of every round; target: p99 at most 250 ms), and the api
 * processes' memory per idle socket (their resident memory with the sockets open and subscribed,
 * before the load, less without). Writes bench/results/live.{json,md}.
 */
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { childPids, microsPerTick, ticks } from './cpu.js';
import { freePort, stop, stopAll, waitReady } from './processes.js';
import { connectPostgres, createDatabase, dropDatabase } from './postgres.js';
import { connectRedis, deleteByPrefix } from './redis.js';
import { DEFAULT_DATABASE_URL, laurelSystem2, ROOT } from './variants.js';
import { runWrk, type WrkResult } from './wrk.js';
import { Agent, fetch } from 'undici';

const HOST = '127.0.0.1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const SOCKETS = Number(process.env.BENCH_LIVE_SOCKETS ?? 10_000);
const BOARD_SOCKETS = Number(process.env.BENCH_LIVE_BOARD_SOCKETS ?? 1000);
const PROBES = 10;
/** Of the board's sockets, those in the probe process (the rest are the crowd's). */
const PROBE_BOARD_SOCKETS = 10;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const THREADS = 2;
const USERS = 100_000;

interface Phase {
  round: number;
  phase: 'without' | 'with';
  loadAverage: number[];
  reqPerS: number;
  p99Ms: number;
  non2xx: number;
  live?: any;
  memory?: { beforeKb: number; afterKb: number; perSocketBytes: number };
  /** CPU seconds over the load, by process: the api processes, the primary (the workers), Redis, the sockets' process. */
  cpuS?: Record<string, number>;
  connectMs?: number;
}

const log = (s: string) => process.stdout.write(`${s}\n`);

/** The resident memory of the api processes (the primary's children), in kB. */
function apiRssKb(primary: number): number {
  let kb = 0;
  for (const pid of childPids(primary)) {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    kb += Number(m?.[1] ?? 0);
  }
  return kb;
}

const now = () => performance.timeOrigin + performance.now();
const PROBE_MS = 50;

/**
 * Posts an event every PROBE_MS for the probe users in turn (from this process: the sockets'
 * process is busy with its sockets) and notes when each was answered, keyed by the totals the
 * messages it causes carry. Answers a function that stops it and answers what it noted.
 */
function startProber(eventUrl: string, key: string, users: string[]): () => Promise<{ sent: number; errors: number; answered: Map<string, number> }> {
  const agent = new Agent({ connections: 8 });
  const answered = new Map<string, number>();
  let sent = 0;
  let errors = 0;
  let k = 0;
  const inflight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const user = users[k++ % users.length];
    sent++;
    const p = fetch(eventUrl, {
      method: 'POST', dispatcher: agent, headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: user }, value: 1000 }),
    }).then(async (res) => {
      const at = now();
      const body = await res.text();
      if (res.status !== 201) { errors++; return; }
      const answer = JSON.parse(body) as { total: number; points: Record<string, { total: number }> };
      answered.set(`user|${user}|${answer.points.xp.total}`, at);
      answered.set(`board|${user}|${answer.total}`, at);
    }, () => { errors++; }).finally(() => inflight.delete(p));
    inflight.add(p);
  }, PROBE_MS);
  return async () => {
    clearInterval(timer);
    await Promise.all(inflight);
    await agent.close();
    return { sent, errors, answered };
  };
}

/** Latencies (ms), answer to each socket's arrival, of one kind of message; `perEvent` sockets get each. */
function latencies(kind: 'user' | 'board', perEvent: number, answered: Map<string, number>, arrivals: Record<string, number[]>) {
  const samples: number[] = [];
  let missing = 0;
  let events = 0;
  for (const [key, at] of answered) {
    if (!key.startsWith(`${kind}|`)) continue;
    events++;
    const got = arrivals[key] ?? [];
    for (const t of got) samples.push(t - at);
    missing += Math.max(0, perEvent - got.length);
  }
  samples.sort((a, b) => a - b);
  const q = (x: number) => (samples.length === 0 ? null : Math.round(samples[Math.min(samples.length - 1, Math.ceil(x * samples.length) - 1)] * 10) / 10);
  return { events, deliveries: samples.length, missing, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: q(1) };
}

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const databaseServer = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const redis = await connectRedis(redisUrl);
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? NaN) || null;
  const postgres = await connectPostgres(databaseServer);
  const database = await createDatabase(postgres, databaseServer);
  const port = await freePort();
  // The topics let go at once when the sockets close: a phase without sockets follows none the
  // phase before held (by default they are published 2 minutes more, for clients that reconnect).
  const session = laurelSystem2.launch({ host: HOST, port, redisUrl, databaseUrl: database.url, env: { LAUREL_LIVE_LINGER: '0' } });
  const aborted = new AbortController();
  const signal = aborted.signal;
  // A signal stops the run; the finally below stops laurel and the sockets and cleans up.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => aborted.abort());
  // The crowd: most of the sockets, their messages counted and dropped. The probe process: the probe
  // users' sockets and a few of the board's, which time the probes' messages. Apart, so that the
  // crowd's backlog on this shared machine does not delay the probe's reads (a subscriber's device
  // holds its one socket, not thousands).
  const script = fileURLToPath(new URL('./live-sockets.js', import.meta.url));
  const crowd = fork(script, [], { execArgv: ['--max-old-space-size=4096'] });
  const prober = fork(script, []);
  const askOf = (child: ReturnType<typeof fork>) => <T>(cmd: unknown): Promise<T> => new Promise((resolve, reject) => {
    child.once('message', (m: any) => (m?.error ? reject(new Error(m.error)) : resolve(m as T)));
    child.send(cmd as never);
  });
  const askCrowd = askOf(crowd);
  const askProbe = askOf(prober);
  const both = <T>(cmd: unknown): Promise<[T, T]> => Promise.all([askCrowd<T>(cmd), askProbe<T>(cmd)]);
  const phases: Phase[] = [];
  try {
    await waitReady(session.child, session.readyUrl, signal, 60_000);
    await laurelSystem2.prepare!(session, signal);
    log(`laurel start on :${port}, ${childPids(session.child.proc.pid!).length} api processes; ${ROUNDS} rounds of ${DURATION_S} s per phase`);
    const wrk = (tag: string): Promise<WrkResult> => runWrk({
      url: session.eventUrl, script: `${ROOT}bench/wrk/event.lua`, scriptArgs: [session.apiKey, String(USERS), '0.1', '20000', tag],
      threads: THREADS, connections: CONNECTIONS, durationS: DURATION_S, timeoutS: 5,
    }, signal);
    // Warm-up: the users and the board fill a little, the processes' code warms.
    await wrk('live-warmup');
    for (let round = 1; round <= ROUNDS; round++) {
      const order: Phase['phase'][] = round % 2 === 1 ? ['without', 'with'] : ['with', 'without'];
      for (const phase of order) {
        const p: Partial<Phase> = { round, phase };
        if (phase === 'with') {
          const before = apiRssKb(session.child.proc.pid!);
          const url = `ws://${HOST}:${port}/v1/live`;
          const [c, q] = await Promise.all([
            askCrowd<{ sockets: number; ms: number }>({
              cmd: 'connect', url, key: session.apiKey, board: 'top-learners', boardSockets: BOARD_SOCKETS - PROBE_BOARD_SOCKETS,
              userSockets: SOCKETS - BOARD_SOCKETS - PROBES, probes: 0,
            }),
            askProbe<{ sockets: number; ms: number }>({
              cmd: 'connect', url, key: session.apiKey, board: 'top-learners', boardSockets: PROBE_BOARD_SOCKETS, userSockets: PROBES, probes: PROBES,
            }),
          ]);
          c.sockets += q.sockets;
          c.ms = Math.max(c.ms, q.ms);
          await new Promise((r) => setTimeout(r, 3000));
          const after = apiRssKb(session.child.proc.pid!);
          p.memory = { beforeKb: before, afterKb: after, perSocketBytes: Math.round(((after - before) * 1024) / c.sockets) };
          p.connectMs = c.ms;
          await both({ cmd: 'probe' });
        }
        const stopProber = phase === 'with' ? startProber(session.eventUrl, session.apiKey, Array.from({ length: PROBES }, (_, i) => `live-probe-${i}`)) : null;
        p.loadAverage = loadavg();
        const primary = session.child.proc.pid!;
        const pids: Record<string, number[]> = { api: childPids(primary), workers: [primary], redis: redisPid === null ? [] : [redisPid], sockets: [crowd.pid!, prober.pid!] };
        const before = Object.fromEntries(Object.entries(pids).map(([k, ps]) => [k, ps.reduce((n, x) => n + ticks(x), 0)]));
        const r = await wrk(`live-${round}-${phase}`);
        const tick = (microsPerTick() ?? 10_000) / 1e6;
        p.cpuS = Object.fromEntries(Object.entries(pids).map(([k, ps]) => [k, Math.round((ps.reduce((n, x) => n + ticks(x), 0) - before[k]) * tick * 100) / 100]));
        p.reqPerS = Math.round(r.requests / (r.durationUs / 1e6));
        p.p99Ms = Math.round(r.latencyUs.p99 / 100) / 10;
        p.non2xx = Object.entries(r.statuses).filter(([s]) => !s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
        if (stopProber !== null) {
          const probes = await stopProber();
          // The last events' messages: a second to arrive.
          await new Promise((r) => setTimeout(r, 1000));
          const [crowdGot, got] = await both<{ received: number; arrivals: Record<string, number[]> }>({ cmd: 'stop' });
          p.live = {
            probesSent: probes.sent, probeErrors: probes.errors, received: crowdGot.received + got.received,
            user: latencies('user', 1, probes.answered, got.arrivals), board: latencies('board', PROBE_BOARD_SOCKETS, probes.answered, got.arrivals),
          };
          await both({ cmd: 'close' });
          // The api processes let the sockets go.
          await new Promise((r) => setTimeout(r, 2000));
        }
        phases.push(p as Phase);
        log(`round ${round} ${phase.padEnd(7)} ${String(p.reqPerS).padStart(6)} req/s  p99 ${p.p99Ms} ms  load ${p.loadAverage!.map((x) => x.toFixed(2)).join(' ')}  cpu s ${JSON.stringify(p.cpuS)}`
          + (p.live ? `  user p99 ${p.live.user.p99} ms (${p.live.user.deliveries}/${p.live.user.events} of ${p.live.probesSent} probes, ${p.live.user.missing} missing)  board p99 ${p.live.board.p99} ms (${p.live.board.deliveries} deliveries, ${p.live.board.missing} missing)  ${p.memory!.perSocketBytes} B/socket, ${p.live.received} messages` : ''));
      }
    }
  } finally {
    crowd.kill();
    prober.kill();
    await stop(session.child);
    await stopAll();
    await deleteByPrefix(redis, session.prefix!);
    await dropDatabase(postgres, database.name);
    redis.disconnect();
    await postgres.end();
  }
  const ratios = Array.from({ length: ROUNDS }, (_, i) => {
    const w = phases.find((p) => p.round === i + 1 && p.phase === 'with')!;
    const wo = phases.find((p) => p.round === i + 1 && p.phase === 'without')!;
    return w.reqPerS / wo.reqPerS;
  }).sort((a, b) => a - b);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const withs = phases.filter((p) => p.phase === 'with');
  const summary = {
    ratioMedian: Math.round(median(ratios) * 1000) / 1000,
    ratios: ratios.map((r) => Math.round(r * 1000) / 1000),
    userP99Ms: median(withs.map((p) => p.live.user.p99)),
    boardP99Ms: median(withs.map((p) => p.live.board.p99)),
    missing: withs.reduce((n, p) => n + p.live.user.missing + p.live.board.missing, 0),
    perSocketBytes: median(withs.map((p) => p.memory!.perSocketBytes)),
  };
  const out = { when: new Date().toISOString(), sockets: SOCKETS, boardSockets: BOARD_SOCKETS, probes: PROBES, durationS: DURATION_S, rounds: ROUNDS, phases, summary };
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(`${ROOT}bench/results/live.json`, `${JSON.stringify(out, null, 2)}\n`);
  log(`\nwith sockets / without: median ${summary.ratioMedian} (rounds ${summary.ratios.join(', ')}; target >= 0.9)`);
  log(`answer -> socket p99: user topics ${summary.userP99Ms} ms, the board's 1,000 sockets ${summary.boardP99Ms} ms (median of rounds; target <= 250 ms); ${summary.missing} deliveries missing`);
  log(`memory per idle socket (api processes' RSS): ${summary.perSocketBytes} bytes`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  await stopAll();
  process.exit(1);
});
