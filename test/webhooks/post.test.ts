/**
 * The webhook POST (src/engine/webhooks/post.ts) against real HTTP servers on loopback: addresses
 * that are not global unicast refused unless allowed (every form: test/unit/webhook-addresses.test.ts), whether written in the URL or resolved from a
 * name; the answer's status (after a 1xx, of a chunked body read through); connections kept open
 * for deliveries one after another; a receiver that does not answer in time, or trickles its
 * answer past the deadline (the whole exchange is bounded), and the pool serving on after it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressRefused, postWebhook } from '../../src/engine/webhooks/post.js';

describe('a webhook POST', () => {
  let server: Server;
  let port: number;
  const connections = new Set<unknown>();
  const bodies: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => {
        bodies.push(body);
        if (req.url === '/slow') return; // never answers
        if (req.url === '/trickle') {
          // The status at once, then a chunk of body every 50 ms, never ending.
          res.writeHead(200, { 'content-type': 'text/plain' });
          const t = setInterval(() => res.write('.'), 50);
          res.on('close', () => clearInterval(t));
          return;
        }
        if (req.url === '/chunked') {
          res.writeProcessing();
          res.writeHead(202, { 'content-type': 'text/plain' });
          res.write('accepted, ');
          setTimeout(() => res.end('thanks'), 20);
          return;
        }
        res.statusCode = req.url === '/gone' ? 410 : 204;
        res.end();
      });
    });
    server.on('connection', (socket) => connections.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses loopback addresses unless allowed, in the URL or behind a name', async () => {
    await expect(postWebhook(`http://127.0.0.1:${port}/`, '{}', {}, 1000, false)).rejects.toThrow(AddressRefused);
    await expect(postWebhook(`http://localhost:${port}/`, '{}', {}, 1000, false)).rejects.toThrow(/private address/);
    await expect(postWebhook(`http://[::1]:${port}/`, '{}', {}, 1000, false)).rejects.toThrow(AddressRefused);
    // IPv4 inside IPv6 reaches the IPv4 address: mapped (the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1), in full.
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]']) {
      await expect(postWebhook(`http://${host}:${port}/`, '{}', {}, 1000, false), host).rejects.toThrow(AddressRefused);
    }
    expect(bodies).toEqual([]);
  });

  it('answers the status, and sends one after another over connections kept open', async () => {
    const before = connections.size;
    expect(await postWebhook(`http://127.0.0.1:${port}/a`, '{"n":1}', { 'content-type': 'application/json' }, 1000, true)).toEqual({ status: 204 });
    expect(await postWebhook(`http://127.0.0.1:${port}/gone`, '{"n":2}', {}, 1000, true)).toEqual({ status: 410 });
    expect(await postWebhook(`http://localhost:${port}/a`, '{"n":3}', {}, 1000, true)).toEqual({ status: 204 });
    expect(bodies.slice(-3)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    for (let n = 4; n <= 12; n++) expect(await postWebhook(`http://127.0.0.1:${port}/a`, `{"n":${n}}`, {}, 1000, true)).toEqual({ status: 204 });
    // A connection per delivery would be 12; the pool may open a second while the first is released.
    expect(connections.size - before).toBeLessThanOrEqual(4);
  });

  it('answers the final status after a 1xx, the chunked body read through and the connection kept', async () => {
    const before = connections.size;
    for (let n = 0; n < 6; n++) expect(await postWebhook(`http://127.0.0.1:${port}/chunked`, '{}', {}, 1000, true)).toEqual({ status: 202 });
    expect(connections.size - before).toBeLessThanOrEqual(2);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    await expect(postWebhook(`http://127.0.0.1:${port}/slow`, '{}', {}, 200, true)).rejects.toThrow('no answer within 0.2 s');
  });

  it('bounds the whole exchange: a receiver trickling its answer is given up on, and the pool serves on', async () => {
    const started = Date.now();
    await expect(postWebhook(`http://127.0.0.1:${port}/trickle`, '{}', {}, 400, true)).rejects.toThrow('no answer within 0.4 s');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await postWebhook(`http://127.0.0.1:${port}/a`, '{"after":1}', {}, 1000, true)).toEqual({ status: 204 });
  });
});
