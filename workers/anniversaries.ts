/**
 * Queue `anniversaries`: anniversary achievements complete on the user's calendar even for users
 * who do not come back (src/engine/achievements/anniversaries.ts).
 *   pass      every second: the users whose next anniversary may have come (the partitions' due
 *             sets), each looked at on their calendar: what came completed, the next one noted
 *   backfill  when an anniversary achievement is activated or changed: every user of every tenant
 *             goes into the due sets, due now, so the next passes look at them all
 */
import type { Deps } from '../src/engine/deps.js';
import { settleAnniversaries } from '../src/engine/achievements/anniversaries.js';
import { liveTenants, userBatches } from '../src/redis/users.js';

export interface AnniversaryPassResult {
  users: number;
  completed: number;
}

const PARALLEL = 4;

/** One pass over the due sets: at most `perPartition` users of each partition. */
export async function anniversariesDue(deps: Deps, perPartition = 200): Promise<AnniversaryPassResult> {
  const result: AnniversaryPassResult = { users: 0, completed: 0 };
  if (deps.store.current.anniversaries.length === 0) return result;
  const now = deps.clock.now();
  let next = 0;
  const lane = async () => {
    while (next < deps.keys.partitions) {
      const partition = next++;
      const due = deps.keys.partitionAnniversaries(partition);
      const members = await deps.redis.zrangebyscore(due, '-inf', now, 'LIMIT', 0, perPartition);
      for (const member of members) {
        const bar = member.indexOf('|');
        const done = await settleAnniversaries(deps, member.slice(0, bar), member.slice(bar + 1));
        // A user who is gone leaves the due set.
        if (done === null) await deps.redis.zrem(due, member);
        else result.completed += done.length;
        result.users++;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  return result;
}

/** Puts every user into the due sets, due now (a look settles a user whose anniversaries did not change). */
export async function anniversaryBackfill(deps: Deps): Promise<{ users: number }> {
  const { redis, keys, store } = deps;
  let users = 0;
  for (const tenant of liveTenants(store.current)) {
    for await (const { partition, userIds } of userBatches(redis, keys, tenant)) {
      await redis.zadd(keys.partitionAnniversaries(partition), ...userIds.flatMap((id) => ['0', `${tenant}|${id}`]));
      users += userIds.length;
    }
  }
  return { users };
}
