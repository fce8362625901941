/**
 * The open-loop load generator (bench/open-loop.ts runs it in a process of its own): sends
 * `rate` requests a second for `durationS` seconds, request i at its scheduled time
 * (bench/open-loop.ts scheduledAt) whether or not earlier ones were answered, over `connections`
 * keep-alive TCP connections, and reports every latency from the scheduled time.
 *
 * The requests are bench/wrk/event.lua's: POST <path> with X-API-KEY, a user drawn from `users`,
 * a share with an Idempotency-Key from a pool (with `batch`: bench/wrk/batch.lua's, that many
 * such events a request; with `steady`: bench/wrk/steady.lua's; with `gets`: reads of those paths,
 * each answer's body checked against `expect` when given). A request goes on a connection with nothing in
 * flight; when every connection has one, it waits in the client for the first to be answered
 * (counted as `waitedForConnection`), its latency still counted from its scheduled time. No HTTP
 * pipelining: uWebSockets.js closes a connection that sends a request while the answer to the
 * previous one is still pending (an api that answers after an await), as every laurel route does.
 * The schedule is kept by a timer (Node's 1 ms granularity) and by every answer that arrives:
 * requests due by then go out at once, so the client's own delay (reported as `sendDelayMs`, with
 * the waits for a connection) stays around a millisecond without a busy loop taking a core.
 *
 * Argument: the options as JSON. Output: one line `BENCH_RESULT {json}` (OpenLoopResult).
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  drawRequest, latenciesFromSchedule, OPEN_LOOP_MARKER, percentiles, scheduledAt, scheduledCount,
  type OpenLoopOptions, type OpenLoopResult,
} from './open-loop.js';
import { random } from './random.js';
import { drawSteady } from './steady-draw.js';

const o = JSON.parse(process.argv[2] ?? '{}') as OpenLoopOptions;
const total = scheduledCount(o.rate, o.durationS);
const scheduled = new Float64Array(total);
for (let i = 0; i < total; i++) scheduled[i] = scheduledAt(i, o.rate);
const sentAt = new Float64Array(total).fill(NaN);
const answeredAt = new Float64Array(total).fill(NaN);
/** 1 for a request that found no free connection when it fell due. */
const waited = new Uint8Array(total);
const statuses: Record<string, number> = {};
const errors = { connect: 0, closed: 0, parse: 0 };
let waitedForConnection = 0;
let completed = 0;

const head = `POST ${o.path} HTTP/1.1\r\nHost: ${o.host}:${o.port}\r\nX-API-KEY: ${o.apiKey}\r\nContent-Type: application/json\r\n`;
const BODY_HEAD = `{"user":{"id":"${o.userPrefix ?? 'user-'}`;
const BODY_TAIL = '"},"value":1}';

const getHead = `HTTP/1.1\r\nHost: ${o.host}:${o.port}\r\nX-API-KEY: ${o.apiKey}\r\n\r\n`;
const expected = o.expect === undefined ? null : new RegExp(o.expect);
let unexpected = 0;

const steady = o.steady;
const steadyRandom = steady === undefined ? Math.random : random(steady.seed);
let fresh = 0;

/** Request `i` of the schedule. */
function request(i: number): string {
  if (o.gets !== undefined) return `GET ${o.gets[i % o.gets.length]} ${getHead}`;
  if (o.batch !== undefined) return batchRequest(o.batch);
  if (steady !== undefined) {
    const rank = drawSteady(steady.population, steady.newShare, steady.skew, steadyRandom);
    const body = rank < 0 ? `{"user":{"id":"new-${o.tag}-${++fresh}"},"value":1}` : `${BODY_HEAD}${rank}${BODY_TAIL}`;
    return `${head}Content-Length: ${body.length}\r\n\r\n${body}`;
  }
  const { user, key } = drawRequest(o.users, o.idempotencyShare, o.idempotencyPool, Math.random);
  const body = `${BODY_HEAD}${user}${BODY_TAIL}`;
  const idem = key === null ? '' : `Idempotency-Key: ${o.tag}-${key}\r\n`;
  return `${head}Content-Length: ${body.length}\r\n${idem}\r\n${body}`;
}

/** bench/wrk/batch.lua's request: `size` items of the metric `lessons`, their keys item by item. */
function batchRequest(size: number): string {
  const items: string[] = [];
  for (let i = 0; i < size; i++) {
    const { user, key } = drawRequest(o.users, o.idempotencyShare, o.idempotencyPool, Math.random);
    items.push(`{"key":"lessons","user":{"id":"${o.userPrefix ?? 'user-'}${user}"},"value":1${key === null ? '' : `,"idempotencyKey":"${o.tag}-${key}"`}}`);
  }
  const body = `[${items.join(',')}]`;
  return `${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

class Connection {
  /** Request indexes in flight, oldest first (from `first`). */
  queue: number[] = [];
  first = 0;
  pending = '';
  buffered = '';
  alive = true;

  constructor(readonly socket: Socket) {}

  get inFlight(): number {
    return this.queue.length - this.first;
  }

  /** Reads every whole answer in the buffer; returns how many. */
  read(chunk: Buffer, now: number): number {
    this.buffered += chunk.toString('latin1');
    let n = 0;
    for (;;) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end < 0) break;
      const header = this.buffered.slice(0, end);
      const m = CONTENT_LENGTH.exec(header);
      if (m === null && /\r\ntransfer-encoding:/i.test(header)) {
        errors.parse++;
        this.socket.destroy();
        break;
      }
      const size = end + 4 + (m === null ? 0 : Number(m[1]));
      if (this.buffered.length < size) break;
      const status = header.slice(9, 12);
      if (expected !== null && status[0] === '2' && !expected.test(this.buffered.slice(end + 4, size))) unexpected++;
      this.buffered = this.buffered.slice(size);
      if (this.first >= this.queue.length) {
        errors.parse++;
        continue;
      }
      const i = this.queue[this.first++];
      answeredAt[i] = now;
      statuses[status] = (statuses[status] ?? 0) + 1;
      completed++;
      n++;
    }
    if (this.first >= this.queue.length) {
      this.queue = [];
      this.first = 0;
    }
    return n;
  }
}

let t0 = 0;
const now = () => performance.now() - t0;
const connections: Connection[] = [];
/** Connections with nothing in flight (a stack). */
const idle: Connection[] = [];
/** Requests due and not sent: no connection was free (from `waitingFirst`). */
let waiting: number[] = [];
let waitingFirst = 0;
let next = 0;
let timer: NodeJS.Timeout | null = null;
let finishing = false;
const touched = new Set<Connection>();

function freeConnection(): Connection | null {
  while (idle.length > 0) {
    const c = idle.pop()!;
    if (c.alive) return c;
  }
  return null;
}

function pump(): void {
  const t = now();
  // Requests from here on fell due in this call; one sent here from before it waited for a connection.
  const dueFrom = next;
  while (next < total && scheduled[next] <= t) waiting.push(next++);
  while (waitingFirst < waiting.length) {
    const c = freeConnection();
    // None free: the rest waits for an answer (or, every connection closed, is never sent).
    if (c === null) break;
    const i = waiting[waitingFirst++];
    if (i < dueFrom) {
      waitedForConnection++;
      waited[i] = 1;
    }
    c.queue.push(i);
    c.pending += request(i);
    sentAt[i] = t;
    touched.add(c);
  }
  if (waitingFirst >= waiting.length) {
    waiting = [];
    waitingFirst = 0;
  }
  for (const c of touched) {
    c.socket.write(c.pending, 'latin1');
    c.pending = '';
  }
  touched.clear();
  if (next < total) {
    if (timer === null) timer = setTimeout(onTimer, Math.max(0, scheduled[next] - now()));
  } else if (!finishing) {
    finishing = true;
    setTimeout(finish, o.timeoutS * 1000);
    if (completed === total) finish();
  }
}

function onTimer(): void {
  timer = null;
  pump();
}

let finished = false;

function finish(): void {
  if (finished) return;
  finished = true;
  const { latencies, unanswered } = latenciesFromSchedule(scheduled, answeredAt);
  // The client's own delay: of the requests sent as soon as they fell due (not those that waited
  // for a connection, which is the server's doing).
  const own = sentAt.map((t, i) => (waited[i] === 1 ? NaN : t));
  const delays = latenciesFromSchedule(scheduled, own);
  const fromSend = latenciesFromSchedule(sentAt, answeredAt);
  const sent = sentAt.reduce((n, t) => (Number.isNaN(t) ? n : n + 1), 0);
  const result: OpenLoopResult = {
    rate: o.rate,
    achievedRate: completed / o.durationS,
    durationS: o.durationS,
    scheduled: total,
    sent,
    completed,
    unanswered,
    statuses,
    errors,
    latencyMs: percentiles(latencies, unanswered),
    sendDelayMs: percentiles(delays.latencies, 0),
    latencyFromSendMs: percentiles(fromSend.latencies, fromSend.unanswered),
    waitedForConnection,
    ...(expected !== null && { unexpected }),
  };
  process.stdout.write(`${OPEN_LOOP_MARKER}${JSON.stringify(result)}\n`, () => {
    for (const c of connections) c.socket.destroy();
    process.exit(0);
  });
}

async function main(): Promise<void> {
  if (!(o.rate > 0) || !(o.durationS > 0) || !(o.connections > 0)) throw new Error(`bad options: ${process.argv[2] ?? ''}`);
  await Promise.all(Array.from({ length: o.connections }, () => new Promise<void>((resolve, reject) => {
    const socket = connect({ host: o.host, port: o.port });
    socket.setNoDelay(true);
    const c = new Connection(socket);
    socket.once('connect', () => {
      connections.push(c);
      idle.push(c);
      resolve();
    });
    socket.on('error', (err) => {
      if (!connections.includes(c)) {
        errors.connect++;
        reject(err);
      }
    });
    socket.on('close', () => {
      if (c.alive && connections.includes(c) && !finished) errors.closed++;
      c.alive = false;
    });
    socket.on('data', (chunk: Buffer) => {
      const t = now();
      if (c.read(chunk, t) > 0 && c.inFlight === 0) idle.push(c);
      // Also once the schedule has run out: requests that fell due while every connection was busy
      // still wait for this one (returning early here left them unsent, counted as unanswered).
      pump();
      if (finishing && completed === total) finish();
    });
  })));
  t0 = performance.now() + 5;
  timer = setTimeout(onTimer, 5);
}

main().catch((err: unknown) => {
  process.stderr.write(`open-loop client: ${(err as Error).message}\n`);
  process.exit(1);
});
