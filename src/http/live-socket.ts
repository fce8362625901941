/**
 * The WebSocket side of the uWebSockets.js adapter: `GET /v1/live` and `/api/live`
 * (docs/live.md). The upgrade is authorized as every Application API route is (the guard
 * of src/http/auth.ts and src/http/authorize.ts), the key taken from `?key=` when no X-API-KEY
 * came (a browser cannot set headers on a WebSocket) and the tenant from `?tenant=` likewise; a
 * refusal answers its status with the JSON error body, as a route would. What the request holds is
 * copied before any await, `onAborted` first, the upgrade corked.
 *
 * On the socket: `{ "subscribe": [...], "since"? }` and `{ "unsubscribe": [...] }`
 * (src/domain/live/topics.ts), a user's topic open to a key scoped to that user only, a league's
 * topic resolved to the cohort of the key's user (src/http/live-topic.ts). Each topic is
 * taken up through the process's fan-out (src/engine/live/fanout.ts) and the socket subscribes to
 * its channel with uWS, which then sends it every message the channel brings. A socket that lets
 * more than `maxBackpressure` bytes wait is closed (uWS's closeOnBackpressureLimit), as is one idle
 * past `idleTimeout` (uWS pings it before). Nothing a client sends is answered otherwise than by
 * a message; none can stop the process. Each message counts against the key's rate limit, where
 * its kind has one, as a request does, and one over it is answered `rate_limited`, not handled
 * (src/http/live-limit.ts).
 */
import { isUtf8 } from 'node:buffer';
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket, us_socket_context_t } from 'uWebSockets.js';
import type { Logger } from 'pino';
import { BadMessage, MAX_TOPICS, parseClientMessage, parseTopic, resumeFrom, type ClientMessage, type Heard } from '../domain/live/topics.js';
import { topicIdOf } from './live-topic.js';
import { MessageLimit, messageTurns, type MessageTurns } from './live-limit.js';
import { HttpError, errorBody, fail } from '../lib/errors.js';
import type { ConfigStore } from '../config/store.js';
import type { LiveFanout } from '../engine/live/fanout.js';
import type { KeyLimits } from '../engine/keys/rate-limit.js';
import { isConnectionError } from '../redis/outage.js';
import type { Principal } from './authorize.js';
import { checkedHeaders, credentialsOf, type Guard, type Request, type Route } from './server.js';
import { compileQuery } from './query.js';
import { nextRequestId } from './request-id.js';

/** What a socket carries. */
interface SocketData {
  principal: Principal;
  /** Each topic the socket holds or is taking up: its channel, and the holds it has of it (src/engine/live/fanout.ts). */
  topics: Map<string, { channel: string; refs: number }>;
  /** Its messages taken from the key's rate limit, handled in order (src/http/live-limit.ts). */
  turns: MessageTurns;
  closed: boolean;
}

/** A client's message as read in the turn it came in: what it asks, or why it is refused. */
type Read = { message: ClientMessage } | { refused: unknown };

export interface LiveSocketOptions {
  /** The guard of every route (src/http/auth.ts). */
  guard: Guard;
  /** The route the upgrade is authorized as (`GET /live` of the Application API). */
  route: Route;
  store: ConfigStore;
  fanout: LiveFanout;
  log: Logger;
  /** Most bytes a socket may let wait before it is closed. */
  maxBackpressure: number;
  /** Seconds without a message in either direction before a socket is closed (uWS pings it before). */
  idleTimeoutS: number;
  /** Whether each principal still stands (src/http/auth.ts, Authenticator.stillValid). */
  stillValid(principals: Principal[]): Promise<boolean[]>;
  /** The rate limits of the keys (LAUREL_RATE_LIMIT, LAUREL_USER_KEY_RATE_LIMIT), which each message counts against. */
  limits: KeyLimits;
}

/** How often the open sockets' keys and tenants are checked again (ms): a revoked key's socket is closed. */
const RECHECK_MS = 5000;

const STATUS_LINE: Record<number, string> = {
  400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found', 429: '429 Too Many Requests',
  431: '431 Request Header Fields Too Large', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

/** Largest message a client may send (bytes): a subscribe of MAX_TOPICS long topics with `since`. */
const MAX_MESSAGE = 64 * 1024;

export class LiveSockets {
  private readonly opts: LiveSocketOptions;
  private readonly sockets = new Set<WebSocket<SocketData>>();
  private readonly limit: MessageLimit;

  private readonly recheckTimer: NodeJS.Timeout;
  private rechecking = false;

  constructor(opts: LiveSocketOptions) {
    this.opts = opts;
    this.limit = new MessageLimit(opts.limits);
    this.recheckTimer = setInterval(() => { void this.recheck(); }, RECHECK_MS);
    this.recheckTimer.unref();
  }

  /**
   * Closes the sockets whose key was revoked or whose tenant is no longer active since their
   * upgrade (an `unauthorized` error message, then close code 1008).
   */
  private async recheck(): Promise<void> {
    if (this.rechecking || this.sockets.size === 0) return;
    this.rechecking = true;
    try {
      const open = [...this.sockets];
      const valid = await this.opts.stillValid(open.map((ws) => ws.getUserData().principal));
      open.forEach((ws, i) => {
        if (valid[i] || ws.getUserData().closed) return;
        ws.cork(() => this.sendError(ws, fail('unauthorized')));
        ws.end(1008, 'the key was revoked, or its tenant deactivated');
      });
    } catch (err) {
      // Redis away: the outage account says so; the next check tries again.
      if (!isConnectionError(err)) this.opts.log.warn({ err }, 'live: could not check the open sockets\' keys');
    } finally {
      this.rechecking = false;
    }
  }

  /** Stops checking the sockets' keys. */
  close(): void {
    clearInterval(this.recheckTimer);
  }

  get count(): number {
    return this.sockets.size;
  }

  /** Registers the WebSocket route on each pattern; call before the HTTP routes of the same path. */
  mount(app: TemplatedApp, patterns: string[]): void {
    for (const pattern of patterns) {
      app.ws<SocketData>(pattern, {
        compression: 0,
        maxPayloadLength: MAX_MESSAGE,
        maxBackpressure: this.opts.maxBackpressure,
        closeOnBackpressureLimit: true,
        idleTimeout: this.opts.idleTimeoutS,
        sendPingsAutomatically: true,
        upgrade: (res, req, context) => this.upgrade(res, req, context),
        open: (ws) => { this.sockets.add(ws); },
        message: (ws, message, isBinary) => this.message(ws, message, isBinary),
        close: (ws) => this.closed(ws),
      });
    }
  }

  /** Closes every socket (their clients reconnect and resume): what the channels brought meanwhile is not known. */
  closeAll(code: number, reason: string): void {
    for (const ws of [...this.sockets]) {
      if (!ws.getUserData().closed) ws.end(code, reason);
    }
  }

  private upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    const state = { aborted: false };
    res.onAborted(() => { state.aborted = true; });
    const url = req.getUrl();
    const query = req.getQuery() ?? '';
    const secKey = req.getHeader('sec-websocket-key');
    const protocol = req.getHeader('sec-websocket-protocol');
    const extensions = req.getHeader('sec-websocket-extensions');
    let request: Request;
    let guarded: void | Promise<void>;
    try {
      if (url.includes('\uFFFD') || query.includes('\uFFFD')) throw fail('invalid_query', 'the query is not valid UTF-8');
      const headers = checkedHeaders(req, url, query);
      request = {
        id: nextRequestId(), method: 'GET', url, params: [], query, queryParams: compileQuery('GET /live', this.opts.route.doc.query ?? []),
        ...credentialsOf(this.opts.route, headers, query),
        idempotencyKey: '', body: null, principal: null, adminKey: null,
      };
      guarded = this.opts.guard(request, this.opts.route);
    } catch (err) {
      this.refuse(res, state, err);
      return;
    }
    const accept = () => {
      if (state.aborted) return;
      res.cork(() => {
        const data: SocketData = { principal: request.principal as Principal, topics: new Map(), turns: messageTurns(), closed: false };
        res.upgrade<SocketData>(data, secKey, protocol, extensions, context);
      });
    };
    if (guarded === undefined) accept();
    else guarded.then(accept, (err: unknown) => this.refuse(res, state, err));
  }

  private refuse(res: HttpResponse, state: { aborted: boolean }, err: unknown): void {
    if (state.aborted) return;
    const e = this.asHttpError(err);
    res.cork(() => {
      res.writeStatus(STATUS_LINE[e.status] ?? String(e.status)).writeHeader('content-type', 'application/json');
      if (e.headers !== undefined) for (const name in e.headers) res.writeHeader(name, e.headers[name]);
      res.end(errorBody(e), true);
    });
  }

  private asHttpError(err: unknown): HttpError {
    if (err instanceof HttpError) return err;
    if (isConnectionError(err)) return fail('unavailable', 'Redis is not reachable');
    this.opts.log.error({ err }, 'live: unexpected error');
    return fail('internal');
  }

  private send(ws: WebSocket<SocketData>, text: string): void {
    const data = ws.getUserData();
    if (data.closed) return;
    // 2: dropped, over the limit of what may wait: the socket is closed (closeOnBackpressureLimit).
    ws.send(text, false);
  }

  private sendError(ws: WebSocket<SocketData>, err: unknown, topic?: string): void {
    const e = this.asHttpError(err);
    const body = JSON.parse(errorBody(e)) as Record<string, unknown>;
    // A 429's Retry-After (whole seconds), as the message's `retryAfter`.
    const retry = e.headers?.['retry-after'];
    this.send(ws, JSON.stringify({
      ...body, status: e.status, ...(topic === undefined ? {} : { topic }), ...(retry === undefined ? {} : { retryAfter: Number(retry) }),
    }));
  }

  private message(ws: WebSocket<SocketData>, message: ArrayBuffer, isBinary: boolean): void {
    // Read now: the message's bytes are uWS's only during this call. A bad one counts too.
    const read = this.read(message, isBinary);
    const data = ws.getUserData();
    this.limit.admit(data.principal, data.turns,
      () => { if (!data.closed) ws.cork(() => this.handle(ws, read)); },
      (err) => { if (!data.closed) ws.cork(() => this.sendError(ws, err)); });
  }

  private read(message: ArrayBuffer, isBinary: boolean): Read {
    try {
      if (isBinary) throw new BadMessage('messages are JSON text, not binary');
      const bytes = Buffer.from(message);
      if (!isUtf8(bytes)) throw new BadMessage('the message is not valid UTF-8');
      return { message: parseClientMessage(bytes.toString('utf8')) };
    } catch (err) {
      return { refused: err };
    }
  }

  private handle(ws: WebSocket<SocketData>, read: Read): void {
    try {
      if ('refused' in read) throw read.refused;
      const m = read.message;
      if (m.op === 'unsubscribe') {
        for (const topic of m.topics) this.unsubscribe(ws, topic);
        return;
      }
      const data = ws.getUserData();
      const fresh = m.topics.filter((t) => !data.topics.has(t));
      if (data.topics.size + fresh.length > MAX_TOPICS) throw new BadMessage(`a socket holds at most ${MAX_TOPICS} topics (it holds ${data.topics.size})`);
      for (const topic of m.topics) this.subscribe(ws, topic, m.since.get(topic));
    } catch (err) {
      this.sendError(ws, err instanceof BadMessage ? fail('invalid_body', err.message) : err);
    }
  }

  private subscribe(ws: WebSocket<SocketData>, name: string, since: number | undefined): void {
    const data = ws.getUserData();
    const topic = parseTopic(name)!;
    const { principal } = data;
    let id: string;
    try {
      id = topicIdOf(topic, principal.user, this.opts.store.current);
    } catch (err) {
      this.sendError(ws, err, name);
      return;
    }
    let held = data.topics.get(name);
    if (held === undefined) data.topics.set(name, (held = { channel: this.opts.fanout.channelOf(principal.tenant, id), refs: 0 }));
    const hold = held;
    this.opts.fanout.take(principal.tenant, id, since).then(
      (taken) => {
        // Closed, or unsubscribed meanwhile: the hold is given back.
        if (data.closed || data.topics.get(name) !== hold) {
          this.opts.fanout.release(taken.channel);
          return;
        }
        // Taken again (a resume on a socket that holds it): one hold is kept.
        if (hold.refs > 0) this.opts.fanout.release(taken.channel);
        else hold.refs = 1;
        let messages: Heard[] = [];
        let resync = false;
        if (since !== undefined) {
          const resumed = resumeFrom(since, taken.seq, taken.after);
          if (resumed === null) resync = true;
          else messages = resumed;
        }
        // What the channel brought between the read and now: the socket subscribes in the same turn,
        // or, while a message the read found is still on its way to this process, just before the
        // first one after it (src/engine/live/fanout.ts).
        const recent = this.opts.fanout.recentAfter(taken.channel, taken.seq);
        ws.cork(() => {
          if (resync) this.send(ws, JSON.stringify({ topic: name, seq: taken.seq, type: 'resync', data: null }));
          for (const m of messages) this.send(ws, m.text);
          this.send(ws, JSON.stringify({ type: 'subscribed', topic: name, seq: taken.seq }));
          for (const m of recent) this.send(ws, m.text);
        });
        this.opts.fanout.subscribeAfter(taken.channel, taken.seq, () => {
          if (!data.closed && data.topics.get(name) === hold) ws.subscribe(taken.channel);
        });
      },
      (err: unknown) => {
        if (data.closed) return;
        if (data.topics.get(name) === hold && hold.refs === 0) data.topics.delete(name);
        ws.cork(() => this.sendError(ws, err, name));
      },
    );
  }

  private unsubscribe(ws: WebSocket<SocketData>, name: string): void {
    const data = ws.getUserData();
    const held = data.topics.get(name);
    if (held !== undefined) {
      data.topics.delete(name);
      ws.unsubscribe(held.channel);
      for (let i = 0; i < held.refs; i++) this.opts.fanout.release(held.channel);
    }
    this.send(ws, JSON.stringify({ type: 'unsubscribed', topic: name }));
  }

  private closed(ws: WebSocket<SocketData>): void {
    const data = ws.getUserData();
    data.closed = true;
    this.sockets.delete(ws);
    for (const held of data.topics.values()) for (let i = 0; i < held.refs; i++) this.opts.fanout.release(held.channel);
    data.topics.clear();
  }
}
