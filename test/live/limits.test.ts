/**
 * The bounds of a live updates socket (docs/live.md, "Limits"), against the real api and workers:
 * a client that stops reading is closed once more than LAUREL_LIVE_MAX_BACKPRESSURE waits for it,
 * while the others go on getting their messages; a silent client that answers the pings stays,
 * one that does not is closed after LAUREL_LIVE_IDLE_TIMEOUT.
 */
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { liveUrl, openLive, type LiveClient, type LiveMessage } from '../support/live-client.js';
import { publish } from '../../src/engine/live/topic-store.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';

/** A WebSocket opened by hand that reads nothing after the handshake (and answers no ping). */
async function rawSocket(port: number, path: string): Promise<{ socket: Socket; closed: Promise<void>; send(text: string): void }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n`
    + `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`);
  const head = await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
  expect(head.startsWith('HTTP/1.1 101')).toBe(true);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket, closed,
    send(text) {
      // A masked text frame (a client's frames must be masked), under 126 bytes.
      const payload = Buffer.from(text);
      const mask = randomBytes(4);
      const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))]);
      socket.write(frame);
    },
  };
}

const gauge = async (s: TestServer, name: string): Promise<number> => {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
};

describe('live updates socket limits', () => {
  /** The backpressure bound; no idle timeout within the test's time. */
  let s: TestServer;
  /** An idle timeout of 8 s. */
  let idle: TestServer;
  const open: LiveClient[] = [];

  beforeAll(async () => {
    s = await startTestServer({ env: { LAUREL_LIVE_MAX_BACKPRESSURE: '64kb' } });
    idle = await startTestServer({ env: { LAUREL_PREFIX: s.prefix, LAUREL_ADMIN_KEY: s.adminKey, LAUREL_LIVE_IDLE_TIMEOUT: '8' } });
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await idle?.close();
    await s?.close();
  });

  it('closes a client that stops reading once more than the limit waits for it; the others carry on', async () => {
    const port = Number(new URL(s.url).port);
    const slow = await rawSocket(port, `/v1/live?key=${s.adminKey}`);
    slow.send('{"subscribe":["user:hog"]}');
    const fast = await openLive(liveUrl(s.url, s.adminKey));
    open.push(fast);
    await fast.subscribe(['user:hog']);
    expect(await gauge(s, 'laurel_live_sockets')).toBe(2);
    slow.socket.pause();
    // 16 MB on the topic, far more than the kernel's buffers and the limit hold for a reader that stopped.
    const big = JSON.stringify({ filler: 'x'.repeat(64 * 1024) });
    const deps = s.api.services;
    for (let i = 0; i < 256; i++) await publish(deps, DEFAULT_TENANT, 'user:hog', [{ type: 'test.filler', data: big }]);
    // (A paused socket does not read the close: the server's count says it.)
    await expect.poll(() => gauge(s, 'laurel_live_sockets')).toBe(1);
    slow.socket.destroy();
    // The reader that keeps up got every message, in order.
    const got: LiveMessage[] = [];
    for (let i = 0; i < 256; i++) got.push(await fast.next((m) => m.type === 'test.filler'));
    expect(got.map((m) => m.seq)).toEqual(got.map((_, i) => got[0].seq! + i));
  });

  it('keeps a silent client that answers the pings, and closes one that does not', async () => {
    const port = Number(new URL(idle.url).port);
    const mute = await rawSocket(port, `/v1/live?key=${s.adminKey}`);
    const polite = await openLive(liveUrl(idle.url, s.adminKey));
    open.push(polite);
    await mute.closed;
    // undici answers the pings: still open, and still served.
    expect(polite.socket.readyState).toBe(polite.socket.OPEN);
    expect(await polite.subscribe(['user:pinged'])).toEqual({ 'user:pinged': expect.any(Number) });
  }, 40_000);
});
