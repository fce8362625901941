/**
 * A snapshot's walks of the keyspace (src/engine/durability/snapshot-walks.ts): its patterns in two
 * walks instead of one each, and exactly the keys a walk per pattern finds, among users' keys and
 * keys of other prefixes, on single Redis and the Cluster.
 */
import { describe, expect, it } from 'vitest';
import { batchKeyPatterns, sharedKeyPatterns } from '../../src/engine/durability/snapshot.js';
import { keysOfPatterns, walksFor } from '../../src/engine/durability/snapshot-walks.js';
import { scanKeys } from '../../src/redis/client.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe('a snapshot\'s walks', () => {
  it('take the shared keys\' patterns in two walks, the batches\' in one', () => {
    expect(walksFor('laurel', sharedKeyPatterns('laurel'))).toEqual(['laurel:{[^p]*', 'laurel:{p*}:[bnp]*']);
    expect(walksFor('laurel', batchKeyPatterns('laurel'))).toEqual(['laurel:{[^p]*']);
    // A pattern of neither shape walks alone.
    expect(walksFor('laurel', ['laurel:{p*}:*', 'laurel:x*'])).toEqual(['laurel:{p*}:*', 'laurel:x*']);
  });
});

describe.each(targets())('a snapshot\'s walks on %s', (target) => {
  const s = useTestServer({ target });

  it('find exactly the keys a walk per pattern finds', async () => {
    const { redis } = s.api.services;
    const p = s.prefix;
    const names = [
      // The patterns' own keys...
      `${p}:{st:_}:active`, `${p}:{lb:_:b1:2026-01-01}:r`, `${p}:{lbf:_:b1}:f`, `${p}:{k:key1}`, `${p}:{p3}:ndue`, `${p}:{wh:_}:lost`,
      `${p}:{p3}:pcdue`, `${p}:{p7}:pcw`, `${p}:{p7}:bq`, `${p}:{whq:_}:q`, `${p}:{whq}`, `${p}:{b:batch1}:p`,
      // ...and others: users' keys, a partition's log, a key record's rate-limit bucket, another prefix's.
      `${p}:{p3}:user:_:u1`, `${p}:{p3}:sh:_:u1`, `${p}:{p3}:log`, `${p}:{p7}:pcwx`, `${p}:{k:key1}:rl`, `other${p}:{st:_}:active`,
    ];
    for (const name of names) await redis.set(name, '1');
    try {
      for (const patterns of [sharedKeyPatterns(p), batchKeyPatterns(p)]) {
        const one: string[] = [];
        for (const pattern of patterns) for await (const batch of scanKeys(redis, pattern)) one.push(...batch);
        const found: string[] = [];
        for await (const batch of keysOfPatterns(redis, p, patterns)) found.push(...batch);
        expect(found.sort()).toEqual(one.sort());
        expect(found.length).toBeGreaterThan(0);
      }
    } finally {
      for (const name of names) await redis.del(name);
    }
  });
});
