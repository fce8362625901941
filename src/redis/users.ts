/**
 * Walking every user: the tenants whose data a worker must visit, and a tenant's users in batches,
 * partition by partition (a batch's keys share the partition's slot, so one pipeline per batch is
 * valid on a Cluster too); and one user's hash read with whether the user exists.
 */
import type { RedisClient } from './client.js';
import { DEFAULT_TENANT, type Keys, type UserKeys } from './keys.js';
import type { Snapshot } from '../model/snapshot.js';

/**
 * Whether the tenant is still there (the default one, or one not deleted, archived or not): a
 * deleted tenant's users stay in Redis until the workers' erasure pass removes them
 * (src/engine/erasure/tenant-pass.ts), and the workers that meet one meanwhile skip it.
 */
export function tenantExists(snapshot: Snapshot, tenant: string): boolean {
  return tenant === DEFAULT_TENANT || snapshot.tenants.has(tenant);
}

/** The default tenant and the active ones. */
export function liveTenants(snapshot: Snapshot): string[] {
  return [DEFAULT_TENANT, ...[...snapshot.tenants.values()].filter((t) => t.status === 'active').map((t) => t.id)];
}

/**
 * Those of `tenants` Redis's configuration still holds (the default tenant always): read from
 * Redis, not a process's copy of it, which may not have heard of a deletion yet.
 */
export async function tenantsStored(redis: RedisClient, keys: Keys, tenants: string[]): Promise<string[]> {
  const others = tenants.filter((t) => t !== DEFAULT_TENANT);
  if (others.length === 0) return tenants;
  const stored = await redis.hmget(keys.config('tenants'), ...others);
  const gone = new Set(others.filter((_, i) => stored[i] === null));
  return tenants.filter((t) => !gone.has(t));
}

/** A tenant's user ids, a batch (of about `count`) at a time, with the partition they are in. */
export async function* userBatches(redis: RedisClient, keys: Keys, tenant: string, count = 500): AsyncGenerator<{ partition: number; userIds: string[] }> {
  for (let partition = 0; partition < keys.partitions; partition++) {
    let cursor = '0';
    do {
      const [next, userIds] = await redis.sscan(keys.partitionUsers(partition, tenant), cursor, 'COUNT', count);
      cursor = next;
      if (userIds.length > 0) yield { partition, userIds };
    } while (cursor !== '0');
  }
}

/**
 * One more hash of the user's (`of` names it from the user's keys), read with whether the user
 * exists (the user's keys share a slot: one pipeline, on a Cluster too); null when there is no such user.
 */
export async function userAndHash(deps: { redis: RedisClient; keys: Keys }, tenant: string, userId: string, of: (u: UserKeys) => string): Promise<Record<string, string> | null> {
  const u = deps.keys.forUser(tenant, userId);
  const [[e1, exists], [e2, fields]] = (await deps.redis.pipeline().exists(u.user).hgetall(of(u)).exec()) as [
    [Error | null, number], [Error | null, Record<string, string>],
  ];
  if (e1 || e2) throw e1 ?? e2;
  return exists === 0 ? null : fields;
}
