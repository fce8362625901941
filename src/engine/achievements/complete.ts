/**
 * An `api` achievement completed through POST achievements/{key}/complete: the completeAchievement
 * script (the completion, its composites and points, the identification it carries), then what
 * follows a user's write (src/engine/users/after-write.ts). The
 * anniversary achievements complete the same way (src/engine/achievements/anniversaries.ts).
 */
import { boostsArg } from '../../config/plans/points.js';
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import type { PreparedIdentification, UpsertedUser } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import type { Achievement } from '../../model/entities.js';
import { completionField, dayField } from '../../model/fields.js';
import { userEntry } from '../../model/log.js';
import { ScriptCode } from '../../redis/codes.js';
import { markBreakdown } from '../leaderboards/leave-groups.js';
import type { Deps } from '../deps.js';
import { accrueTime } from '../points/time-awards.js';
import { refused } from '../script-errors.js';
import { afterUserWrite } from '../users/after-write.js';
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
  const { redis, keys, store, clock } = deps;
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
  // Points are counted on the user's day on their clock (src/domain/clock.ts): in the zone this
  // request sets, else the stored one.
  let day = userTime('', null, now).date;
  if (snapshot.points !== null) {
    const [stored, ck] = await redis.hmget(u.user, 'tz', CLOCK_FIELD);
    day = userTime(ident.tz ?? stored ?? '', parseClock(ck), now).date;
  }
  const r = await completeAchievementScript.run(redis, u, {
    userId: user.id, now, dayField: dayField(day), needsEmail: ident.needsEmail, entry, plan, boosts: boostsArg(snapshot, tenant, user.id, day),
    pairs: markBreakdown(ident.pairs, snapshot),
  });
  if (r === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL) throw refused(r);
  if (r === ScriptCode.FILTERED_OUT) throw refused(r, user.id, key);
  await afterUserWrite(deps, tenant, user.id, {
    created: r.created, statsMoved: r.created || r.completed.length > 0, moved: r.moved, attributes: null,
    zone: async () => ident.tz ?? (await redis.hget(u.user, 'tz')) ?? '', awards: r.awards, now, order: seq ?? r.seq,
  });
  return { achievedAt: r.achievedAt, awards: r.awards, now, completed: r.completed };
}
