/**
 * The snapshots' copies of keys an erasure changed, made again from Redis as it is now (a key
 * gone: its copy dropped); a key the snapshots do not hold is left to them, but a league cohort's
 * outcome, which is added: a restore's replay of the run's finalisation would otherwise decide it
 * again from the cohort's ranking without the erased user, and move others than the pass moved
 * (with the outcome kept, it answers the one decided). A large run's bucket
 * of users (src/redis/run-members.ts) that holds the erased user loses them and keeps its other
 * users as the snapshot read them (a bucket is a list of users, not a key of Redis: the others'
 * states stay those of the snapshot, which the restore's replay continues from).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { copyKeyAgain, copyKeyInto, snapshotKeyCopy } from '../../postgres/erasure.js';
import type { Context } from '../context.js';
import { bucketOfKey, packMembers, unpackMembers } from '../../redis/run-members.js';
import { NOT_TEXT } from '../../lib/text.js';

/**
 * The key's copy as Redis holds it now (null: nothing left of it), or undefined to leave it: a
 * bucket that does not hold `userId` (its bytes held the id as a part of another one), or any
 * bucket when no user is named (a deleted tenant's buckets go by their names; another tenant's hold
 * none of its users).
 */
async function copyNow(deps: Pick<Context, 'redis' | 'keys' | 'settings'>, pool: pg.Pool, key: string, userId: string | null): Promise<Buffer | null | undefined> {
  if (bucketOfKey(deps.keys, key) === null) return deps.redis.dumpBuffer(key);
  if (userId === null) return undefined;
  const kept = await snapshotKeyCopy(pool, deps.settings.prefix, key);
  if (kept === null) return undefined;
  const users = unpackMembers(kept);
  const left = users.filter((s) => s.userId !== userId);
  if (left.length === users.length) return undefined;
  return left.length === 0 ? null : packMembers(left);
}

/** A league cohort's outcome hash (src/redis/keys.ts leagueCohort). */
const COHORT_OUTCOME = /:c\d+\.\d+\}:o$/;

/** Answers how many copies changed. `userId`: the erased user (null for a deleted tenant's erasure). */
export async function copyAgain(deps: Pick<Context, 'redis' | 'keys' | 'settings'>, pool: pg.Pool, keys: Iterable<string>, userId: string | null): Promise<number> {
  let n = 0;
  for (const key of keys) {
    // A name Postgres takes in no text column (a user-scoped key's league topic holds a NUL) is
    // none of the snapshots' keys.
    if (NOT_TEXT.test(key)) continue;
    const dump = await copyNow(deps, pool, key, userId);
    if (dump === undefined) continue;
    const copy = dump === null ? null : { dump, digest: createHash('sha1').update(dump).digest('base64') };
    n += await (COHORT_OUTCOME.test(key) ? copyKeyInto : copyKeyAgain)(pool, deps.settings.prefix, key, copy);
  }
  return n;
}
