/**
 * What the adapter's handling of pipelined requests costs (`npm run bench:pipelining`,
 * src/http/pipelining.ts): a uWebSockets.js server on loopback in this process, one route per way of
 * answering, each answering a tiny JSON as laurel's writer does once a wait is over (a
 * setImmediate, where laurel awaits Redis), driven by bench/micro-rounds.ts (wrk, no pipelining).
 * Reported per request: this process's CPU and wrk's median latency, the medians over rounds, and
 * the median over rounds of the CPU's difference from `awaited` in the same round.
 * The ways: `awaited`, answered after the wait (how a read is served); `paused`, the connection
 * paused at the request and resumed as the answer is written (what pausing costs);
 * `paused+afterParse`, that, and the work begun after uWS has parsed the rest of the read (how a
 * write is served).
 */
import { App, type HttpResponse } from 'uWebSockets.js';
import { listen, printRounds, runRounds } from './micro-rounds.js';
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
  return listen(app);
}

async function main(): Promise<void> {
  const port = await serve();
  const names = Object.keys(WAYS);
  console.log(`pipelining: a route at a time, 8 connections`);
  const r = await runRounds(port, names, ['X-API-KEY', `lk_${'a'.repeat(43)}`]);
  console.log(`${r.rounds} rounds of ${r.durationS} s a route`);
  printRounds(r, 'awaited', true);
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
