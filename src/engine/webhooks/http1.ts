/**
 * The connections webhook POSTs go over (src/engine/webhooks/post.ts): HTTP/1.1 on keep-alive
 * connections, up to CONNECTIONS per origin, each request written in one piece (head and body; the
 * requests of one turn of the event loop on a connection corked into one write), the answers read
 * in order by src/engine/webhooks/http1-response.ts. Up to PIPELINE requests go on a connection
 * before their answers come, once the origin has earned it (OriginPool). Against undici's
 * `dispatch` with a handler of its own (the sender's client before) it costs the sender about a
 * seventh of the CPU a POST, about what wrk costs (docs/performance.md, "The delivery path"): no
 * request object, header list, body stream or parser state made per POST beyond the request's
 * bytes, and a write and a read shared by several requests.
 *
 * A connection is made with the origin's lookup (the caller's: it refuses what is not global
 * unicast), over TLS for https (SNI, the system's trust store, ALPN offering http/1.1 only). It is
 * reused while the receiver keeps it (not HTTP/1.0 without keep-alive, no `Connection: close`, a
 * framed body) and closed after IDLE_MS unused, or a second before the receiver's own
 * `Keep-Alive: timeout` when it says one, so a request is rarely written on a connection the
 * receiver is closing. Any error closes the connection; the requests on it fail (the sender tries
 * them again under the same `webhook-id`).
 */
import { connect as tcpConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { ResponseParser, type Answer } from './http1-response.js';

/** Connections kept open per origin at most. */
export const CONNECTIONS = 16;
/** Requests written on a connection and not answered yet, at most (pipelined: answered in order), once the origin has earned it. */
export const PIPELINE = 8;
/** Answers on kept connections an origin gives before its requests are pipelined. */
const TRUST_AFTER = 16;
/** How long an origin's requests go one at a time after a connection of it was lost with pipelined requests on it (ms). */
const DISTRUST_MS = 10 * 60_000;
/** An unused connection is closed after this long (ms), or a second before the receiver's own timeout. */
const IDLE_MS = 4000;

/** One request: its bytes, and what to tell when its answer (or an error) comes. */
export interface Request {
  bytes: Buffer;
  /** Answers the status; `err` when the exchange failed. */
  done(err: Error | null, status: number): void;
  /** The connection the request went on, while it is on one (to close it when the request is given up). */
  connection: Connection | null;
}

/** Where requests go: a scheme, host and port, and how their addresses are looked up. */
export interface OriginSpec {
  tls: boolean;
  host: string;
  port: number;
  /** A lookup of the names; null for the system's. */
  lookup: LookupFunction | null;
}

/** An error the connection met, with a code for the delivery's record. */
function closedEarly(): Error {
  return Object.assign(new Error('the receiver closed the connection before it answered'), { code: 'ECONNRESET' });
}

/** One connection of an origin's pool: the requests written on it, answered in order. */
export class Connection {
  private readonly socket: Socket;
  private readonly parser = new ResponseParser();
  /** The requests written and not answered yet, the oldest first (its answer is the one read). */
  private readonly requests: Request[] = [];
  private idle: NodeJS.Timeout | null = null;
  private idleMs = IDLE_MS;
  private corked = false;
  private gone = false;
  /** Whether the receiver keeps the connection after the answers read so far (no more requests once it does not). */
  private reusable = true;

  constructor(private readonly pool: OriginPool, spec: OriginSpec) {
    const options = { host: spec.host, port: spec.port, ...(spec.lookup === null ? {} : { lookup: spec.lookup }) };
    this.socket = spec.tls
      ? tlsConnect({ ...options, servername: isIP(spec.host) === 0 ? spec.host : undefined, ALPNProtocols: ['http/1.1'] })
      : tcpConnect(options);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.close(err));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('close', () => this.close(null));
  }

  /** Requests written and not answered yet. */
  get outstanding(): number {
    return this.requests.length;
  }

  /** Whether another request may be written now. */
  get open(): boolean {
    return !this.gone && this.reusable;
  }

  /** Writes a request: the requests of one turn of the event loop leave in one write. */
  send(request: Request): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    this.requests.push(request);
    request.connection = this;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(request.bytes);
  }

  private onData(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      if (this.requests.length === 0) {
        // Bytes nobody asked for: the connection is not in a state to reuse.
        this.close(null);
        return;
      }
      let answer: Answer | null;
      try {
        answer = this.parser.feed(rest);
      } catch (err) {
        this.close(err as Error);
        return;
      }
      if (answer === null) return;
      rest = rest.subarray(rest.length - answer.extra);
      this.finish(answer);
      if (this.gone) return;
    }
    this.pool.release(this);
  }

  private onEnd(): void {
    // A body that runs to the close ends here; otherwise the requests (if any) fail at the close.
    const answer = this.requests.length === 0 ? null : this.parser.closed();
    if (answer !== null) this.finish(answer);
    this.close(null);
  }

  /** The oldest request answered. */
  private finish(answer: Answer): void {
    const request = this.requests.shift()!;
    request.connection = null;
    this.parser.reset();
    if (answer.keepAlive) this.pool.answered();
    request.done(null, answer.status);
    if (!answer.keepAlive) {
      // The requests written after it are not answered: they fail, and are tried again.
      this.reusable = false;
      this.close(null);
      return;
    }
    if (answer.keepAliveMs !== null) this.idleMs = Math.max(0, Math.min(IDLE_MS, answer.keepAliveMs - 1000));
  }

  /** Waits for the next request, at most its idle time. */
  park(): void {
    if (this.idleMs === 0) {
      this.close(null);
      return;
    }
    this.idle = setTimeout(() => this.close(null), this.idleMs);
    this.idle.unref();
  }

  /** Closes the connection; the requests on it, if any, fail with `err` (or as closed early). */
  close(err: Error | null): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    if (this.requests.length > 1) this.pool.lostPipelined();
    for (const request of this.requests.splice(0)) {
      request.connection = null;
      request.done(err ?? closedEarly(), 0);
    }
    if (this.gone) return;
    this.gone = true;
    this.socket.destroy();
    this.pool.forget(this);
  }

  get closed(): boolean {
    return this.gone;
  }
}

/**
 * An origin's connections: up to `max`, each with up to `depth` requests written and not answered
 * (pipelined, answered in order), and the requests waiting for room. An origin's requests go one at
 * a time on each connection until it has answered TRUST_AFTER on kept connections, then up to
 * `maxDepth`; a connection lost with pipelined requests on it (the receiver, or a proxy before it,
 * closed or broke it) sets it back to one at a time for DISTRUST_MS: a receiver that cannot take
 * pipelined requests fails a few, which are tried again, and gets them one at a time.
 */
export class OriginPool {
  private readonly connections: Connection[] = [];
  private readonly waiting: Request[] = [];
  private depth = 1;
  private answers = 0;
  private distrustUntil = 0;

  constructor(private readonly spec: OriginSpec, private readonly max = CONNECTIONS, private readonly maxDepth = PIPELINE) {}

  /** An answer on a connection the receiver keeps. */
  answered(): void {
    if (this.depth === this.maxDepth || ++this.answers < TRUST_AFTER || Date.now() < this.distrustUntil) return;
    this.depth = this.maxDepth;
  }

  /** A connection lost with pipelined requests on it: one at a time for a while. */
  lostPipelined(): void {
    this.depth = 1;
    this.answers = 0;
    this.distrustUntil = Date.now() + DISTRUST_MS;
  }

  /** Requests written on a connection and not answered yet, at most, now. */
  get pipelining(): number {
    return this.depth;
  }

  /** Sends a request on the busiest connection with room (its requests leave together), a new one, or the next with room. */
  send(request: Request): void {
    let best: Connection | null = null;
    for (const c of this.connections) {
      if (c.open && c.outstanding < this.depth && (best === null || c.outstanding > best.outstanding)) best = c;
    }
    if (best === null && this.connections.length < this.max) {
      best = new Connection(this, this.spec);
      this.connections.push(best);
    }
    if (best === null) this.waiting.push(request);
    else best.send(request);
  }

  /** Takes a request off the waiting line (given up before it went); whether it was there. */
  withdraw(request: Request): boolean {
    const i = this.waiting.indexOf(request);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  /** A connection with nothing outstanding: the requests waiting, or parked. */
  release(c: Connection): void {
    while (this.waiting.length > 0 && c.open && c.outstanding < this.depth) c.send(this.waiting.shift()!);
    if (c.outstanding === 0) c.park();
  }

  /** A connection closed: the requests waiting go on the others, or a new one. */
  forget(c: Connection): void {
    const i = this.connections.indexOf(c);
    if (i >= 0) this.connections.splice(i, 1);
    for (const next of this.waiting.splice(0)) this.send(next);
  }
}
