/**
 * laurel's live updates client (src/client/live.ts, docs/live.md) in Node.js with undici's
 * WebSocket, against the real api and workers behind a TCP proxy that cuts every connection: it
 * reconnects by itself, resumes each topic with `since`, and its handlers get every change once
 * and in order, none missed while it was away; a refused topic reaches onError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'undici';
import { LiveClient, type LiveError, type LiveMessage, type SocketClass } from '../../src/client/live.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

describe('the live updates client', () => {
  let s: TestServer;
  let proxy: TcpProxy;
  const clients: LiveClient[] = [];

  beforeAll(async () => {
    s = await startTestServer({ workers: true });
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s.url).port) });
    const lessons = (await s.metrics('lessons')).lessons;
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await proxy?.close();
    await s?.close();
  });

  it('reconnects after the connection is cut, resumes with since, and hands over every change once and in order', async () => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'kim' }] });
    const states: string[] = [];
    const client = new LiveClient({
      url: `ws://127.0.0.1:${proxy.port}/v1/live`, key: r.body.created[0].key, WebSocket: WebSocket as unknown as SocketClass,
      minDelayMs: 50, maxDelayMs: 200, onState: (st) => states.push(st),
    });
    clients.push(client);
    const got: LiveMessage[] = [];
    client.subscribe('user:kim', (m) => got.push(m));
    await expect.poll(() => client.lastSeq('user:kim')).toBeGreaterThan(0);
    await s.event('lessons', 'kim', 1);
    await expect.poll(() => got.filter((m) => m.type === 'points.changed').length).toBe(1);

    // Cut: the client waits and tries again; meanwhile three events.
    await proxy.cut();
    await expect.poll(() => client.state).toBe('waiting');
    for (let i = 0; i < 3; i++) await s.event('lessons', 'kim', 1);
    await proxy.restore();
    await expect.poll(() => got.filter((m) => m.type === 'points.changed').length).toBe(4);
    await s.event('lessons', 'kim', 1);
    await expect.poll(() => got.filter((m) => m.type === 'points.changed').length).toBe(5);
    expect(got.filter((m) => m.type === 'points.changed').map((m) => m.data.points.total)).toEqual([10, 20, 30, 40, 50]);
    expect(got.some((m) => m.type === 'resync')).toBe(false);
    const seqs = got.map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(states).toEqual(expect.arrayContaining(['connecting', 'open', 'waiting']));
    expect(states.filter((x) => x === 'open').length).toBeGreaterThanOrEqual(2);
  });

  it('hands a refused topic to onError, and follows the others', async () => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'lee' }] });
    const errors: LiveError[] = [];
    const client = new LiveClient({
      url: `${s.url.replace('http', 'ws')}/v1/live`, key: r.body.created[0].key, WebSocket: WebSocket as unknown as SocketClass, onError: (e) => errors.push(e),
    });
    clients.push(client);
    const got: LiveMessage[] = [];
    client.subscribe('user:other', () => undefined);
    client.subscribe('user:lee', (m) => got.push(m));
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toMatchObject({ code: 'wrong_user', status: 403, topic: 'user:other' });
    await expect.poll(() => client.lastSeq('user:lee')).toBeGreaterThan(0);
    await s.event('lessons', 'lee', 1);
    await expect.poll(() => got.map((m) => m.type)).toContain('points.changed');
    const stop = client.subscribe('user:lee', () => undefined);
    stop();
    expect(client.lastSeq('user:lee')).toBeGreaterThan(0);
  });

  it('subscribes 100 topics of the longest user ids, and again with since after a cut, in messages the server takes', async () => {
    // 253 emoji and a number: 1,000 bytes of UTF-8 a topic, 100 of them past the 64 KiB a client's message may have.
    const ids = Array.from({ length: 100 }, (_, i) => `${'\u{1F600}'.repeat(253)}${String(i).padStart(2, '0')}`);
    const client = new LiveClient({
      url: `ws://127.0.0.1:${proxy.port}/v1/live`, key: s.adminKey, WebSocket: WebSocket as unknown as SocketClass, minDelayMs: 50, maxDelayMs: 200,
    });
    clients.push(client);
    const got: LiveMessage[] = [];
    for (const id of ids) client.subscribe(`user:${id}`, (m) => got.push(m));
    const last = `user:${ids[99]}`;
    await expect.poll(() => ids.every((id) => (client.lastSeq(`user:${id}`) ?? 0) > 0)).toBe(true);
    await s.event('lessons', ids[99], 1);
    await expect.poll(() => got.filter((m) => m.type === 'points.changed').length).toBe(1);
    await proxy.cut();
    await expect.poll(() => client.state).toBe('waiting');
    await s.event('lessons', ids[99], 1);
    await proxy.restore();
    await expect.poll(() => got.filter((m) => m.type === 'points.changed').map((m) => m.data.points.total)).toEqual([10, 20]);
    expect(got.every((m) => m.topic === last && m.type !== 'resync')).toBe(true);
  });
});
