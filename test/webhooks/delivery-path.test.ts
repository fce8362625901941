/**
 * The path from a drained log entry to the POST (src/engine/webhooks/queue.ts, send.ts), on a single
 * Redis and on a real 3-primary Redis Cluster (every queue script on its endpoint's slot):
 * - the deliveries of a drain made again are queued once (the queue's marks), and each endpoint's
 *   queue takes only its own;
 * - a worker process killed (SIGKILL) mid-send, with deliveries recorded, in flight unanswered,
 *   claimed and not started, and not claimed yet: once its claims run out (their idle time set past
 *   the lease, as 135 s would), another process sends every delivery not recorded, none recorded
 *   (one whose record was written just before the kill is taken out of its queue unsent), and the
 *   receiver sees an event twice only for the POSTs in flight at the kill, under one webhook-id;
 *   every delivery is listed once, delivered.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { enqueue, GROUP, unpackDelivery, type QueuedDelivery } from '../../src/engine/webhooks/queue.js';
import { IN_FLIGHT, LEASE_MS } from '../../src/engine/webhooks/send.js';
import { webhookDeliveryId } from '../../src/postgres/webhooks/deliveries.js';
import { inTransaction, recordFirstAttempts } from '../../src/postgres/webhooks/sent.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreate } from '../support/admin.js';
import { killCliProcesses, runCli } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { clusterNodes, deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const log = createLogger('silent');

describe.each(targets())('webhook deliveries from the log (%s)', (target) => {
  let s: TestServer | undefined;
  let receiver: Server | undefined;
  afterAll(async () => {
    killCliProcesses();
    await s?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('queues a drain made again once, each endpoint its own', async () => {
    const t = await startTestServer({ target, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    try {
      const { redis, keys } = t.api.services;
      const delivery = (endpointId: string, partition: number, ms: number, type: string): QueuedDelivery => ({
        endpointId, partition, entryId: `${ms}-1000${String(partition).padStart(5, '0')}`, eventId: `msg_${endpointId}_${ms}_${type}`, type,
        tenant: '', userId: `u${ms}`, created: ms, body: JSON.stringify({ type, ms }),
      });
      // Two endpoints (two slots), entries of three partitions, two deliveries for one entry.
      const pass = [
        delivery('ea', 3, 1000, 'achievement.completed'), delivery('ea', 3, 1000, 'streak.started'), delivery('ea', 3, 1001, 'streak.started'),
        delivery('ea', 200, 1000, 'streak.started'), delivery('eb', 3, 1000, 'streak.started'), delivery('eb', 77, 1002, 'streak.started'),
      ];
      expect(await enqueue(t.api.services, pass)).toBe(6);
      // The same pass again (its archive went to another drainer first), and a later one overlapping it.
      expect(await enqueue(t.api.services, pass)).toBe(0);
      expect(await enqueue(t.api.services, [...pass.slice(2), delivery('ea', 3, 1003, 'streak.started')])).toBe(1);
      const ids = async (endpoint: string) => ((await redis.xrange(keys.webhookQueue(endpoint).queue, '-', '+')) as [string, string[]][])
        .map(([id, f]) => unpackDelivery(id, f[1]).eventId);
      expect(await ids('ea')).toEqual([...pass.slice(0, 4), delivery('ea', 3, 1003, 'streak.started')].map((d) => d.eventId));
      expect(await ids('eb')).toEqual(pass.slice(4).map((d) => d.eventId));
      expect((await redis.smembers(keys.webhookQueues)).sort()).toEqual(['ea', 'eb']);
      // Each queue has the senders' consumer group, made with it.
      const groups = await redis.xinfo('GROUPS', keys.webhookQueue('eb').queue) as unknown[][];
      expect(groups.map((g) => g[g.indexOf('name') + 1])).toEqual([GROUP]);
    } finally {
      await t.close();
    }
  });

  it('loses nothing when a worker process is killed mid-send, and sends again only what was in flight', { timeout: 120_000 }, async () => {
    // Answers the first 24 POSTs at once, then holds every answer (the worker is killed meanwhile);
    // once `answering`, answers everything.
    const received: string[] = [];
    const held: ServerResponse[] = [];
    let answering = false;
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        if (answering || received.length <= 24) res.writeHead(204).end();
        else held.push(res);
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    s = await startTestServer({ target, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    const { redis, keys, settings } = s.api.services;
    const ids = await s.metrics('lessons');
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'First', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 } as never]);
    const hook = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Killed', url, events: ['achievement.completed'] }] });
    expect(hook.status, hook.text).toBe(201);
    const endpoint = hook.body.created[0].id as string;
    const users = Array.from({ length: 300 }, (_, n) => `k${n}`);
    for (const u of users) await s.event('lessons', u, 1);

    // A workers process drains and sends: 24 answered (and recorded), then 16 in flight unanswered,
    // the rest claimed or waiting in the queue. Killed there.
    type Listed = { id: string; webhookId: string; status: string; attempts: number };
    const list = async () => {
      const all: Listed[] = [];
      for (let skip = 0; ; skip += 100) {
        const page = (await s!.request('GET', `/admin/v1/webhooks/${endpoint}/deliveries?limit=100&skip=${skip}`)).body as Listed[];
        all.push(...page);
        if (page.length < 100) return all;
      }
    };
    const first = runCli(['workers'], {
      LAUREL_PREFIX: s.prefix, LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1', REDIS_CLUSTER_NODES: target === 'cluster' ? clusterNodes() : '', LOG_LEVEL: 'warn',
    });
    const queue = keys.webhookQueue(endpoint).queue;
    await eventually(async () => {
      expect(received.length).toBe(24 + IN_FLIGHT);
      expect(await list()).toHaveLength(24);
      // Recorded, and taken out of the queue.
      expect(await redis.xlen(queue)).toBe(users.length - 24);
    }, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    for (const res of held.splice(0)) res.destroy();
    const inFlightAtKill = new Set(received.slice(24));
    expect(inFlightAtKill.size).toBe(IN_FLIGHT);

    // Its claims: the 16 in flight and what it claimed ahead, none taken out of the queue.
    const pending = await redis.call('XPENDING', queue, GROUP, '-', '+', 1000) as [string, string, number, number][];
    expect(pending.length).toBeGreaterThan(IN_FLIGHT);
    // One of its claims not started was recorded just before the kill (recorded, not yet taken out).
    const started = new Set(received);
    const entries = await redis.xrange(queue, '-', '+') as [string, string[]][];
    const claimed = new Set(pending.map(([id]) => id));
    const [recordedId, recordedFields] = entries.find(([id, f]) => claimed.has(id) && !started.has(unpackDelivery(id, f[1]).eventId))!;
    const recorded = unpackDelivery(recordedId, recordedFields[1]);
    const recordedEvent = recorded.eventId;
    const pool = await connectPostgres(s.settings);
    try {
      await inTransaction(pool, (client) => recordFirstAttempts(client, settings.prefix, [{
        delivery: {
          id: webhookDeliveryId(endpoint, recordedEvent), endpointId: endpoint, eventId: recordedEvent, type: 'achievement.completed', tenant: '',
          userId: recorded.userId, body: recorded.body, status: 'sending',
          dueAt: Date.now(), attempts: 0, lastStatus: null, error: null, createdAt: Date.now(), deliveredAt: null,
        },
        status: 'delivered', lastStatus: 204, error: null, at: Date.now(),
      }]));
    } finally {
      await pool.end();
    }
    // 135 s pass for its claims (their idle time set past the lease).
    const consumer = pending[0][1];
    await redis.call('XCLAIM', queue, GROUP, consumer, 0, ...pending.map(([id]) => id), 'IDLE', LEASE_MS + 1, 'JUSTID');

    // Another process sends the rest.
    answering = true;
    const second = await startWorkers(s.settings, log, s.api.services);
    try {
      await eventually(async () => {
        await second.testing.webhooksNow();
        expect(await redis.xlen(queue)).toBe(0);
      }, 60_000);
    } finally {
      await second.close();
    }
    // Every event reached the receiver; twice only those in flight at the kill; the recorded one never.
    const counts = new Map<string, number>();
    for (const id of received) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(counts.size).toBe(users.length - 1);
    expect(counts.has(recordedEvent)).toBe(false);
    const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    expect(twice.length).toBeLessThanOrEqual(IN_FLIGHT);
    expect(twice.every((id) => inFlightAtKill.has(id))).toBe(true);
    expect([...counts.values()].every((n) => n <= 2)).toBe(true);
    // Listed once each, delivered; the queue holds no claim.
    const all = await list();
    expect(all).toHaveLength(users.length);
    expect(new Set(all.map((d) => d.webhookId)).size).toBe(users.length);
    expect(all.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    expect((await redis.call('XPENDING', queue, GROUP) as [number])[0]).toBe(0);
    expect(recordedId).toBeDefined();
  });
});
