/**
 * A ZADD written as one RESP string (src/redis/packed.ts) does what ioredis's own ZADD GT does, on
 * single Redis and on the Cluster (routed by its key's slot), for members of any text.
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { zaddGt } from '../../src/redis/packed.js';
import type { RedisClient } from '../../src/redis/client.js';

const clusterNodes = (inject('redisClusterNodes') ?? '').split(',').filter(Boolean).map((entry) => {
  const separator = entry.lastIndexOf(':');
  return { host: entry.slice(0, separator), port: Number(entry.slice(separator + 1)) };
});

const MEMBERS = ['["r","acme","u1"]', '["s","","é\\"ü"]', '["c","t","\\u0000 x","recap:2026-11-23"]', 'plain', '日本語'];

const targets: [string, () => RedisClient][] = [['single Redis', () => new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')]];
if (clusterNodes.length > 0) targets.push(['the Cluster', () => new Cluster(clusterNodes)]);

describe.each(targets)('zaddGt on %s', (_name, connect) => {
  const client = connect();
  const run = `test-packed-${process.pid}-${Date.now()}`;
  const keys = ['{a}', '{b}', '{c}'].map((tag) => `${run}:${tag}:ndue`);
  afterAll(async () => {
    for (const key of keys) await client.del(key);
    client.disconnect();
  });

  it('adds, raises and never lowers, as ZADD GT', async () => {
    for (const key of keys) {
      const pairs = MEMBERS.flatMap((m, i) => [1000 + i, m]);
      expect(await zaddGt(client, key, pairs)).toBe(MEMBERS.length);
      // Lower scores change nothing; a higher one moves its member; a new member is added.
      expect(await zaddGt(client, key, [1, MEMBERS[0], 5000, MEMBERS[1], 7, 'new'])).toBe(1);
      const read = await client.zrange(key, 0, -1, 'WITHSCORES');
      const scores = new Map<string, string>();
      for (let i = 0; i < read.length; i += 2) scores.set(read[i], read[i + 1]);
      expect(Object.fromEntries(scores)).toEqual({
        [MEMBERS[0]]: '1000', [MEMBERS[1]]: '5000', [MEMBERS[2]]: '1002', [MEMBERS[3]]: '1003', [MEMBERS[4]]: '1004', new: '7',
      });
    }
  });
});
