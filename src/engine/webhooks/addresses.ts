/**
 * Where a webhook may be sent (docs/webhooks.md): `http` or `https`, and only to a globally
 * routable unicast address unless LAUREL_WEBHOOKS_ALLOW_PRIVATE=1 (tests and receivers on the
 * premises). A name is judged by the addresses it resolves to, when sending.
 *
 * The ranges come from `ipaddr.js` (pinned), whose tables follow the IANA special-purpose address
 * registries: an IPv4 address passes only outside every one of them (loopback, private, shared,
 * link-local, documentation, benchmarking, 192.0.0.0/24, AS112, AMT, 6to4 relays, multicast,
 * reserved, broadcast). An IPv6 address passes only inside global unicast (2000::/3, the IANA IPv6
 * address space) and outside every special range (documentation, benchmarking, ORCHID, the IETF
 * protocol assignments, AS112, ...). An IPv6 address that carries an IPv4 one is judged by it:
 * IPv4-mapped (`::ffff:a.b.c.d`, whichever way it is written), NAT64 (`64:ff9b::/96`), 6to4
 * (`2002::/16`), and Teredo (`2001::/32`: its server and its client, both). The other forms under
 * `::/8` (IPv4-compatible, IPv4-translated) are not global unicast and are refused whatever they
 * carry, as is the NAT64 local-use prefix `64:ff9b:1::/48`.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
const NAT64 = ipaddr.IPv6.parse('64:ff9b::');

/** The IPv4 address in 32 bits of an IPv6 address's parts, from part `at`, optionally inverted (Teredo). */
function v4At(parts: number[], at: number, invert = false): IPv4 {
  const x = invert ? 0xffff : 0;
  const hi = parts[at] ^ x;
  const lo = parts[at + 1] ^ x;
  return new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
}

function globalV4(a: IPv4): boolean {
  return a.range() === 'unicast';
}

function globalV6(a: IPv6): boolean {
  const p = a.parts;
  switch (a.range()) {
    case 'ipv4Mapped':
      return globalV4(a.toIPv4Address());
    case 'rfc6052':
      // 64:ff9b::/96 reaches the IPv4 address in its last 32 bits; 64:ff9b:1::/48 is for local use.
      return a.match(NAT64, 96) && globalV4(v4At(p, 6));
    case '6to4':
      return globalV4(v4At(p, 1));
    case 'teredo':
      return globalV4(v4At(p, 2)) && globalV4(v4At(p, 6, true));
    case 'unicast':
      return a.match(GLOBAL_UNICAST_V6, 3);
    default:
      return false;
  }
}

/**
 * An IPv6 address with a dotted IPv4 tail written as two hex groups: ipaddr.js reads any dotted
 * tail as IPv4-mapped (`::8.8.8.8` as `::ffff:8.8.8.8`), where it is the address's last 32 bits.
 */
function hexTail(address: string): string {
  return address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/, (_all, a: string, b: string, c: string, d: string, zone?: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}${zone ?? ''}`);
}

/**
 * Whether an IP address (v4 or v6, as text, an IPv6 zone allowed) is globally routable unicast: the
 * only addresses a webhook goes to unless private ones are allowed. Anything that is not an
 * address (nor an IPv4 address in any form but four decimal parts) is not.
 */
export function isGlobalUnicast(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  let a: IPv4 | IPv6;
  try {
    a = family === 4 ? ipaddr.IPv4.parse(address) : ipaddr.IPv6.parse(hexTail(address));
  } catch {
    return false;
  }
  return a.kind() === 'ipv4' ? globalV4(a as IPv4) : globalV6(a as IPv6);
}

/**
 * Names that reach this machine or its network by definition, whatever DNS says (RFC 6761's
 * `localhost`, RFC 6762's `local`, the `localdomain` of /etc/hosts; a trailing dot too): refused
 * when written. Any other name is judged by the address it resolves to when a delivery is sent.
 */
const LOCAL_NAME = /(?:^|\.)(?:localhost|local|localdomain|home\.arpa|internal)\.?$/i;

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
  if (allowPrivate) return null;
  if (LOCAL_NAME.test(host) || (isIP(host) !== 0 && !isGlobalUnicast(host))) {
    return 'url points at a loopback or private address, or another that is not global unicast (allowed with LAUREL_WEBHOOKS_ALLOW_PRIVATE=1)';
  }
  return null;
}
