/**
 * Queue `achievements`, job `backfill`: after an achievement is activated or changed, completes
 * it silently for every user who already qualifies (no notification, as Trophy's backdating).
 * Walks each tenant's user set partition by partition and runs one script per user, pipelined per
 * partition (one hash slot, so the pipeline is valid on a Cluster too).
 */
import type { Deps } from '../src/engine/deps.js';
import { liveTenants, userBatches } from '../src/redis/users.js';
import type { BackfillJob } from '../src/engine/jobs.js';
import { operationEntry } from '../src/model/log.js';
import * as backfillAchievement from '../src/redis/scripts/backfillAchievement.js';

export interface BackfillResult {
  users: number;
  completed: number;
}

export async function backfill(deps: Deps, job: BackfillJob): Promise<BackfillResult> {
  const { redis, keys, store, clock } = deps;
  const snapshot = store.current;
  const a = snapshot.achievements.get(job.achievementId);
  const result: BackfillResult = { users: 0, completed: 0 };
  // Anniversaries are backfilled by their own pass, on each user's calendar (workers/anniversaries.ts).
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
        backfillAchievement.queue(pipeline, { user: u.user, userMetric: metricKey, completions: u.completions, log: u.log }, { now: stamp, plan, entry });
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
