/**
 * Requests pipelined on one connection, as uWebSockets.js (20, `uws-pack@20.0.8`) takes them.
 *
 * uWS answers pipelined requests in order only while each is answered before the next one is
 * parsed. When a request is parsed while the answer to the one before is still awaited (laurel
 * awaits Redis for nearly every answer), uWS closes the connection at once, answers neither, and
 * calls the first one's onAborted (uWebSockets' HttpContext.h: "Are we not ready for another
 * request yet? Terminate the connection", which denies "async pipelining"). uWS parses every
 * request in the bytes one read brings before it returns to the event loop, and a body's last
 * chunk reaches onData before the request after it is parsed.
 *
 * So the adapter (src/http/server.ts) runs a request that may change something (every method but
 * GET) only after uWS has parsed the rest of the read it came in (setImmediate: the event loop's
 * check phase, after the poll phase in which uWS read and parsed those bytes), and not at all when
 * uWS closed the connection for a request parsed behind it in that read: a request that is never
 * answered is never applied, so a client that sends it again counts it once. Microtasks and
 * process.nextTick would be too early: Node runs them as each uWS callback returns, before uWS
 * parses on. And it pauses that request's connection until the answer is written (resumed then):
 * uWS reads nothing more from it meanwhile, so a request pipelined behind, arriving in a later
 * read, waits in the kernel and is answered after it, in order, instead of uWS closing the
 * connection with the write applied and its answer lost.
 *
 * A read (GET) runs at once and is not paused: closing its connection loses nothing, and pausing
 * and resuming cost about 2 to 3 µs of CPU a request (`npm run bench:pipelining`), so a request
 * pipelined behind an awaited read has uWS close the connection, answering neither.
 */
import type { HttpResponse } from 'uWebSockets.js';

/** Stops reading from a request's connection until its answer is written (server.ts resumes it then). */
export function pauseConnection(res: HttpResponse, state: { paused?: boolean }): void {
  if (state.paused === true) return;
  res.pause();
  state.paused = true;
}

/** Runs `fn` once uWS has parsed every request of the read being handled. */
export function afterParse(fn: () => void): void {
  setImmediate(fn);
}
