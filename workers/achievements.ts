/**
 * Queue `achievements`, job `backfill`: after an achievement is activated or changed, completes
 * it silently for every user who already qualifies (src/engine/achievements/backfill.ts).
 */
import type { Deps } from '../src/engine/deps.js';
import type { BackfillJob } from '../src/engine/jobs.js';
import { backfillAchievement, type BackfillResult } from '../src/engine/achievements/backfill.js';

export function backfill(deps: Deps, job: BackfillJob): Promise<BackfillResult> {
  return backfillAchievement(deps, job.achievementId);
}
