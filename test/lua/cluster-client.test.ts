/**
 * The request path's Cluster client (createClient with failFast: no offline queue) takes commands
 * sent together to every primary from its first request on. ioredis makes a node's connection at
 * the node's first command and, without an offline queue, refuses the commands that reach the
 * node while that connection is being made ("Connection is closed."): a fresh api process's first
 * event, whose placements went to two boards on one node at once, answered without its
 * leaderboards. connectNodes makes them all before the process serves.
 */
import { Cluster } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { closeClient, connectNodes, createClient, type RedisClient } from '../../src/redis/client.js';
import { loadSettings } from '../../src/lib/settings.js';

const nodes = inject('redisClusterNodes') ?? '';
const settings = loadSettings({ ...process.env, REDIS_CLUSTER_NODES: nodes });

/** GETs of keys in 64 hash slots (every primary's), sent together: how many were refused. */
async function refusedOfBurst(client: RedisClient): Promise<string[]> {
  const answers = await Promise.allSettled(Array.from({ length: 64 }, (_, i) => client.get(`{burst-${i}}:none`)));
  return answers.flatMap((a) => (a.status === 'rejected' ? [String(a.reason)] : []));
}

describe.skipIf(nodes === '')('the fail-fast Cluster client', () => {
  let client: RedisClient | null = null;
  afterEach(async () => { if (client) await closeClient(client); client = null; });

  it('refuses commands for a node whose first connection is being made, without connectNodes', async () => {
    client = createClient(settings, { failFast: true });
    await client.connect();
    const refused = await refusedOfBurst(client);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatch(/Connection is closed/);
  });

  it('takes every command of a burst to every primary once connectNodes has run', async () => {
    client = createClient(settings, { failFast: true });
    await client.connect();
    await connectNodes(client);
    expect(client instanceof Cluster && client.nodes('master').every((n) => n.status === 'ready')).toBe(true);
    expect(await refusedOfBurst(client)).toEqual([]);
  });
});
