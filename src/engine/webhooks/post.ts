/**
 * One webhook POST, on undici's keep-alive connection pools (a busy endpoint gets its deliveries
 * over a few connections kept open, not a connection and a DNS lookup each; `fetch` cost several
 * times the CPU per delivery, `node:http`'s agents twice undici's: docs/performance.md). Private
 * and loopback addresses are refused unless allowed, checked on the address each connection is
 * made to (the connector's lookup), so a name that resolves elsewhere later (DNS rebinding) is
 * caught; an address written in the URL is checked before the request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { isPrivateAddress } from './addresses.js';

export interface PostResult {
  status: number;
}

/** A refused address: not sent. */
export class AddressRefused extends Error {}

const refusal = (host: string, address: string) =>
  new AddressRefused(`${host} resolves to ${address}, a private address (LAUREL_WEBHOOKS_ALLOW_PRIVATE=1 allows it)`);

/** dns.lookup, refusing a private address. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const inside = addresses.find((a) => isPrivateAddress(a.address));
    if (inside !== undefined) return callback(refusal(hostname, inside.address), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

/** Connections kept open per origin. */
const CONNECTIONS = 16;

/** Keep-alive pools, one refusing private addresses and one allowing them. */
const agents = {
  public: new Agent({ connections: CONNECTIONS, connect: { lookup: publicLookup } }),
  any: new Agent({ connections: CONNECTIONS }),
};

/** POSTs `body`; answers the status, or throws (network error, timeout, refused address). */
export async function postWebhook(
  url: string, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean,
): Promise<PostResult> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) throw refusal(host, host);
  const abort = new AbortController();
  // The whole exchange within timeoutMs (a receiver trickling its answer included).
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await (allowPrivate ? agents.any : agents.public).request({
      origin: target.origin, path: target.pathname + target.search, method: 'POST', body, signal: abort.signal,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    // The answer's body is not kept: drained, so the connection serves the next delivery.
    await res.body.dump();
    return { status: res.statusCode };
  } catch (err) {
    throw abort.signal.aborted ? new Error(`no answer within ${timeoutMs / 1000} s`) : err;
  } finally {
    clearTimeout(timer);
  }
}
