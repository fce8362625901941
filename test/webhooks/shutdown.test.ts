/**
 * A worker process stopped while it sends a webhook outbox row (16 in flight, held by the receiver
 * until the stop is asked for): the deliveries in flight finish
 * and are written down, those it had claimed and not started are given back at once, and another
 * process sends only those. Each event reaches the receiver once, under one webhook-id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreate } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

describe('a worker process stopped while it sends webhooks', () => {
  let s: TestServer;
  let receiver: Server;
  let url: string;
  const received: string[] = [];
  const held: (() => void)[] = [];
  let answering: NodeJS.Timeout | undefined;
  const answerHeld = () => { for (const answer of held.splice(0)) answer(); };

  beforeAll(async () => {
    // Answers are held until `answering` starts; then what is held is answered every 300 ms: the
    // process is stopped with the first deliveries in flight and the rest waiting.
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        held.push(() => res.writeHead(204).end());
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    s = await startTestServer({ env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
  });
  afterAll(async () => {
    clearInterval(answering);
    await s?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('gives back what it had not started, and nothing is sent twice', async () => {
    const ids = await s.metrics('lessons');
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'First', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 } as never]);
    const hook = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Slow', url, events: ['achievement.completed'] }] });
    expect(hook.status, hook.text).toBe(201);
    const endpoint = hook.body.created[0].id as string;
    const users = Array.from({ length: 40 }, (_, n) => `u${n}`);
    for (const u of users) await s.event('lessons', u, 1);

    const first = await startWorkers(s.settings, createLogger('silent'));
    await first.testing.drainNow();
    // Its own pass (each second) starts sending: 16 in flight, none answered. Stopped, then answered.
    await eventually(() => expect(received).toHaveLength(16));
    const closing = first.close();
    answering = setInterval(answerHeld, 300);
    await closing;
    const sentByFirst = received.length;
    expect(sentByFirst).toBeLessThan(users.length);
    const written = (await s.request('GET', `/admin/v1/webhooks/${endpoint}/deliveries?limit=100`)).body as { status: string }[];
    expect(written.map((d) => d.status)).toEqual(Array(sentByFirst).fill('delivered'));

    // Another process sends the rest at once (not after a lease), each once.
    const second = await startWorkers(s.settings, createLogger('silent'));
    try {
      await second.testing.webhooksNow();
      await eventually(() => expect(received).toHaveLength(users.length));
    } finally {
      await second.close();
    }
    expect(new Set(received).size).toBe(users.length);
    const all = (await s.request('GET', `/admin/v1/webhooks/${endpoint}/deliveries?limit=100`)).body as { status: string; attempts: number }[];
    expect(all.map((d) => [d.status, d.attempts])).toEqual(Array(users.length).fill(['delivered', 1]));
  });
});
