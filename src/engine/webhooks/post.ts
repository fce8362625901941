/**
 * One webhook POST, on undici's keep-alive connection pools (a busy endpoint gets its deliveries
 * over a few connections kept open, not a connection and a DNS lookup each), dispatched with a
 * handler of its own: the answer's status is all a delivery needs, so no response object, body
 * stream or AbortSignal is made per POST (`request()` with them cost about a third more CPU per
 * delivery, `fetch` several times, `node:http`'s agents twice: docs/performance.md). The 15 s of a
 * whole exchange are kept by one sweep for every POST in flight, not a timer each. An address that
 * is not global unicast (src/engine/webhooks/addresses.ts) is refused unless allowed, checked on the address each connection is made
 * to (the connector's lookup), so a name that resolves elsewhere later (DNS rebinding) is caught;
 * an address written in the URL is checked before the request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { isGlobalUnicast } from './addresses.js';

export interface PostResult {
  status: number;
}

/** A refused address: not sent. */
export class AddressRefused extends Error {}

/** A POST given up by its sender (a worker process stopping): whether the receiver saw it is unknown. */
export class PostAbandoned extends Error {}

/** The POSTs in flight of one sender, which it can give up on all at once (PostAbandoned). */
export class PostGroup {
  readonly exchanges = new Set<Exchange>();

  abandon(): void {
    for (const x of this.exchanges) x.abandon();
  }
}

const refusal = (host: string, address: string) =>
  new AddressRefused(`${host} resolves to ${address}, a private address or another that is not global unicast (LAUREL_WEBHOOKS_ALLOW_PRIVATE=1 allows it)`);

/** dns.lookup, refusing an address that is not global unicast. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const inside = addresses.find((a) => !isGlobalUnicast(a.address));
    if (inside !== undefined) return callback(refusal(hostname, inside.address), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

/** Connections kept open per origin. */
const CONNECTIONS = 16;

/** Keep-alive pools, one refusing addresses that are not global unicast and one allowing them. */
const agents = {
  public: new Agent({ connections: CONNECTIONS, connect: { lookup: publicLookup } }),
  any: new Agent({ connections: CONNECTIONS }),
};

/** An endpoint's URL as a request needs it (endpoints are few: each URL is parsed once). */
interface Target {
  origin: string;
  path: string;
  /** The host written as an IP address, or null for a name. */
  address: string | null;
}

const targets = new Map<string, Target>();

function targetOf(url: string): Target {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    t = { origin: u.origin, path: u.pathname + u.search, address: isIP(host) === 0 ? null : host };
    if (targets.size >= 1000) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** One POST in flight: settles once, on the answer's end, an error, or its deadline. */
class Exchange implements Dispatcher.DispatchHandler {
  status = 0;
  controller: Dispatcher.DispatchController | null = null;
  done = false;
  constructor(
    readonly deadline: number,
    readonly timeoutMs: number,
    private readonly resolve: (r: PostResult) => void,
    private readonly reject: (err: Error) => void,
    private readonly group: PostGroup | undefined,
  ) {
    group?.exchanges.add(this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Its deadline passed while it waited for a connection.
    if (this.done) controller.abort(this.lateError());
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    // A 1xx is followed by the final answer.
    if (statusCode >= 200) this.status = statusCode;
  }

  onResponseData(): void {
    // The answer's body is not kept: read through, so the connection serves the next delivery.
  }

  onResponseEnd(): void {
    this.finish(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.finish(err);
  }

  lateError(): Error {
    return new Error(`no answer within ${this.timeoutMs / 1000} s`);
  }

  /** Past its deadline: given up, the connection closed if the request was sent. */
  expire(): void {
    const err = this.lateError();
    this.finish(err);
    this.controller?.abort(err);
  }

  /** Given up by its sender: the connection closed if the request was sent. */
  abandon(): void {
    const err = new PostAbandoned('given up: the worker process is stopping');
    this.finish(err);
    this.controller?.abort(err);
  }

  finish(err: Error | null): void {
    if (this.done) return;
    this.done = true;
    inFlight.delete(this);
    this.group?.exchanges.delete(this);
    if (err === null) this.resolve({ status: this.status });
    else this.reject(err);
  }
}

/** The POSTs in flight, and the sweep that gives up on those past their deadline. */
const inFlight = new Set<Exchange>();
let sweep: NodeJS.Timeout | null = null;
const SWEEP_MS = 250;

function watch(x: Exchange): void {
  inFlight.add(x);
  sweep ??= setInterval(() => {
    const now = Date.now();
    for (const e of inFlight) if (e.deadline <= now) e.expire();
    if (inFlight.size === 0 && sweep !== null) {
      clearInterval(sweep);
      sweep = null;
    }
  }, SWEEP_MS).unref();
}

/**
 * POSTs `body`; answers the status, or throws (network error, no answer within `timeoutMs`, refused
 * address, given up through `group`).
 */
export function postWebhook(
  url: string, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean, group?: PostGroup,
): Promise<PostResult> {
  let target: Target;
  try {
    target = targetOf(url);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  if (!allowPrivate && target.address !== null && !isGlobalUnicast(target.address)) return Promise.reject(refusal(target.address, target.address));
  return new Promise<PostResult>((resolve, reject) => {
    // The whole exchange within timeoutMs (a receiver trickling its answer included).
    const x = new Exchange(Date.now() + timeoutMs, timeoutMs, resolve, reject, group);
    watch(x);
    try {
      (allowPrivate ? agents.any : agents.public).dispatch({
        origin: target.origin, path: target.path, method: 'POST', body,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      }, x);
    } catch (err) {
      x.finish(err as Error);
    }
  });
}
