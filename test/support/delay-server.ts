/**
 * A stand-in for an installation with a known latency, for the load generator's tests
 * (test/ops/loadtest.test.ts): every metric event is answered 201 exactly `delayMs` after its
 * request arrived (a timer to a millisecond before, then the event loop turned until the time,
 * since Node's timers fire a millisecond or so late), `/health` at once. It can stall (answer
 * nothing from a time on for a while, then everything held at once) and fail a share of the events
 * with a 500.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface DelayServer {
  url: string;
  /** Events received. */
  events: () => number;
  /**
   * The server's own time for each event answered, arrival to answer written, in ms: the delay
   * and the server's lateness (a machine busy with other work wakes it late).
   */
  held: () => number[];
  /** From `afterMs` after the first event, answers nothing for `forMs`. */
  stall(afterMs: number, forMs: number): void;
  close(): Promise<void>;
}

/** Waits until performance.now() reaches `at`. */
function until(at: number, then: () => void): void {
  const left = at - performance.now();
  if (left > 1.5) setTimeout(() => until(at, then), left - 1);
  else if (left > 0) setImmediate(() => until(at, then));
  else then();
}

export async function startDelayServer(delayMs: number, opts: { failShare?: number } = {}): Promise<DelayServer> {
  let events = 0;
  const held: number[] = [];
  let first = -1;
  let stall: { from: number; to: number } | null = null;
  let stallSpec: { afterMs: number; forMs: number } | null = null;
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    req.resume();
    req.on('end', () => {
      if (req.url === '/health') return answer(res, 200, { status: 'ok' });
      if (req.method !== 'POST' || !/^\/api\/metrics\/[^/]+\/event$/.test(req.url ?? '')) return answer(res, 404, { error: 'not found', code: 'not_found' });
      events++;
      if (first < 0) {
        first = arrived;
        if (stallSpec !== null) stall = { from: first + stallSpec.afterMs, to: first + stallSpec.afterMs + stallSpec.forMs };
      }
      let at = arrived + delayMs;
      if (stall !== null && at >= stall.from && arrived < stall.to) at = Math.max(at, stall.to);
      // Never the first (the load test's probe, which stops a run that fails it).
      const fail = events > 1 && (opts.failShare ?? 0) > 0 && Math.random() < opts.failShare!;
      until(at, () => {
        held.push(performance.now() - arrived);
        if (fail) answer(res, 500, { error: 'injected', code: 'internal' });
        else answer(res, 201, { metricId: 'm', total: 1 });
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    events: () => events,
    held: () => held,
    stall(afterMs, forMs) {
      stallSpec = { afterMs, forMs };
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
