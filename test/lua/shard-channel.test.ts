/**
 * The channels on which laurel's processes tell each other (src/redis/client.ts `subscribe` and
 * `announce`: the topics an api process takes up, configuration changes, erasures): a message
 * reaches the subscriber before its sender has the answer, on a single Redis and on a Cluster,
 * whichever primary holds the channel's slot, so that what the answer lets happen next (a
 * `subscribed`, then an event) never comes first. On a Cluster, the subscriber follows the slot to
 * its new owner when it moves.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import keySlot from 'cluster-key-slot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announce, closeClient, createClient, subscribe, type RedisClient, type Subscription } from '../../src/redis/client.js';
import { loadSettings } from '../../src/lib/settings.js';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';

/** A subscriber of `channel` and what it heard. */
async function follow(client: RedisClient, channel: string) {
  const heard: string[] = [];
  let resubscribed = 0;
  const sub: Subscription = await subscribe(client, channel, {
    message: (text) => heard.push(text),
    error: () => undefined,
    resubscribed: () => { resubscribed++; },
  });
  return { heard, sub, get resubscribed() { return resubscribed; } };
}

/** Channels whose slots fall on every primary of a Cluster (and any Redis). */
const channels = (tag: string) => Array.from({ length: 8 }, (_, i) => `t${tag}:{ch-${i}}:say`);

describe.each(['redis', 'cluster'] as const)('a shard channel on %s', (target) => {
  let cluster: RedisClusterHandle | null = null;
  let client: RedisClient;
  const tag = randomBytes(4).toString('hex');

  beforeAll(async () => {
    if (target === 'cluster') cluster = await startRedisCluster();
    const env = cluster === null ? process.env : { ...process.env, REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',') };
    client = createClient(loadSettings(env));
  }, 60_000);
  afterAll(async () => {
    if (client) await closeClient(client);
    await cluster?.stop();
  });

  it('hands each message to the subscriber before its sender has the answer', async () => {
    for (const channel of channels(tag)) {
      const f = await follow(client, channel);
      try {
        // SPUBLISH answers the subscribers of the node that had it before it answered.
        expect(await announce(client, channel, 'one')).toBe(1);
        expect(await announce(client, channel, 'two')).toBe(1);
        await expect.poll(() => f.heard).toEqual(['one', 'two']);
      } finally {
        f.sub.close();
      }
    }
  });

  it.runIf(target === 'cluster')('follows the slot to the primary it moves to', async () => {
    const c = client as Cluster;
    const channel = channels(tag)[0];
    const slot = keySlot(channel);
    const f = await follow(client, channel);
    try {
      // Every primary, its id, and the one that owns the slot.
      const primaries = await Promise.all(cluster!.nodes.map(async (n) => {
        const r = new Redis({ host: n.host, port: n.port, lazyConnect: true });
        await r.connect();
        return { r, id: String(await r.call('CLUSTER', 'MYID')), key: `${n.host}:${n.port}` };
      }));
      try {
        const owner = c.slots[slot][0];
        const to = primaries.find((p) => p.key !== owner)!;
        const from = primaries.find((p) => p.key === owner)!;
        // The slot holds no key: it moves by assignment alone (the new owner first, then the old, then the rest).
        for (const p of [to, from, ...primaries.filter((x) => x !== to && x !== from)]) await p.r.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', to.id);
        // The old owner unsubscribed it; it subscribes again at the new one.
        await expect.poll(() => f.resubscribed, { timeout: 10_000 }).toBe(1);
        expect(await announce(client, channel, 'moved')).toBe(1);
        await expect.poll(() => f.heard).toEqual(['moved']);
      } finally {
        for (const p of primaries) p.r.disconnect();
      }
    } finally {
      f.sub.close();
    }
  });
});
