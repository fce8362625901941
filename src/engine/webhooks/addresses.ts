/**
 * Where a webhook may be sent (API.md, "Webhooks"): `http` or `https`, and not to loopback, private,
 * link-local or otherwise internal addresses unless LAUREL_WEBHOOKS_ALLOW_PRIVATE=1 (tests and
 * receivers on the premises). A name is judged by the addresses it resolves to, when sending.
 */
import { isIP } from 'node:net';

/** Whether an IP address (v4 or v6, as text) is loopback, private, link-local, unspecified or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 4) {
    const [a, b] = address.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254)
      || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
  }
  if (v === 6) {
    const g = ipv6Groups(address);
    if (g === null) return true;
    const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    const zeros = (from: number, to: number) => g.slice(from, to).every((n) => n === 0);
    // Unspecified, loopback, and IPv4 inside IPv6 (written in either form: the URL parser turns
    // ::ffff:127.0.0.1 into ::ffff:7f00:1): mapped, compatible, NAT64 and 6to4 reach the IPv4 address.
    if (zeros(0, 7) && g[7] <= 1) return true;
    if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return isPrivateAddress(v4(g[6], g[7]));
    if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return isPrivateAddress(v4(g[6], g[7]));
    if (g[0] === 0x2002) return isPrivateAddress(v4(g[1], g[2]));
    // Unique local fc00::/7, link-local fe80::/10, multicast ff00::/8.
    return (g[0] & 0xfe00) === 0xfc00 || (g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xff00) === 0xff00;
  }
  return false;
}

/** An IPv6 address's eight 16-bit groups (`::` expanded, a trailing dotted IPv4 as two), or null. */
function ipv6Groups(address: string): number[] | null {
  let x = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(x);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    x = `${x.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail, extra] = x.split('::');
  if (extra !== undefined) return null;
  const part = (p: string | undefined) => (p === undefined || p === '' ? [] : p.split(':').map((h) => parseInt(h, 16)));
  const hi = part(head);
  const lo = part(tail);
  if (tail !== undefined && hi.length + lo.length > 7) return null;
  const groups = tail === undefined ? hi : [...hi, ...new Array<number>(8 - hi.length - lo.length).fill(0), ...lo];
  return groups.length === 8 && groups.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? groups : null;
}

/** Why a URL cannot take webhooks, or null: its form, or an address it names literally. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host))) {
    return 'url points at a loopback or private address (allowed with LAUREL_WEBHOOKS_ALLOW_PRIVATE=1)';
  }
  return null;
}
