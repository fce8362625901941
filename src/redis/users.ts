/**
 * Walking every user: the tenants whose data a worker must visit, and a tenant's users in batches,
 * partition by partition (a batch's keys share the partition's slot, so one pipeline per batch is
 * valid on a Cluster too).
 */
import type { RedisClient } from './client.js';
import { DEFAULT_TENANT, type Keys } from './keys.js';
import type { Snapshot } from '../model/snapshot.js';

/** The default tenant and the active ones. */
export function liveTenants(snapshot: Snapshot): string[] {
  return [DEFAULT_TENANT, ...[...snapshot.tenants.values()].filter((t) => t.status === 'active').map((t) => t.id)];
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
