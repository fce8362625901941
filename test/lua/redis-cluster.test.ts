/**
 * Checks that the cluster provided by test/support/cluster-global-setup.ts is
 * a real multi-primary cluster, i.e. it enforces the same slot rules as
 * production (hash tags, CROSSSLOT) that single-node Redis silently ignores.
 */
import { Cluster, type Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { redisServerAvailable } from '../support/redis-cluster.js';

// `?? ''` covers a config that does not register the globalSetup at all.
const nodes = parseNodes(inject('redisClusterNodes') ?? '');
if (nodes.length === 0) console.warn(`Skipping Redis Cluster tests: ${skipReason()}`);

const TWO_KEY_SCRIPT = `
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[1])
  return redis.call('MGET', KEYS[1], KEYS[2])
`;

describe.skipIf(nodes.length === 0)('Redis Cluster test harness', () => {
  // Unique per run so the test can also point at a shared external cluster.
  const run = `laurel-cluster-test:${process.pid}:${Date.now()}`;
  const written: string[] = [];
  let cluster: Cluster;

  beforeAll(() => {
    cluster = new Cluster(nodes);
  });

  afterAll(async () => {
    // One DEL per key: a multi-key DEL across slots would itself be CROSSSLOT.
    await Promise.all(written.map((key) => cluster.del(key)));
    await cluster.quit();
  });

  it('spreads keys in different hash slots over several primaries', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'].map((tag) => `{${tag}}${run}`);
    for (const key of keys) {
      await cluster.set(key, 'v');
      written.push(key);
    }
    const masters = cluster.nodes('master');

    const slots = new Set<number>();
    const owners = new Set<string>();
    for (const key of keys) {
      const slot = await keySlot(key);
      slots.add(slot);
      owners.add(await ownerOf(masters, slot, key));
    }

    expect(slots.size).toBeGreaterThanOrEqual(3);
    expect(owners.size).toBeGreaterThanOrEqual(2);
  });

  it('runs multi-key commands on keys sharing a hash tag', async () => {
    const [a, b] = [`{${run}}:a`, `{${run}}:b`];
    await cluster.mset(a, '1', b, '2');
    written.push(a, b);

    expect(await cluster.mget(a, b)).toEqual(['1', '2']);
  });

  it('runs a two-key Lua script within one hash tag', async () => {
    const [x, y] = [`{${run}}:x`, `{${run}}:y`];
    const result = await cluster.eval(TWO_KEY_SCRIPT, 2, x, y, 'v');
    written.push(x, y);

    expect(result).toEqual(['v', 'v']);
  });

  it('rejects a Lua script touching two slots with CROSSSLOT', async () => {
    const [x, y] = [`{a}${run}:lua`, `{b}${run}:lua`];
    expect(await keySlot(x)).not.toBe(await keySlot(y));

    await expect(cluster.eval(TWO_KEY_SCRIPT, 2, x, y, 'v')).rejects.toThrow(/CROSSSLOT/);
  });

  async function keySlot(key: string): Promise<number> {
    return Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
  }
});

function parseNodes(spec: string): { host: string; port: number }[] {
  return spec
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const separator = entry.lastIndexOf(':');
      return { host: entry.slice(0, separator), port: Number(entry.slice(separator + 1)) };
    });
}

function skipReason(): string {
  if (process.env.REDIS_CLUSTER_NODES === '') return 'REDIS_CLUSTER_NODES is set to an empty string';
  return (
    redisServerAvailable() ??
    'no cluster nodes were provided (is test/support/cluster-global-setup.ts listed in globalSetup?)'
  );
}

/** Asks every primary which of them actually stores `key`; exactly one must. */
async function ownerOf(masters: Redis[], slot: number, key: string): Promise<string> {
  const holders: string[] = [];
  for (const master of masters) {
    const keysInSlot = (await master.call('CLUSTER', 'GETKEYSINSLOT', slot, 100)) as string[];
    if (keysInSlot.includes(key)) holders.push(`${master.options.host}:${master.options.port}`);
  }
  expect(holders).toHaveLength(1);
  return holders[0];
}
