/**
 * An `api` achievement completed through POST achievements/{key}/complete: the completeAchievement
 * script (the completion, its composites and points, the identification it carries), then what
 * follows it: the tenant's statistics, the departure from breakdown groups the identification
 * moved, time triggers and the first anniversary for a new user, and the awards' placements. The
 * anniversary achievements complete the same way (src/engine/achievements/anniversaries.ts).
 */
import { boostsArg } from '../../config/plans/points.js';
import { localDay } from '../../domain/time.js';
import type { PreparedIdentification, UpsertedUser } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import type { Achievement } from '../../model/entities.js';
import { completionField, dayField } from '../../model/fields.js';
import { userEntry } from '../../model/log.js';
import { markBreakdown } from '../leaderboards/leave-groups.js';
import type { Deps } from '../deps.js';
import { placedAwards, rankAwards } from '../leaderboards/rank-user.js';
import { accrueTime } from '../points/time-awards.js';
import { firstAnniversary } from './anniversary-next.js';
import * as completeAchievementScript from '../../redis/scripts/completeAchievement.js';

/**
 * When the user completed it (the first completion, when they had it already), the awards made
 * ([] without) and when, and the ids completed now: it and the composites it completed ([] when
 * the user had it already).
 */
export interface Completion {
  achievedAt: string;
  awards: unknown;
  now: number;
  completed: string[];
}

/** Completes `achievement` (of trigger `api` or `anniversary`, whose single plan is `plan`) for the user. */
export async function completeAchievement(
  deps: Deps, tenant: string, achievement: Achievement, plan: Buffer, user: UpsertedUser, ident: PreparedIdentification, seq?: string,
): Promise<Completion> {
  const { redis, keys, store, clock, stats } = deps;
  const snapshot = store.current;
  const key = achievement.key;
  const u = keys.forUser(tenant, user.id);
  // Time awards already due come first, as before an event: the completion's awards may spend
  // them (or meet the cap after them), and they were earned under the attributes and zone the
  // user has before this identification.
  await accrueTime(deps, tenant, user.id);
  const now = clock.now();
  const fields = Object.fromEntries(Object.entries(user).filter(([k, v]) => v != null && k !== 'id'));
  const entry = userEntry(tenant, user.id, now, { ...fields, achievement: achievement.id });
  // Locked: no new completions, but a user who has it gets the original completion back.
  if (achievement.status === 'locked') {
    const achievedAt = await redis.hget(u.user, completionField(achievement.id));
    if (achievedAt === null) throw fail('unprocessable', `Achievement "${key}" is locked: it accepts no new completions`);
    return { achievedAt, awards: [], now, completed: [] };
  }
  // Points are counted on the user's local day: the zone this request sets, else the stored one.
  const tz = snapshot.points === null ? '' : ident.tz ?? (await redis.hget(u.user, 'tz')) ?? '';
  const day = localDay(tz, now);
  const r = await completeAchievementScript.run(redis, u, {
    userId: user.id, now, dayField: dayField(day), needsEmail: ident.needsEmail, entry, plan, boosts: boostsArg(snapshot, user.id, day),
    pairs: markBreakdown(ident.pairs, snapshot),
  });
  if (r === 'subscribe_without_email') throw fail('subscribe_without_email');
  if (r === 'filtered_out') {
    throw fail('unprocessable', `User "${user.id}" does not have the attribute values achievement "${key}" requires`);
  }
  if (r.created || r.completed.length > 0) await stats.changed(tenant);
  // The log entry id the placements are ordered by (a restore gives the original one).
  const order = seq ?? r.seq;
  // An attribute a board breaks down by changed: the user leaves the old group
  // (src/engine/leaderboards/leave-groups.ts).
  if (r.moved !== '') {
    const zone = ident.tz ?? (await redis.hget(u.user, 'tz')) ?? '';
    await deps.placements.leave(tenant, user.id, r.moved, null, zone, now, order);
  }
  // A user created here: time triggers and anniversaries count from now (the workers must find the user).
  if (r.created) {
    await accrueTime(deps, tenant, user.id);
    await firstAnniversary(deps, tenant, user.id, ident.tz ?? '');
  }
  await rankAwards(deps, tenant, user.id, placedAwards(r.awards), now, order);
  return { achievedAt: r.achievedAt, awards: r.awards, now, completed: r.completed };
}
