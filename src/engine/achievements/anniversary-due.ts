/**
 * The partitions' due sets of anniversaries (`<slot>anndue`, member `<tenant>|<user id>`, scored
 * by when the user is looked at next: src/engine/achievements/anniversary-next.ts): what the
 * `anniversaries` worker reads each second (workers/anniversaries.ts) and fills when an anniversary
 * achievement is activated or changed.
 */
import { dueMember, dueMemberUser, liveTenants, userBatches } from '../../redis/users.js';
import type { Context } from '../context.js';

/** The users due to be looked at in one partition by `now` (at most `limit`), as [tenant, user id]. */
export async function anniversaryDueUsers(
  deps: Pick<Context, 'redis' | 'keys'>, partition: number, now: number, limit: number,
): Promise<[string, string][]> {
  const members = await deps.redis.zrangebyscore(deps.keys.partitionAnniversaries(partition), '-inf', now, 'LIMIT', 0, limit);
  return members.map(dueMemberUser);
}

/** A user who is gone leaves the due set. */
export async function leaveAnniversaryDue(deps: Pick<Context, 'redis' | 'keys'>, partition: number, tenant: string, userId: string): Promise<void> {
  await deps.redis.zrem(deps.keys.partitionAnniversaries(partition), dueMember(tenant, userId));
}

/** Puts every user of every tenant into the due sets, due now (a look settles a user whose anniversaries did not change); answers how many. */
export async function allAnniversaryDue(deps: Pick<Context, 'redis' | 'keys' | 'store'>): Promise<{ users: number }> {
  const { redis, keys, store } = deps;
  let users = 0;
  for (const tenant of liveTenants(store.current)) {
    for await (const { partition, userIds } of userBatches(redis, keys, tenant)) {
      await redis.zadd(keys.partitionAnniversaries(partition), ...userIds.flatMap((id) => ['0', dueMember(tenant, id)]));
      users += userIds.length;
    }
  }
  return { users };
}
