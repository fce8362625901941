/**
 * What deleting a tenant removes from Redis (docs/api.md, "Tenants and keys"): every key that
 * names the tenant (its users' hashes, metrics, streaks, points, history and idempotency keys, its
 * partitions' user sets and counters, its streak rankings, leaderboard runs and live topics:
 * src/redis/keys.ts names the tenant's uuid in each), the keys scoped to one of its users, its
 * batches, and its users' members of the partitions' shared due sets and fields of the
 * points.changed windows' notes. A tenant's uuid is in no other tenant's key names, so a key whose
 * name holds it is the tenant's.
 *
 * The tenant's rows of the Postgres archive and of the snapshots are not touched here: the tenant's
 * erasure (src/engine/erasure/tenant.ts) has the workers erase them.
 */
import { removeMatching, removeMatchingFields, scanKeys, type RedisClient } from '../../redis/client.js';
import { ANNIVERSARIES_DUE, TIME_AWARDS_DUE } from '../../redis/due-sets.js';
import { DEFAULT_TENANT, type Keys } from '../../redis/keys.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

/** Keys removed per call. */
const AT_ONCE = 500;

/** Removes keys one by one (each may live on another node of a Cluster), AT_ONCE at a time. */
async function unlinkAll(redis: RedisClient, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += AT_ONCE) await Promise.all(keys.slice(i, i + AT_ONCE).map((k) => redis.unlink(k)));
}

/**
 * The records in a slot of their own (`{<tag>:<id>}`) whose hash names their tenant in field `t`,
 * each with the key beside it: a user-scoped key and its rate limit's bucket, a batch and the bits
 * of its items processed.
 */
const OWNED_RECORDS = [{ tag: 'k', beside: ':rl' }, { tag: 'b', beside: ':d' }];

/** The partitions' sets whose members name a tenant in a JSON array (the users' due sets have a codec: src/redis/due-sets.ts). */
function jsonSets(keys: Keys, partition: number): string[] {
  return [keys.partitionNotificationsDue(partition), keys.partitionPointsChanged(partition).due];
}

/** Removes the tenant's data from Redis; answers how many keys and members went. */
export async function eraseTenantData(deps: Deps, tenant: string): Promise<{ keys: number; members: number }> {
  if (tenant === DEFAULT_TENANT || !/^[0-9a-f-]{36}$/.test(tenant)) throw new Error(`eraseTenantData: "${tenant}" is not a tenant's uuid`);
  const { redis, keys } = deps;
  let removed = 0;
  for await (const batch of scanKeys(redis, `${keys.prefix}:*${tenant}*`, 1000)) {
    await unlinkAll(redis, batch);
    removed += batch.length;
  }
  // Records named by their own id, their tenant inside: the keys scoped to its users, its batches.
  for (const { tag, beside } of OWNED_RECORDS) {
    for await (const batch of scanKeys(redis, `${keys.prefix}:{${tag}:*}`, 1000)) {
      const records = batch.filter((k) => k.endsWith('}'));
      const tenants = await Promise.all(records.map((k) => redis.hget(k, 't')));
      const theirs = records.filter((_, i) => tenants[i] === tenant);
      await unlinkAll(redis, theirs.flatMap((k) => [k, `${k}${beside}`]));
      removed += theirs.length;
    }
  }
  let members = 0;
  for (let p = 0; p < keys.partitions; p++) {
    for (const set of [TIME_AWARDS_DUE, ANNIVERSARIES_DUE]) members += await set.removeTenant(deps, p, tenant);
    for (const key of jsonSets(keys, p)) {
      // A JSON array that names the tenant as one of its items.
      members += await removeMatching(redis, key, `*"${tenant}"*`, (m) => (JSON.parse(m) as unknown[]).includes(tenant), AT_ONCE);
    }
    // The points.changed windows' latest notes, whose fields are the due set's members.
    members += await removeMatchingFields(
      redis, keys.partitionPointsChanged(p).latest, `*"${tenant}"*`, (f) => (JSON.parse(f) as unknown[]).includes(tenant), AT_ONCE,
    );
  }
  return { keys: removed, members };
}
