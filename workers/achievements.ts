/**
 * Queue `achievements`, job `backfill`: after an achievement is activated or changed, completes
 * it silently for every user who already qualifies (no notification, as Trophy's backdating).
 * Walks each tenant's user set partition by partition and runs one script per user, pipelined per
 * partition (one hash slot, so the pipeline is valid on a Cluster too).
 */
import type { Deps } from '../src/deps.js';
import { singlePlan } from '../src/domain/achievements.js';
import { DEFAULT_TENANT } from '../src/redis/keys.js';
import type { BackfillJob } from '../src/jobs.js';

export interface BackfillResult {
  users: number;
  completed: number;
}

export async function backfill(deps: Deps, job: BackfillJob): Promise<BackfillResult> {
  const { redis, keys, store, clock } = deps;
  const snapshot = store.current;
  const a = snapshot.achievements.get(job.achievementId);
  const result: BackfillResult = { users: 0, completed: 0 };
  if (!a || a.status !== 'active') return result;
  const plan = singlePlan(a, snapshot);
  if (plan === null) return result;
  const stamp = new Date(clock.now()).toISOString();
  const tenants = [DEFAULT_TENANT, ...[...snapshot.tenants.values()].filter((t) => t.status === 'active').map((t) => t.id)];
  for (const tenant of tenants) {
    for (let partition = 0; partition < keys.partitions; partition++) {
      let cursor = '0';
      do {
        const [next, userIds] = await redis.sscan(keys.partitionUsers(partition, tenant), cursor, 'COUNT', 500);
        cursor = next;
        if (userIds.length === 0) continue;
        const pipeline = redis.pipeline();
        for (const userId of userIds) {
          const u = keys.forUser(tenant, userId);
          const metricKey = a.metricId === null ? u.user : keys.userMetric(u, a.metricId);
          pipeline.backfillAchievement(u.user, metricKey, u.completions, stamp, plan);
        }
        for (const [err, n] of (await pipeline.exec()) ?? []) {
          if (err) throw err;
          result.completed += Number(n);
        }
        result.users += userIds.length;
      } while (cursor !== '0');
    }
  }
  return result;
}
