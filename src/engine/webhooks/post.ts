/**
 * One webhook POST over `node:http` or `node:https`, on keep-alive agents (a busy endpoint gets its
 * deliveries over a few connections kept open, not a connection and a DNS lookup each; `fetch`
 * cost several times the CPU per delivery). Private and loopback addresses are refused unless
 * allowed, checked on the address each connection is made to (the agents' lookup), so a name that
 * resolves elsewhere later (DNS rebinding) is caught; an address written in the URL is checked
 * before the request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
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

const AGENT = { keepAlive: true, maxSockets: 16, scheduling: 'fifo' } as const;

/** Keep-alive agents per scheme, one pair refusing private addresses and one allowing them. */
const agents = {
  public: { http: new http.Agent({ ...AGENT, lookup: publicLookup }), https: new https.Agent({ ...AGENT, lookup: publicLookup }) },
  any: { http: new http.Agent(AGENT), https: new https.Agent(AGENT) },
};

/** POSTs `body`; answers the status, or throws (network error, timeout, refused address). */
export function postWebhook(
  url: string, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean,
): Promise<PostResult> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return Promise.reject(refusal(host, host));
  const secure = target.protocol === 'https:';
  const pair = allowPrivate ? agents.any : agents.public;
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(target, {
      method: 'POST', agent: secure ? pair.https : pair.http,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      // The answer's body is not read: drop it, keep the connection.
      res.resume();
      res.on('end', () => { clearTimeout(timer); resolve({ status: res.statusCode ?? 0 }); });
      res.on('error', fail);
    });
    // The whole exchange within timeoutMs (a receiver trickling its answer included).
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(err);
    }
    req.on('error', fail);
    req.end(body);
  });
}
