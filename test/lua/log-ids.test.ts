/**
 * Log entry ids are unique across the installation (lua/includes/logAdd.lua): partitions on
 * different primaries of a Cluster that append in the same microsecond give different ids, and a
 * partition's ids keep rising however its clock moves.
 */
import { Cluster, Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { arrivalInMs, compareStreamIds, partitionOfLogId } from '../../src/model/log.js';
import { defineScripts, loadScripts, LUA_DIR } from '../../src/redis/scripts.js';
import type { RedisClient } from '../../src/redis/client.js';

const clusterNodes = (inject('redisClusterNodes') ?? '').split(',').filter(Boolean).map((entry) => {
  const separator = entry.lastIndexOf(':');
  return { host: entry.slice(0, separator), port: Number(entry.slice(separator + 1)) };
});

/** logAdd as the scripts include it, called `ARGV[1]` times in one go: entries as close together as Redis makes them. */
const MANY = `${readFileSync(join(LUA_DIR, 'includes', 'logAdd.lua'), 'utf8')}
for i = 1, tonumber(ARGV[1]) do logAdd(KEYS[1], 'event', '{}') end
return redis.call('XLEN', KEYS[1])`;

/** Entries each partition appends per round; rounds at most, until entries of different primaries met. */
const PER_ROUND = 10_000;
const MAX_ROUNDS = 12;

/** A stream's ids after `after` ('' for all). */
async function idsOf(client: RedisClient, key: string, after = ''): Promise<string[]> {
  const ids: string[] = [];
  let from = after === '' ? '-' : `(${after}`;
  for (;;) {
    const page = await client.xrange(key, from, '+', 'COUNT', 10_000);
    for (const [id] of page) ids.push(id);
    if (page.length < 10_000) return ids;
    from = `(${page[page.length - 1][0]}`;
  }
}

/** An id without its partition: its ms and its microsecond (an id as logged before ids named the partition). */
function withoutPartition(id: string): string {
  const dash = id.indexOf('-');
  return `${id.slice(0, dash)}-${arrivalInMs(id.slice(dash + 1))}`;
}

describe.skipIf(clusterNodes.length === 0)('log entry ids on the Cluster', () => {
  const cluster = new Cluster(clusterNodes);
  defineScripts(cluster, loadScripts());
  const prefix = `tlogids${process.pid}${Date.now()}`;
  const logOf = (p: number) => `${prefix}:{p${p}}:log`;
  const written: string[] = [];
  afterAll(async () => {
    for (const key of written) await cluster.del(key);
    cluster.disconnect();
  });

  /** One partition per primary: the first whose slot another chosen one's primary does not hold. */
  async function partitionsOnEveryPrimary(): Promise<number[]> {
    await cluster.ping();
    const chosen = new Map<string, number>();
    for (let p = 0; chosen.size < 3 && p < 1000; p++) {
      const slot = Number(await cluster.call('CLUSTER', 'KEYSLOT', logOf(p)));
      const owner = cluster.slots[slot]?.[0];
      if (owner !== undefined && !chosen.has(owner)) chosen.set(owner, p);
    }
    expect(chosen.size).toBe(3);
    return [...chosen.values()];
  }

  it('gives no two entries one id when partitions on every primary append at the same instants', async () => {
    const partitions = await partitionsOnEveryPrimary();
    written.push(...partitions.map(logOf));
    const seen = new Set<string>();
    const instants = new Map<string, number>();
    const last = new Map(partitions.map((p) => [p, '']));
    let entries = 0;
    let met = 0;
    // Rounds until the primaries' entries met in one microsecond (a 2-core machine that runs one
    // node at a time gives them none), a few of them at most.
    for (let round = 0; round < MAX_ROUNDS && (met === 0 || round < 2); round++) {
      await Promise.all(partitions.map((p) => cluster.eval(MANY, 1, logOf(p), String(PER_ROUND))));
      for (const p of partitions) {
        const ids = await idsOf(cluster, logOf(p), last.get(p));
        expect(ids).toHaveLength(PER_ROUND);
        last.set(p, ids[ids.length - 1]);
        entries += ids.length;
        for (const id of ids) {
          seen.add(id);
          expect(partitionOfLogId(id)).toBe(p);
          const instant = withoutPartition(id);
          const n = (instants.get(instant) ?? 0) + 1;
          instants.set(instant, n);
          if (n === 2) met++;
        }
      }
    }
    expect(met).toBeGreaterThan(0);
    expect(seen.size).toBe(entries);
  });

  it('logs through the scripts under ids that name the partition', async () => {
    const partitions = await partitionsOnEveryPrimary();
    written.push(...partitions.map(logOf));
    const ids = await Promise.all(partitions.map((p) => cluster.logAppend(logOf(p), 'finalised', '{"t":"x"}')));
    expect(ids.map((id) => partitionOfLogId(id))).toEqual(partitions);
  });
});

describe('log entry ids on single Redis', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  defineScripts(redis, loadScripts());
  const prefix = `tlogids${process.pid}${Date.now()}`;
  const log = `${prefix}:{p4321}:log`;
  afterAll(async () => {
    await redis.del(log);
    redis.disconnect();
  });

  it('goes on after the log\'s last id when the clock is behind it, trimmed and written before ids named the partition', async () => {
    const ahead = Date.now() + 60_000;
    await redis.xadd(log, `${ahead}-7`, 'event', '{}');
    await redis.xtrim(log, 'MAXLEN', 0);
    const first = await redis.logAppend(log, 'event', '{}');
    expect(first).toBe(`${ahead}-100004321`);
    const second = await redis.logAppend(log, 'event', '{}');
    expect(second).toBe(`${ahead}-100104321`);
    expect(compareStreamIds(first, second)).toBe(-1);
    expect(partitionOfLogId(second)).toBe(4321);
  });
});
