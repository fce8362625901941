/**
 * Live updates across api processes as `npm start` runs them (test/support/api-processes.ts: the
 * default number of processes on one port, the kernel spreading connections over them), the
 * workers in this process: sockets on any of them are sent what events answered by any of them
 * caused, each message once and in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { liveUrl, openLive, type LiveClient } from '../support/live-client.js';

describe('live updates across api processes', () => {
  let s: TestServer;
  const open: LiveClient[] = [];

  beforeAll(async () => {
    s = await startTestServer({ processes: true, workers: true });
    await s.metrics('lessons');
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: (await s.request('GET', '/admin/v1/metrics')).body[0].id, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await s?.close();
  });

  it('sends every socket, on whichever process, each change once and in order, whichever process answered the event', async () => {
    // Sixteen sockets and eight events, each on a connection of its own: with two processes or
    // more, all the sockets on one process has a chance of 2^-15.
    for (let i = 0; i < 16; i++) {
      const c = await openLive(liveUrl(s.url, s.adminKey));
      open.push(c);
      await c.subscribe(['user:ann']);
    }
    for (let i = 1; i <= 8; i++) await s.event('lessons', 'ann', 1);
    for (const c of open) {
      const totals: number[] = [];
      for (let i = 1; i <= 8; i++) totals.push((await c.next((m) => m.type === 'points.changed')).data.points.total);
      expect(totals).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
    }
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(Number(/^laurel_live_sockets (\S+)$/m.exec(text)?.[1])).toBe(16);
    // More than one process holds the topic: each subscribed to it once.
    expect(Number(/^laurel_live_topics (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(1);
  });
});
