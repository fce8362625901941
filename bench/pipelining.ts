/**
 * What the adapter's handling of pipelined requests costs (`npm run bench:pipelining`,
 * src/http/pipelining.ts): a uWebSockets.js server on loopback in this process, one route per way of
 * answering, each answering a tiny JSON as laurel's writer does once a wait is over (a
 * setImmediate, where laurel awaits Redis); wrk sends the SDK's GET (bench/wrk/headers.lua, no
 * pipelining) to one route a pass, the routes in turns over several rounds. Reported per request:
 * this process's CPU (it does nothing else meanwhile) and wrk's median latency, the medians over
 * rounds, and the median over rounds of the CPU's difference from `awaited` in the same round.
 * The ways: `awaited`, answered after the wait (how a read is served); `paused`, the connection
 * paused at the request and resumed as the answer is written (what pausing costs);
 * `paused+afterParse`, that, and the work begun after uWS has parsed the rest of the read (how a
 * write is served). BENCH_DURATION seconds a pass (5), BENCH_ROUNDS rounds (5).
 */
import { App, us_socket_local_port, type HttpResponse } from 'uWebSockets.js';
import { runWrk, WRK_MISSING, wrkVersion } from './wrk.js';
import { ROOT } from './variants.js';
import { afterParse, pauseConnection } from '../src/http/pipelining.js';

const OK = '{"ok":true}';

interface State { aborted: boolean; paused?: boolean }

function answer(res: HttpResponse, state: State): void {
  if (state.aborted) return;
  res.cork(() => {
    if (state.paused === true) res.resume();
    res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(OK);
  });
}

/** Each way: what it does with a request whose answer waits. */
const WAYS: Record<string, (res: HttpResponse, state: State) => void> = {
  awaited: (res, state) => { setImmediate(() => answer(res, state)); },
  paused: (res, state) => {
    setImmediate(() => answer(res, state));
    pauseConnection(res, state);
  },
  'paused+afterParse': (res, state) => {
    pauseConnection(res, state);
    afterParse(() => { if (!state.aborted) setImmediate(() => answer(res, state)); });
  },
};

function serve(): Promise<number> {
  const app = App();
  for (const [name, way] of Object.entries(WAYS)) {
    app.get(`/${name}`, (res) => {
      const state: State = { aborted: false };
      res.onAborted(() => { state.aborted = true; });
      way(res, state);
    });
  }
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('cannot listen')) : resolve(us_socket_local_port(socket))));
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  if (wrkVersion() === null) throw new Error(WRK_MISSING);
  const durationS = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const port = await serve();
  const names = Object.keys(WAYS);
  const cpu = new Map<string, number[]>(names.map((n) => [n, []]));
  const p50 = new Map<string, number[]>(names.map((n) => [n, []]));
  console.log(`pipelining: ${rounds} rounds of ${durationS} s a route, 8 connections`);
  for (let round = 0; round < rounds; round++) {
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const before = process.cpuUsage();
      const r = await runWrk({
        url: `http://127.0.0.1:${port}/${name}`, script: `${ROOT}bench/wrk/headers.lua`, scriptArgs: ['X-API-KEY', `lk_${'a'.repeat(43)}`],
        threads: 1, connections: 8, durationS, timeoutS: 5,
      }, AbortSignal.timeout((durationS + 30) * 1000));
      const used = process.cpuUsage(before);
      if (r.statuses['200'] !== r.requests) throw new Error(`${name}: ${JSON.stringify(r.statuses)}`);
      cpu.get(name)!.push((used.user + used.system) / r.requests);
      p50.get(name)!.push(r.latencyUs.p50);
    }
  }
  const base = cpu.get('awaited')!;
  console.log('| way | server CPU µs/request (median) | per round | over awaited (median of the rounds\' differences) | wrk p50 µs (median) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const name of names) {
    const xs = cpu.get(name)!;
    const over = name === 'awaited' ? '—' : median(xs.map((x, i) => x - base[i])).toFixed(2);
    console.log(`| ${name} | ${median(xs).toFixed(2)} | ${xs.map((x) => x.toFixed(2)).join(' / ')} | ${over} | ${median(p50.get(name)!).toFixed(0)} |`);
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
