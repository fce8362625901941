/**
 * The snapshots' copies of keys an erasure changed, made again from Redis as it is now (a key
 * gone: its copy dropped); a key the snapshots do not hold is left to them. A large run's bucket
 * of users (src/redis/run-members.ts) is read again for the users it holds: those
 * still in the run keep their place in it.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { copyKeyAgain, snapshotKeyCopy } from '../../postgres/erasure.js';
import type { Context } from '../context.js';
import { bucketOfKey, readBucketAgain } from '../../redis/run-members.js';

/** The key's copy as Redis holds it now (null: nothing left of it). */
async function copyNow(deps: Pick<Context, 'redis' | 'keys' | 'settings'>, pool: pg.Pool, key: string): Promise<Buffer | null> {
  if (bucketOfKey(deps.keys, key) === null) return deps.redis.dumpBuffer(key);
  const kept = await snapshotKeyCopy(pool, deps.settings.prefix, key);
  return kept === null ? null : readBucketAgain(deps.redis, deps.keys, key, kept);
}

/** Answers how many copies changed. */
export async function copyAgain(deps: Pick<Context, 'redis' | 'keys' | 'settings'>, pool: pg.Pool, keys: Iterable<string>): Promise<number> {
  let n = 0;
  for (const key of keys) {
    const dump = await copyNow(deps, pool, key);
    const copy = dump === null ? null : { dump, digest: createHash('sha1').update(dump).digest('base64') };
    n += await copyKeyAgain(pool, deps.settings.prefix, key, copy);
  }
  return n;
}
