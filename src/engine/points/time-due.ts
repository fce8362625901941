/**
 * The partitions' due sets of time awards (`<slot>ptdue`, member `<tenant>|<user id>`, scored by
 * the user's earliest next award): what the `points-time` worker reads each second
 * (workers/points-time.ts) and fills when a time trigger appears.
 */
import { dueMember, dueMemberUser, liveTenants, userBatches } from '../../redis/users.js';
import type { Context } from '../context.js';

/** The users whose next time award is due in one partition (at most `limit`), as [tenant, user id]. */
export async function dueUsers(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, partition: number, limit: number): Promise<[string, string][]> {
  const members = await deps.redis.zrangebyscore(deps.keys.partitionDue(partition), '-inf', deps.clock.now(), 'LIMIT', 0, limit);
  return members.map(dueMemberUser);
}

/** A user who is gone leaves the due set. */
export async function leaveTimeDue(deps: Pick<Context, 'redis' | 'keys'>, partition: number, tenant: string, userId: string): Promise<void> {
  await deps.redis.zrem(deps.keys.partitionDue(partition), dueMember(tenant, userId));
}

/** Puts every user of every tenant into the due sets, due now; answers how many. */
export async function allTimeDue(deps: Pick<Context, 'redis' | 'keys' | 'store'>): Promise<{ users: number }> {
  const { redis, keys, store } = deps;
  let users = 0;
  for (const tenant of liveTenants(store.current)) {
    for await (const { partition, userIds } of userBatches(redis, keys, tenant)) {
      // NX: a user already in the set keeps its due time.
      await redis.zadd(keys.partitionDue(partition), 'NX', ...userIds.flatMap((id) => ['0', dueMember(tenant, id)]));
      users += userIds.length;
    }
  }
  return { users };
}
