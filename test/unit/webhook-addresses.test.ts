/**
 * Where a webhook may go (src/engine/webhooks/addresses.ts): global unicast only, from the IANA
 * special-purpose registries as ipaddr.js carries them, in IPv4, IPv6 and every IPv6 form that
 * carries an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo).
 */
import { describe, expect, it } from 'vitest';
import { isGlobalUnicast, urlProblem } from '../../src/engine/webhooks/addresses.js';

/** A Teredo address: its server, and its client (stored inverted), both IPv4. */
function teredo(server: string, client: string): string {
  const hex = (a: string, invert: boolean) => {
    const [b0, b1, b2, b3] = a.split('.').map((n) => Number(n) ^ (invert ? 255 : 0));
    return `${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  };
  return `2001:0:${hex(server, false)}:8000:63bf:${hex(client, true)}`;
}

const refusedV4 = [
  '0.0.0.0', '0.1.2.3', '10.1.2.3', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.0.9', '169.254.169.254',
  '172.16.0.1', '172.31.255.255', '192.0.0.1', '192.0.0.9', '192.0.0.170', '192.0.2.2', '192.0.2.255', '192.31.196.1',
  '192.52.193.1', '192.88.99.1', '192.168.1.1', '192.175.48.1', '198.18.0.1', '198.19.255.255', '198.51.100.7',
  '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
];
const publicV4 = [
  '8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.0.1.1',
  '192.0.3.1', '192.169.0.1', '198.17.255.255', '198.20.0.1', '198.51.101.1', '203.0.114.1', '223.255.255.254',
];

const refusedV6 = [
  '::', '::1', '0:0:0:0:0:0:0:1',
  // IPv4-mapped, written either way, carrying a refused IPv4 address.
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a00:1', '::ffff:169.254.169.254', '::ffff:192.0.2.2', '::ffff:c000:202',
  '::ffff:198.18.0.1', '::ffff:192.0.0.1', '0:0:0:0:0:ffff:127.0.0.1',
  // IPv4-compatible and IPv4-translated (::/8): not global unicast whatever they carry.
  '::7f00:1', '::8.8.8.8', '::ffff:0:808:808', '::ffff:0:127.0.0.1',
  // NAT64 carrying a refused address, and the local-use NAT64 prefix.
  '64:ff9b::a9fe:a9fe', '64:ff9b::c000:202', '64:ff9b::10.0.0.1', '64:ff9b:1::808:808',
  // 6to4 carrying a refused address.
  '2002:7f00:1::', '2002:c000:202::1', '2002:c612:1::1', '2002:a00:1::1',
  // Teredo with a refused server or client.
  teredo('10.0.0.1', '8.8.8.8'), teredo('8.8.4.4', '192.0.2.45'), teredo('8.8.4.4', '127.0.0.1'), teredo('198.18.0.1', '1.1.1.1'),
  // Unique local, link-local (with a zone), site-local, multicast.
  'fc00::1', 'fd00::1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'ff02::1', 'ff0e::1',
  // Documentation, benchmarking, ORCHID, IETF protocol assignments, AS112, discard, outside 2000::/3.
  '2001:db8::1', '2001:db8:ffff::1', '3fff::1', '2001:2::1', '2001:10::1', '2001:20::1', '2001:1::1', '2620:4f:8000::1',
  '100::1', '4000::1', '5f00::1', 'e000::1',
];
const publicV6 = [
  '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888', '::ffff:8.8.8.8', '::ffff:808:808',
  '64:ff9b::808:808', '64:ff9b::8.8.8.8', '2002:808:808::1', teredo('8.8.4.4', '1.1.1.1'),
];

describe('a webhook address', () => {
  it('refuses every IPv4 special-purpose range, 192.0.2.0/24, 198.18.0.0/15 and 192.0.0.0/24 among them', () => {
    for (const a of refusedV4) expect(isGlobalUnicast(a), a).toBe(false);
  });

  it('takes global unicast IPv4, next to the refused ranges', () => {
    for (const a of publicV4) expect(isGlobalUnicast(a), a).toBe(true);
  });

  it('refuses IPv6 outside global unicast, and every embedding of a refused IPv4 address', () => {
    for (const a of refusedV6) expect(isGlobalUnicast(a), a).toBe(false);
  });

  it('takes global unicast IPv6, and embeddings of a global IPv4 address that reach it', () => {
    for (const a of publicV6) expect(isGlobalUnicast(a), a).toBe(true);
  });

  it('takes nothing that is not an address in its usual form', () => {
    for (const a of ['', 'example.com', 'localhost', '1.2.3', '0x7f.1', '256.1.1.1', '::g', '1.2.3.4.5']) {
      expect(isGlobalUnicast(a), a).toBe(false);
    }
  });

  it('judges a URL by the address it names, in any form the URL parser accepts', () => {
    const refused = /not global unicast/;
    for (const url of ['http://192.0.2.2/', 'http://198.18.0.1:8080/x', 'http://192.0.0.8/', 'https://[::ffff:127.0.0.1]:4091/',
      'http://[::ffff:192.0.2.2]/', 'http://[64:ff9b::c000:202]/', 'http://[2002:c000:202::1]/', 'http://[2001:db8::1]/',
      'http://0x7f000001/', 'http://127.1/', 'http://3221225986/', 'http://localhost/', 'http://a.localhost/',
      'http://LOCALHOST./', 'http://localhost.localdomain/', 'http://printer.local/', 'http://nas.home.arpa/', 'http://db.internal/',
      `http://[${teredo('8.8.4.4', '192.0.2.45')}]/`]) {
      expect(urlProblem(url, false), url).toMatch(refused);
      expect(urlProblem(url, true), url).toBeNull();
    }
    for (const url of ['https://example.com/hook', 'https://localhost-hooks.example.com/', 'https://local.example.com/', 'http://8.8.8.8/', 'http://[2606:4700:4700::1111]/', 'http://[::ffff:8.8.8.8]/']) {
      expect(urlProblem(url, false), url).toBeNull();
    }
    expect(urlProblem('ftp://example.com/', false)).toMatch(/http or https/);
    expect(urlProblem('http://u:p@example.com/', false)).toMatch(/credentials/);
    expect(urlProblem('not a url', false)).toMatch(/absolute URL/);
  });
});
