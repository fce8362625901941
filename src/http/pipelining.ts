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
 * So the adapter (src/http/server.ts):
 * - pauses a connection once a request is whole and its answer is not written at once: uWS reads
 *   nothing more from it, a request pipelined behind waits in the kernel, and is read and answered
 *   after the answer before it (resumed as that answer is written);
 * - runs a request that may change something (every method but GET) only after uWS has parsed the
 *   rest of the read it came in (setImmediate: the event loop's check phase, after the poll phase
 *   in which uWS read and parsed those bytes), and not at all when uWS closed the connection for a
 *   request parsed behind it in that read: a request that is never answered is never applied, so a
 *   client that sends it again counts it once. A read runs at once: closing its connection changes
 *   nothing. Microtasks and process.nextTick would be too early: Node runs them as each uWS callback
 *   returns, before uWS parses on.
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
