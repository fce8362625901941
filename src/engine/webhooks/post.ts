/**
 * One webhook POST, over the keep-alive connections of src/engine/webhooks/http1.ts (a busy
 * endpoint gets its deliveries over a few connections kept open, not a connection and a DNS lookup
 * each): the request's bytes made once, in one buffer, and the answer's status all that is read of
 * it. The 15 s of a whole exchange are kept by one sweep for every POST in flight, not a timer
 * each. An address that is not global unicast (src/engine/webhooks/addresses.ts) is refused unless
 * allowed, checked on the address each connection is made to (the connection's lookup), so a name
 * that resolves elsewhere later (DNS rebinding) is caught; an address written in the URL is checked
 * before the request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isGlobalUnicast } from './addresses.js';
import { OriginPool, type Connection, type Request } from './http1.js';
import { LaurelError } from '../../lib/errors.js';

export interface PostResult {
  status: number;
}

/** A refused address: not sent. */
export class AddressRefused extends LaurelError {
  constructor(message: string) { super('webhook_address_refused', message); }
}

/** A POST given up by its sender (a worker process stopping): whether the receiver saw it is unknown. */
export class PostAbandoned extends LaurelError {
  constructor(message: string) { super('webhook_abandoned', message); }
}

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

/** An endpoint's URL as a request needs it (endpoints are few: each URL is parsed once). */
interface Target {
  /** The origin's connections, refusing addresses that are not global unicast, and allowing them. */
  pools: { public: OriginPool; any: OriginPool };
  /** The request line and the Host header: `POST <path> HTTP/1.1\r\nhost: <host>\r\n`. */
  start: string;
  /** The host written as an IP address, or null for a name. */
  address: string | null;
}

const targets = new Map<string, Target>();
/** Origins' connections, kept for every URL of the origin (and past a clear of `targets`). */
const pools = new Map<string, { public: OriginPool; any: OriginPool }>();

function targetOf(url: string): Target {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${u.protocol} is not http or https`);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    let p = pools.get(u.origin);
    if (p === undefined) {
      const spec = { tls: u.protocol === 'https:', host, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
      p = { public: new OriginPool({ ...spec, lookup: publicLookup }), any: new OriginPool({ ...spec, lookup: null }) };
      pools.set(u.origin, p);
    }
    t = { pools: p, start: `POST ${u.pathname + u.search} HTTP/1.1\r\nhost: ${u.host}\r\n`, address: isIP(host) === 0 ? null : host };
    if (targets.size >= 1000) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** A header's name or value that would break the request's head (none of laurel's do: a guard). */
const UNSAFE = /[\r\n]/;

/** The request's bytes: its head and the body, in one buffer. */
function requestBytes(t: Target, body: string, headers: Record<string, string>): Buffer {
  let head = `${t.start}user-agent: laurel\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    if (UNSAFE.test(name) || UNSAFE.test(value)) throw new Error(`header ${JSON.stringify(name)} holds a line break`);
    head += `${name}: ${value}\r\n`;
  }
  head += '\r\n';
  const headLength = Buffer.byteLength(head, 'latin1');
  const bytes = Buffer.allocUnsafe(headLength + Buffer.byteLength(body));
  bytes.write(head, 0, 'latin1');
  bytes.write(body, headLength, 'utf8');
  return bytes;
}

/** One POST in flight: settles once, on its answer, an error, or its deadline. */
class Exchange implements Request {
  connection: Connection | null = null;
  settled = false;
  constructor(
    readonly bytes: Buffer,
    readonly pool: OriginPool,
    readonly deadline: number,
    readonly timeoutMs: number,
    private readonly resolve: (r: PostResult) => void,
    private readonly reject: (err: Error) => void,
    private readonly group: PostGroup | undefined,
  ) {
    group?.exchanges.add(this);
  }

  done(err: Error | null, status: number): void {
    if (this.settled) return;
    this.settled = true;
    inFlight.delete(this);
    this.group?.exchanges.delete(this);
    if (err === null) this.resolve({ status });
    else this.reject(err);
  }

  /** Given up (`err`): off the waiting line, or its connection closed if the request went. */
  giveUp(err: Error): void {
    if (this.settled) return;
    if (this.connection !== null) this.connection.close(err);
    else this.pool.withdraw(this);
    this.done(err, 0);
  }

  /** Past its deadline. */
  expire(): void {
    this.giveUp(new Error(`no answer within ${this.timeoutMs / 1000} s`));
  }

  /** Given up by its sender: whether the receiver saw it is unknown. */
  abandon(): void {
    this.giveUp(new PostAbandoned('given up: the worker process is stopping'));
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
  let bytes: Buffer;
  try {
    target = targetOf(url);
    bytes = requestBytes(target, body, headers);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  if (!allowPrivate && target.address !== null && !isGlobalUnicast(target.address)) return Promise.reject(refusal(target.address, target.address));
  return new Promise<PostResult>((resolve, reject) => {
    // The whole exchange within timeoutMs (a receiver trickling its answer included).
    const pool = allowPrivate ? target.pools.any : target.pools.public;
    const x = new Exchange(bytes, pool, Date.now() + timeoutMs, timeoutMs, resolve, reject, group);
    watch(x);
    try {
      pool.send(x);
    } catch (err) {
      x.done(err as Error, 0);
    }
  });
}
