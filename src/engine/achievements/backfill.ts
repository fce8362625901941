/**
 * An achievement activated or changed, completed silently for every user who already qualifies (no
 * notification, as Trophy's backdating): each tenant's user set walked partition by partition, one
 * script per user, pipelined per partition (one hash slot, so the pipeline is valid on a Cluster
 * too). The `achievements` worker runs it (workers/achievements.ts); anniversaries are backfilled
 * by their own pass, on each user's calendar (src/engine/anniversaries/due.ts).
 */
import { operationEntry } from '../../model/log.js';
import { liveTenants, userBatches } from '../../redis/users.js';
import * as backfillAchievementScript from '../../redis/scripts/backfillAchievement.js';
import type { Deps } from '../deps.js';

export interface BackfillResult {
  users: number;
  completed: number;
}

export async function backfillAchievement(deps: Deps, achievementId: string): Promise<BackfillResult> {
  const { redis, keys, store, clock } = deps;
  const snapshot = store.current;
  const a = snapshot.achievements.get(achievementId);
  const result: BackfillResult = { users: 0, completed: 0 };
  if (!a || a.status !== 'active' || a.trigger === 'anniversary') return result;
  const plan = snapshot.singlePlan(a);
  if (plan === null) return result;
  const now = clock.now();
  const stamp = new Date(now).toISOString();
  for (const tenant of liveTenants(snapshot)) {
    for await (const { userIds } of userBatches(redis, keys, tenant)) {
      const pipeline = redis.pipeline();
      for (const userId of userIds) {
        const u = keys.forUser(tenant, userId);
        const metricKey = a.metricId === null ? u.user : keys.userMetric(u, a.metricId);
        const entry = operationEntry(tenant, userId, now, { f: { achievement: a.id } });
        backfillAchievementScript.queue(pipeline, { user: u.user, userMetric: metricKey, completions: u.completions, log: u.log }, { now: stamp, plan, entry });
      }
      let completed = 0;
      for (const [err, n] of (await pipeline.exec()) ?? []) {
        if (err) throw err;
        completed += Number(n);
      }
      if (completed > 0) await deps.stats.changed(tenant);
      result.completed += completed;
      result.users += userIds.length;
    }
  }
  return result;
}
