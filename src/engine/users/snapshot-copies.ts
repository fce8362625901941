/**
 * The snapshots' copies of keys an erasure changed, made again from Redis as it is now (a key
 * gone: its copy dropped); a key the snapshots do not hold is left to them.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { copyKeyAgain } from '../../postgres/erasure.js';
import type { Context } from '../context.js';

/** Answers how many copies changed. */
export async function copyAgain(deps: Pick<Context, 'redis' | 'settings'>, pool: pg.Pool, keys: Iterable<string>): Promise<number> {
  let n = 0;
  for (const key of keys) {
    const dump = await deps.redis.dumpBuffer(key);
    const copy = dump === null ? null : { dump, digest: createHash('sha1').update(dump).digest('base64') };
    n += await copyKeyAgain(pool, deps.settings.prefix, key, copy);
  }
  return n;
}
