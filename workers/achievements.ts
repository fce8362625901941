/**
 * Queue `achievements`, job `backfill`: after an achievement is activated or changed, completes
 * it silently for every user who already qualifies (src/engine/achievements/backfill.ts).
 */
import { ACHIEVEMENTS_QUEUE, type BackfillJob } from '../src/engine/jobs.js';
import { backfillAchievement, type BackfillResult } from '../src/engine/achievements/backfill.js';
import type { QueueSpec } from './queue.js';

export const achievementsQueue: QueueSpec<{
  /** Resolves once no backfill is waiting or running. */
  achievementsIdle(timeoutMs?: number): Promise<void>;
}> = {
  name: ACHIEVEMENTS_QUEUE,
  failure: 'achievement job failed',
  start: ({ svc, log }) => ({
    async process(job): Promise<BackfillResult> {
      const { achievementId } = job.data as BackfillJob;
      const r = await backfillAchievement(svc, achievementId);
      log.info({ achievement: achievementId, ...r }, 'achievement backfilled');
      return r;
    },
    testing: (q) => ({ achievementsIdle: (timeoutMs = 10_000) => q.idle(timeoutMs) }),
  }),
};
