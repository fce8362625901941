/**
 * Revoking a user's completion of an achievement (`DELETE /admin/v1/users/{id}/achievements/{key}`;
 * docs/api.md, "Fair play: voiding an event and revoking an achievement"): one script on the
 * user's partition (lua/revokeAchievement-3.lua) takes the completion off and the partition's
 * count of it one lower, and appends a `revoked` entry to the log, which the webhooks and live
 * updates read (`achievement.revoked`) and a restore replays. The tenant's statistics move before
 * the answer (rarity, the completion count: src/engine/achievements/completion-stats.ts). Points an
 * achievement trigger awarded for it stay. A metric achievement is completed again by the next
 * event that takes the total across its threshold, and never by a backfill (one queued before the
 * revoke and run after it included): the script marks the revoke in the user hash, where
 * lua/backfillAchievement-4.lua reads it.
 */
import { operationEntry } from '../../model/log.js';
import * as revokeAchievement from '../../redis/scripts/revokeAchievement.js';
import type { Context } from '../context.js';

/** When the completion was revoked (ISO-8601), or what kept it from being revoked (nothing changed then). */
export async function revokeCompletion(
  deps: Pick<Context, 'redis' | 'keys' | 'clock' | 'stats'>, tenant: string, userId: string, achievementId: string,
): Promise<string | 'not_completed' | 'unknown_user'> {
  const u = deps.keys.forUser(tenant, userId);
  const now = deps.clock.now();
  const entry = operationEntry(tenant, userId, now, { f: { achievement: achievementId } });
  const r = await revokeAchievement.run(deps.redis, u, achievementId, entry);
  if (r === 'not_completed' || r === 'unknown_user') return r;
  await deps.stats.changed(tenant);
  return new Date(now).toISOString();
}
