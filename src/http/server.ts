/**
 * The uWebSockets.js adapter: the only place that touches uWS request and response objects.
 *
 * Rules: copy what is needed from the request before any await;
 * register onAborted first; copy body chunks and join once; enforce the body limit from
 * Content-Length and while reading; write every response through one guarded, corked sender;
 * map every thrown error to `{ "error": ... }`; a catch-all route answers 404; close() stops
 * listening and waits for requests in flight.
 */
import { isUtf8 } from 'node:buffer';
// Before uWebSockets.js loads: its header limit is read from the environment then.
import './uws-limits.js';
import {
  App, us_listen_socket_close, us_socket_local_port,
  type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket,
} from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { Metrics } from '../lib/metrics.js';
import { HttpError, errorBody, fail, LaurelError } from '../lib/errors.js';
import { isConnectionError } from '../redis/outage.js';
import { isPostgresUnavailable, POSTGRES_RETRY_AFTER_S } from '../postgres/pool.js';
import type { RouteDoc } from './route-doc.js';
import { afterParse, pauseConnection } from './pipelining.js';
import { compileQuery, type QueryParams } from './query.js';
import { nextRequestId, REQUEST_ID_HEADER } from './request-id.js';

/**
 * The answer when Postgres is away, refusing or busy (docs/operations.md, "Postgres busy or away"): 503 with
 * `Retry-After`, naming Postgres and what it said.
 */
function postgresRefusal(err: unknown): HttpError {
  const said = (err as Error).message.split(' (')[0].replace(/\.$/, '');
  const refusal = fail('unavailable', `Postgres is busy or cannot be reached (${said}); retry in ${POSTGRES_RETRY_AFTER_S} s`);
  refusal.headers = { 'retry-after': String(POSTGRES_RETRY_AFTER_S) };
  return refusal;
}

export type Method = 'get' | 'post' | 'put' | 'patch' | 'del';
export type Family = 'app' | 'admin' | 'ops';

/** What a handler sees: plain data, copied out of uWS before any await. */
export interface Request {
  /** Its id (src/http/request-id.ts), answered in X-Request-Id and written with its log lines and audit entry. */
  id: string;
  method: string;
  url: string;
  /** Path parameters, percent-decoded. */
  params: string[];
  /** Raw query string, without `?`. */
  query: string;
  /** The query parameters the route's description lists, with their checks: the only ones queryOf reads (src/http/query.ts). */
  queryParams: QueryParams;
  apiKey: string;
  tenantHeader: string;
  idempotencyKey: string;
  /** UTF-8 text of the body; null for methods without one. */
  body: string | null;
  /** Set by the guard before the handler runs. */
  principal: unknown;
  /**
   * The admin key the request came with, once the guard knows it (src/http/authorize.ts), even
   * when it refuses the request for its tenant: the audit log records the key's writes either way.
   */
  adminKey: { id: string; tenantId: string | null } | null;
}

export interface Reply {
  status: number;
  /** A JSON document, unless `contentType` says otherwise. */
  body: string;
  contentType?: string;
  /** More headers (the dashboard's caching). */
  headers?: Record<string, string>;
  /**
   * A body written a chunk at a time as it is made (a user's export), instead of `body`: each
   * chunk once uWS has sent the one before (backpressure), so a large answer never sits in memory.
   * The status and headers go with the first chunk, so a failure before it is answered as any
   * other; one after it closes the connection with the body unfinished (the chunked encoding never
   * ends: no client takes it for whole). A client that goes away stops it (`return()`).
   */
  stream?: AsyncIterable<string>;
}

export type Handler = (req: Request) => Reply | Promise<Reply>;

/**
 * Whose data an Application API route reads or writes, for a key scoped to one user
 * (src/http/auth.ts): `path` the user of the path (`/users/:id/...`), `user.id` or `id` the user
 * the body names, `userIds` the users the query lists, `shared` no one user's (configuration,
 * rankings, counts over users).
 */
export type Subject = 'path' | 'user.id' | 'id' | 'userIds' | 'shared';

/**
 * What a key bound to a tenant may do with a route (src/http/authorize.ts, docs/api.md "Keys
 * bound to a tenant"): `tenant` acts on the request's tenant's data only (every Application API route, and
 * the Admin routes whose description says `tenant`); `rows` reads or writes rows that each belong
 * to one tenant, and its handler holds a bound key to its own tenant's rows (tenants, keys,
 * webhook deliveries); `configuration` is account-wide configuration, which a bound key may read
 * (GET) and not write; `account` is account-wide and refused to a bound key whatever the method.
 * An Admin route that says nothing is `account`, unless its description says `tenant`.
 */
export type Reach = 'tenant' | 'rows' | 'configuration' | 'account';

export interface Route {
  method: Method;
  /** Path below the family's prefixes, with `:name` parameters. */
  path: string;
  family: Family;
  handler: Handler;
  /** What the route takes and answers: the OpenAPI document's source (src/http/route-doc.ts). */
  doc: RouteDoc;
  /**
   * Also takes the bodies HTML forms and mail clients send (application/x-www-form-urlencoded,
   * multipart/form-data), as text: the one-click unsubscribe (RFC 8058) and the preferences page.
   */
  forms?: boolean;
  /** Also takes newline-delimited JSON (application/x-ndjson), as text: a history import. */
  ndjson?: boolean;
  /** The most bytes of body it takes, when more than the server's bodyLimit (a history import's). */
  bodyLimit?: number;
  /** Every Application API route says whose data it touches; a route that does not refuses user-scoped keys. */
  subject?: Subject;
  /**
   * Its path parameters are secrets (an email link's signed token): the logs show the route's
   * pattern, never the path as sent.
   */
  secretPath?: boolean;
  /** What a key bound to a tenant may do with it (see Reach). */
  reach?: Reach;
  /**
   * How many requests a request of it counts as against its key's rate limit (1 when it says
   * nothing): a read whose cost grows with what it names says so (a friends board on a sharded
   * board, src/routes/app/leaderboards.ts). Called before the request is checked: it may not throw
   * and takes anything.
   */
  weight?: (req: Request) => number;
  /**
   * Takes the key and the tenant from `?key=` and `?tenant=` too, when their headers are missing
   * (the live updates' path, whose browser clients cannot set headers: src/routes/app/live.ts).
   */
  queryCredentials?: boolean;
}

/**
 * The key and the tenant a request names: its headers, or, on a route that takes them from the
 * query too (`queryCredentials`), `?key=` and `?tenant=` where a header is missing.
 */
export function credentialsOf(route: Route, headers: { apiKey: string; tenant: string }, query: string): Pick<Request, 'apiKey' | 'tenantHeader'> {
  if (route.queryCredentials !== true || (headers.apiKey !== '' && headers.tenant !== '')) return { apiKey: headers.apiKey, tenantHeader: headers.tenant };
  const params = new URLSearchParams(query);
  const tenant = headers.tenant !== '' ? headers.tenant : params.get('tenant');
  // As an empty Tenant-ID header: never taken for the default tenant.
  if (tenant === '') throw fail('invalid_query', 'tenant is empty: send a tenant\'s customerId, or no tenant for the default tenant');
  return { apiKey: headers.apiKey !== '' ? headers.apiKey : (params.get('key') ?? ''), tenantHeader: tenant ?? '' };
}

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json\b/i;
const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;
const NDJSON_TYPE = /^application\/(x-)?ndjson\b/i;

/**
 * Runs before every handler (authentication); throws HttpError to refuse. It answers a promise
 * when it needs Redis (a rate limit, a user-scoped key), which the handler then waits for.
 */
export type Guard = (req: Request, route: Route) => void | Promise<void>;

/**
 * Told of the answers of the routes it wants once each is written (or its client gone before it
 * could be): the audit log's (src/http/audit.ts). It runs after the answer, never before.
 */
export interface Answered {
  /** Asked once per route as it is mounted. */
  wants(route: Route): boolean;
  answered(route: Route, req: Request, status: number, body: string): void;
}

export interface ServerOptions {
  bodyLimit: number;
  log: Logger;
  guard: Guard;
  /** Prefixes per family. */
  prefixes: Record<Family, string[]>;
  /** Observes each answer by route and status. */
  metrics: Metrics;
  /** Told of the answers of the routes it wants. */
  answered?: Answered;
}

const STATUS_LINE: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 413: '413 Payload Too Large',
  415: '415 Unsupported Media Type', 422: '422 Unprocessable Entity', 426: '426 Upgrade Required', 429: '429 Too Many Requests',
  431: '431 Request Header Fields Too Large', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

const UWS_METHOD: Record<Method, 'get' | 'post' | 'put' | 'patch' | 'del'> = {
  get: 'get', post: 'post', put: 'put', patch: 'patch', del: 'del',
};

/** The request histogram's route for a request no route takes (404) or takes by another method (405). */
const UNMATCHED = 'unmatched';

/**
 * Whether a route's requests have their body read. A DELETE's is read too, though none takes one:
 * a body sent with it is refused (src/http/validate.ts refuseBody), never ignored.
 */
const HAS_BODY: Record<Method, boolean> = { get: false, del: true, post: true, put: true, patch: true };

/** The request line's method of a route's requests (uWS routes them by it: no need to ask). */
const METHOD_NAME: Record<Method, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', del: 'DELETE' };

interface State {
  /** The request's id (src/http/request-id.ts): made before anything can refuse it. */
  id: string;
  aborted: boolean;
  done: boolean;
  /** The path the logs show, when it is not the one sent (a route with a secret path). */
  shown?: string;
  /** The route's label in the request histogram (src/lib/metrics.ts): method and pattern, or `unmatched`. */
  route: string;
  /** Its body is still arriving: in flight already, so a stop waits for it (close()). */
  reading?: boolean;
  /** Its connection is paused (src/http/pipelining.ts): resumed as the answer is written. */
  paused?: boolean;
  /** The request the server's `answered` wants to be told of, once answered. */
  told?: { route: Route; req: Request };
  /** A streamed answer waiting for uWS to send what it holds, woken by onWritable or the abort. */
  wake?: () => void;
}

/**
 * The most bytes of headers (names, values and the request target) laurel takes: more is answered
 * 431 with the JSON error body. uWS's own limit (src/http/uws-limits.ts) is set higher, so that
 * laurel answers first; past uWS's, uWS answers 431 itself (an HTML body) and closes.
 */
export const HEADERS_LIMIT = 16 * 1024;

/** The headers the adapter reads of a request, and the size of them all. */
export interface RequestHeaders {
  /** Every header's name, value, `: ` and CRLF, and the request target: as they arrived. */
  size: number;
  apiKey: string;
  tenant: string;
  idempotencyKey: string;
  contentType: string;
  contentLength: string;
  /** A Tenant-ID header came with no value (or only bytes uWS trims: one outside ASCII). */
  emptyTenant: boolean;
  /** An Idempotency-Key header came with no value (the same). */
  emptyIdempotencyKey: boolean;
  /** Content-Length came twice with two values (uWS reads the first; a proxy may read the other). */
  lengthsDiffer: boolean;
}

/**
 * Reads a request's headers in one visit: their size (against HEADERS_LIMIT), and the five the
 * adapter uses (the first of each name, '' when absent, as getHeader gives it). uWS gives no
 * cheaper view of the size than this visit (a string pair and a call per header: about 0.16 µs
 * each), and picking the five out of it costs less than a getHeader each besides (bench/README.md,
 * `bench:header-check`). The values are read as UTF-8 where getHeader reads Latin-1: the same for
 * ASCII, and a value outside it is refused either way (no key matches it, Tenant-ID and
 * Idempotency-Key must be printable ASCII, a Content-Type that is not JSON's answers 415).
 */
export function readHeaders(uReq: HttpRequest, url: string, query: string): RequestHeaders {
  let size = url.length + query.length;
  let apiKey: string | undefined;
  let tenant: string | undefined;
  let idempotencyKey: string | undefined;
  let contentType: string | undefined;
  let contentLength: string | undefined;
  let emptyTenant = false;
  let emptyIdempotencyKey = false;
  let lengthsDiffer = false;
  uReq.forEach((name, value) => {
    size += name.length + value.length + 4;
    switch (name) {
      case 'x-api-key': apiKey ??= value; break;
      case 'tenant-id':
        tenant ??= value;
        if (value === '') emptyTenant = true;
        break;
      case 'idempotency-key':
        idempotencyKey ??= value;
        if (value === '') emptyIdempotencyKey = true;
        break;
      case 'content-type': contentType ??= value; break;
      case 'content-length':
        if (contentLength !== undefined && contentLength !== value) lengthsDiffer = true;
        contentLength ??= value;
        break;
    }
  });
  return {
    size, apiKey: apiKey ?? '', tenant: tenant ?? '', idempotencyKey: idempotencyKey ?? '', contentType: contentType ?? '',
    contentLength: contentLength ?? '', emptyTenant, emptyIdempotencyKey, lengthsDiffer,
  };
}

/**
 * A request's headers (readHeaders), refused when they cannot be taken as sent: over
 * HEADERS_LIMIT (431), a Tenant-ID or Idempotency-Key with nothing in it, or two Content-Lengths
 * that differ (400: a proxy in front that reads the other could take the body for another request). uWS drops bytes above 0x7F at
 * either end of a header's value before laurel sees it, so `Tenant-ID: é` arrives empty: taken
 * for no header, it would act on the default tenant. (`acmé` arrives as `acm`: that cannot be seen.)
 */
export function checkedHeaders(uReq: HttpRequest, url: string, query: string): RequestHeaders {
  const headers = readHeaders(uReq, url, query);
  if (headers.size > HEADERS_LIMIT) throw fail('headers_too_large', String(HEADERS_LIMIT));
  if (headers.emptyTenant) {
    throw fail('invalid_header', 'Tenant-ID is empty (or outside printable ASCII): send a tenant\'s customerId, or no Tenant-ID for the default tenant');
  }
  if (headers.emptyIdempotencyKey) {
    throw fail('invalid_header', 'Idempotency-Key is empty (or outside printable ASCII): send a key, or no Idempotency-Key');
  }
  if (headers.lengthsDiffer) throw fail('invalid_header', 'Content-Length is given twice, with two values');
  return headers;
}

/**
 * Whether every run of percent-escapes in a query decodes to valid UTF-8 (URLSearchParams would
 * read an invalid one as U+FFFD: `%FF` and `%FE` would be one value). A `%` not followed by two
 * hex digits is a literal `%`, as URLSearchParams reads it.
 */
function percentEncodedUtf8(query: string): boolean {
  if (query.indexOf('%') < 0) return true;
  for (const run of query.matchAll(/(?:%[0-9a-fA-F]{2})+/g)) {
    if (!isUtf8(Buffer.from(run[0].replace(/%/g, ''), 'hex'))) return false;
  }
  return true;
}

function decodeParam(raw: string): string {
  if (raw.indexOf('%') < 0) return raw;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw fail('invalid_path', `"${raw}" is not valid percent-encoding`);
  }
  // %00 is not text (a user id holding it could not be copied to Postgres).
  if (decoded.includes('\u0000')) throw fail('invalid_path', `"${raw}" holds U+0000 (%00)`);
  return decoded;
}

/** The port cannot be listened on (taken by a server without SO_REUSEPORT, or not permitted). */
export class ListenError extends LaurelError {
  constructor(message: string) { super('listen_failed', message); }
}

export class HttpServer {
  private readonly app: TemplatedApp;
  private readonly opts: ServerOptions;
  private readonly log: Logger;
  private listenSocket: us_listen_socket | null = null;
  /** close() has begun: every response closes its connection once written. */
  private closing = false;
  private inflight = 0;
  private drained: (() => void) | null = null;
  private readonly routed = new Set<string>();
  /** The routes whose answers `answered` wants. */
  private readonly told = new Set<Route>();

  constructor(opts: ServerOptions) {
    this.opts = opts;
    this.log = opts.log;
    this.app = App();
  }

  /**
   * The uWS app, for the WebSocket routes (src/http/live-socket.ts, part of this adapter): mount
   * them before the HTTP routes of the same path, which then take the requests that are no upgrade.
   */
  get uws(): TemplatedApp {
    return this.app;
  }

  /** Registers routes; call before listen(). */
  mount(routes: Route[]): void {
    for (const r of routes) {
      for (const prefix of this.opts.prefixes[r.family]) this.register(r, prefix + r.path);
    }
  }

  private register(route: Route, pattern: string): void {
    if (this.opts.answered?.wants(route) === true) this.told.add(route);
    const paramCount = (pattern.match(/\/:/g) ?? []).length;
    const withBody = HAS_BODY[route.method];
    const queryParams = compileQuery(`${METHOD_NAME[route.method]} ${pattern}`, route.doc.query ?? []);
    // One label for the route whichever of its family's prefixes the request came by.
    const label = `${METHOD_NAME[route.method]} ${this.opts.prefixes[route.family][0] ?? ''}${route.path}`;
    this.app[UWS_METHOD[route.method]](pattern, (res, req) => this.serve(res, req, route, label, paramCount, withBody, queryParams, pattern));
    if (!this.routed.has(pattern)) {
      this.routed.add(pattern);
      // Lower priority than method routes in uWS: any other method on a known path.
      this.app.any(pattern, (res, req) => {
        const method = req.getMethod().toUpperCase();
        const url = req.getUrl();
        const state: State = { id: nextRequestId(), aborted: false, done: false, route: UNMATCHED, ...(route.secretPath === true && { shown: pattern }) };
        this.sendError(res, state, fail('method_not_allowed', method, url), method, url, performance.now());
      });
    }
  }

  private serve(
    res: HttpResponse, uReq: HttpRequest, route: Route, label: string, paramCount: number, withBody: boolean,
    queryParams: QueryParams, pattern: string,
  ): void {
    const started = performance.now();
    const state: State = { id: nextRequestId(), aborted: false, done: false, route: label };
    if (route.secretPath === true) state.shown = pattern;
    res.onAborted(() => { state.aborted = true; this.doneReading(state); state.wake?.(); });
    const method = METHOD_NAME[route.method];
    const url = uReq.getUrl();
    let req: Request;
    try {
      // uWS reads the request line as UTF-8, an invalid byte as U+FFFD: two ids would collide.
      if (url.includes('\uFFFD')) throw fail('invalid_path', 'the path is not valid UTF-8 (bytes outside UTF-8 must be percent-encoded as text)');
      const query = uReq.getQuery() ?? '';
      if (query.includes('\uFFFD') || !percentEncodedUtf8(query)) throw fail('invalid_query', 'the query is not valid UTF-8');
      const headers = checkedHeaders(uReq, url, query);
      const params: string[] = new Array(paramCount);
      for (let i = 0; i < paramCount; i++) params[i] = decodeParam(uReq.getParameter(i) ?? '');
      req = {
        id: state.id,
        method,
        url,
        params,
        query,
        queryParams,
        ...credentialsOf(route, headers, query),
        idempotencyKey: headers.idempotencyKey,
        body: null,
        principal: null,
        adminKey: null,
      };
      if (!withBody) {
        // A read runs at once; a write waits until uWS has parsed what came with it (pipelining.ts).
        if (route.method === 'get') this.run(res, state, route, req, started);
        else this.runAfterParse(res, state, route, req, started);
        return;
      }
      const contentType = headers.contentType;
      if (contentType !== '' && !JSON_TYPE.test(contentType) && !(route.forms === true && FORM_TYPE.test(contentType))
        && !(route.ndjson === true && NDJSON_TYPE.test(contentType))) {
        throw fail('unsupported_media_type', contentType);
      }
      const declared = headers.contentLength;
      const limit = route.bodyLimit ?? this.opts.bodyLimit;
      if (declared !== '' && Number(declared) > limit) {
        throw fail('payload_too_large', String(limit));
      }
    } catch (err) {
      this.sendError(res, state, err, method, url, started, true, route);
      return;
    }
    this.readBody(res, state, route, req, started);
  }

  private readBody(res: HttpResponse, state: State, route: Route, req: Request, started: number): void {
    const limit = route.bodyLimit ?? this.opts.bodyLimit;
    let chunks: Buffer[] | null = null;
    let size = 0;
    this.inflight++;
    state.reading = true;
    res.onData((chunk, isLast) => {
      if (state.done) return;
      size += chunk.byteLength;
      if (size > limit) {
        this.sendError(res, state, fail('payload_too_large', String(limit)), req.method, req.url, started, true);
        this.doneReading(state);
        return;
      }
      if (isLast) {
        // One chunk: decode now, while uWS still owns the buffer (toString copies).
        const whole = chunks === null ? Buffer.from(chunk) : Buffer.concat([...chunks, Buffer.from(chunk)], size);
        chunks = null;
        // Invalid UTF-8 would decode to U+FFFD: two different bodies read as one.
        if (!isUtf8(whole)) {
          this.sendError(res, state, fail('invalid_body', 'the body is not valid UTF-8'), req.method, req.url, started, false, route);
          this.doneReading(state);
          return;
        }
        req.body = whole.toString('utf8');
        this.runAfterParse(res, state, route, req, started);
        this.doneReading(state);
      } else {
        // uWS reuses the buffer once onData returns: keep a copy.
        (chunks ??= []).push(Buffer.concat([Buffer.from(chunk)]));
      }
    });
  }

  /**
   * Runs a request that may change something once uWS has parsed the rest of the bytes it came
   * with, not at all when uWS closed the connection for a request pipelined behind it: what is
   * never answered is never applied. Its connection is paused until it is answered, so that a
   * request pipelined behind it waits instead (src/http/pipelining.ts).
   */
  private runAfterParse(res: HttpResponse, state: State, route: Route, req: Request, started: number): void {
    this.inflight++;
    pauseConnection(res, state);
    afterParse(() => {
      if (state.aborted) {
        this.log.info({ reqId: state.id, method: req.method, url: state.shown ?? req.url }, 'request not run: its connection closed before it ran (a request pipelined behind it?)');
      } else {
        this.run(res, state, route, req, started);
      }
      this.finish();
    });
  }

  private run(res: HttpResponse, state: State, route: Route, req: Request, started: number): void {
    this.inflight++;
    if (this.told.has(route)) state.told = { route, req };
    let result: Reply | Promise<Reply>;
    try {
      const guarded = this.opts.guard(req, route);
      result = guarded === undefined ? route.handler(req) : guarded.then(() => route.handler(req));
    } catch (err) {
      this.finish();
      this.sendError(res, state, err, req.method, req.url, started, false, route);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (reply) => {
          this.finish();
          if (reply.stream !== undefined) {
            void this.sendStream(res, state, reply, reply.stream, req.method, req.url, started);
            return;
          }
          this.send(res, state, reply.status, reply.body, req.method, req.url, started, false, reply.contentType, reply.headers ?? null);
        },
        (err: unknown) => { this.finish(); this.sendError(res, state, err, req.method, req.url, started, false, route); },
      );
    } else {
      this.finish();
      if (result.stream !== undefined) {
        void this.sendStream(res, state, result, result.stream, req.method, req.url, started);
        return;
      }
      this.send(res, state, result.status, result.body, req.method, req.url, started, false, result.contentType, result.headers ?? null);
    }
  }

  /** The body has arrived (run() counts the request from then on), or never will. */
  private doneReading(state: State): void {
    if (state.reading !== true) return;
    state.reading = false;
    this.finish();
  }

  private finish(): void {
    this.inflight--;
    if (this.inflight === 0 && this.drained) this.drained();
  }

  /** The only writer: guarded against aborted and finished responses, corked. */
  private send(
    res: HttpResponse, state: State, status: number, body: string,
    method: string, url: string, started: number, close = false, contentType = 'application/json',
    headers: Record<string, string> | null = null,
  ): void {
    if (state.done) return;
    state.done = true;
    this.opts.metrics.response(state.route, status, started);
    if (state.shown !== undefined) url = state.shown;
    if (state.aborted) {
      this.log.info({ reqId: state.id, method, url, status, aborted: true }, 'request aborted by the client');
      this.tell(state, status, body);
      return;
    }
    res.cork(() => {
      // Before end(): the response cannot be touched after it.
      if (state.paused === true) res.resume();
      res.writeStatus(STATUS_LINE[status] ?? String(status)).writeHeader('content-type', contentType).writeHeader(REQUEST_ID_HEADER, state.id);
      if (headers !== null) for (const name in headers) res.writeHeader(name, headers[name]);
      res.end(body, close || this.closing);
    });
    this.tell(state, status, body);
    if (this.log.isLevelEnabled('debug') || status >= 400) {
      const ms = Math.round((performance.now() - started) * 1000) / 1000;
      // A 503 is Redis away, a restore, or data lost: each logged once where it is found (src/redis/outage.ts,
      // src/config/store.ts), so its requests are refusals (an outage under load answers thousands a second).
      const reqId = state.id;
      if (status >= 500 && status !== 503) this.log.error({ reqId, method, url, status, ms }, 'request failed');
      else if (status >= 400) this.log.info({ reqId, method, url, status, ms }, 'request refused');
      else this.log.debug({ reqId, method, url, status, ms }, 'request');
    }
  }

  /**
   * Writes a streamed answer (Reply.stream): its first chunk made before anything is written (a
   * failure there is answered as any other), then each chunk once uWS has sent what it held. The
   * answer counts as in flight until its end, so close() waits for it.
   */
  private async sendStream(
    res: HttpResponse, state: State, reply: Reply, stream: AsyncIterable<string>, method: string, url: string, started: number,
  ): Promise<void> {
    if (state.done) return;
    const chunks = stream[Symbol.asyncIterator]();
    const stop = () => chunks.return?.().then(() => undefined, () => undefined);
    let next: IteratorResult<string>;
    try {
      next = await chunks.next();
    } catch (err) {
      await stop();
      this.sendError(res, state, err, method, url, started);
      return;
    }
    if (state.aborted) {
      await stop();
      this.send(res, state, reply.status, '', method, url, started);
      return;
    }
    state.done = true;
    this.inflight++;
    const shown = state.shown ?? url;
    let bytes = 0;
    try {
      let writable = true;
      res.cork(() => {
        if (state.paused === true) res.resume();
        res.writeStatus(STATUS_LINE[reply.status] ?? String(reply.status)).writeHeader('content-type', reply.contentType ?? 'application/json')
          .writeHeader(REQUEST_ID_HEADER, state.id);
        if (reply.headers !== undefined) for (const name in reply.headers) res.writeHeader(name, reply.headers[name]);
        if (next.done !== true) { writable = res.write(next.value); bytes += next.value.length; }
      });
      while (next.done !== true) {
        if (!writable) {
          // uWS holds the chunk until the socket drains: the next one is made once it has.
          await new Promise<void>((resolve) => {
            state.wake = resolve;
            res.onWritable(() => { resolve(); return true; });
          });
          state.wake = undefined;
        }
        if (state.aborted) break;
        try {
          next = await chunks.next();
        } catch (err) {
          this.log.error({ err, reqId: state.id, method, url: shown, bytes }, 'streamed answer failed: its connection closed with the body unfinished');
          if (!state.aborted) res.close();
          return;
        }
        if (state.aborted) break;
        if (next.done === true) break;
        const chunk = next.value;
        res.cork(() => { writable = res.write(chunk); });
        bytes += chunk.length;
      }
      if (state.aborted) {
        await stop();
        this.log.info({ reqId: state.id, method, url: shown, status: reply.status, bytes, aborted: true }, 'streamed answer aborted by the client');
        return;
      }
      res.cork(() => res.end(undefined, this.closing));
      this.log.debug({ reqId: state.id, method, url: shown, status: reply.status, bytes, ms: Math.round(performance.now() - started) }, 'request (streamed)');
    } finally {
      this.opts.metrics.response(state.route, reply.status, started);
      this.tell(state, reply.status, '');
      this.finish();
    }
  }

  /** Tells `answered` of an answer written, when it wants the route's; its failure is logged, the answer is gone already. */
  private tell(state: State, status: number, body: string): void {
    if (state.told === undefined) return;
    try {
      this.opts.answered!.answered(state.told.route, state.told.req, status, body);
    } catch (err) {
      this.log.error({ err, reqId: state.id, method: state.told.req.method, url: state.told.req.url }, 'answer not told (the audit log)');
    }
  }

  /**
   * Answers an error; a 400 on a route whose description answers malformed input with 422 is
   * answered 422 (src/http/route-doc.ts `malformed`), code and message unchanged.
   */
  private sendError(
    res: HttpResponse, state: State, err: unknown, method: string, url: string, started: number, close = false, route?: Route,
  ): void {
    if (state.shown !== undefined) url = state.shown;
    let httpError: HttpError;
    if (err instanceof HttpError) {
      httpError = err;
    } else {
      if (isPostgresUnavailable(err)) {
        this.opts.metrics.storeErrors.postgres++;
        httpError = postgresRefusal(err);
        this.log.warn({ err: (err as Error).message, reqId: state.id, method, url }, 'Postgres cannot serve the request');
      } else if (isConnectionError(err)) {
        // Redis is down: the outage is logged once (src/redis/outage.ts), each request's 503 below.
        this.opts.metrics.storeErrors.redis++;
        httpError = fail('unavailable', 'Redis is not reachable');
      } else {
        this.log.error({ err, reqId: state.id, method, url }, 'unexpected error');
        httpError = fail('internal');
      }
    }
    const status = httpError.status === 400 && route?.doc.malformed === 422 ? 422 : httpError.status;
    this.send(res, state, status, errorBody(httpError), method, url, started, close, undefined, httpError.headers);
  }

  /** Starts listening; resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    this.app.any('/*', (res, req) => {
      const method = req.getMethod().toUpperCase();
      const url = req.getUrl();
      this.sendError(res, { id: nextRequestId(), aborted: false, done: false, route: UNMATCHED }, fail('route_not_found', method, url), method, url, performance.now());
    });
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) {
          reject(new ListenError(`laurel cannot listen on ${host}:${port} (address in use or not permitted): set PORT (or HOST)`));
          return;
        }
        this.listenSocket = socket;
        resolve(us_socket_local_port(socket));
      });
    });
  }

  /** Stops accepting connections, then waits (up to `graceMs`) for requests in flight, those whose body is still arriving too. */
  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    if (this.listenSocket) {
      us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
    }
    if (this.inflight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.drained = () => { clearTimeout(timer); resolve(); };
      });
    }
    // The last answers may still sit in the cork buffer of the uWS callback whose microtasks got
    // here: closing the sockets before it returns would drop them.
    await new Promise((resolve) => setImmediate(resolve));
    this.app.close();
  }
}
