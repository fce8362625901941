/**
 * The webhook POST (src/engine/webhooks/post.ts) against real HTTP servers on loopback: private
 * and loopback addresses refused unless allowed, whether written in the URL or resolved from a
 * name; the answer's status; connections kept open for deliveries one after another; a
 * receiver that does not answer in time.
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

  it('gives up on a receiver that does not answer in time', async () => {
    await expect(postWebhook(`http://127.0.0.1:${port}/slow`, '{}', {}, 200, true)).rejects.toThrow('no answer within 0.2 s');
  });
});
