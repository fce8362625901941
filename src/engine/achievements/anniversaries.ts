/**
 * Anniversary achievements (Admin API 1.26.0's `anniversary` trigger): the N-th completes when the
 * user's N-th anniversary comes on their calendar (src/domain/anniversaries.ts), at the user's
 * next event or by the workers' pass, whichever comes first.
 *
 * The user hash keeps the next anniversary's date (`an`, `~` when none is left) and the day it is
 * counted from (`an:d`); the partition's due set (`<slot>anndue`) when the workers look at the user
 * next. Every event compares its local day with `an` (lua/recordEventPlan-4.lua answers -13 when it
 * has come, or was never worked out), and the `anniversaries` worker takes the users due each
 * second (workers/anniversaries.ts): either calls settleAnniversaries, which completes what came and
 * notes the next one.
 *
 * A completion goes the way of an API completion (lua/completeAchievement-5.lua): its log entry
 * (kind `achievement`, with `ac`), so the webhooks (`achievement.completed`), the notifications and
 * a restore follow from it, the composites it completes and the points of achievement triggers,
 * and the event's answer lists it. An anniversary that came before the achievement was activated
 * (or changed) is a backfill's: completed silently (lua/backfillAchievement-4.lua, kind
 * `backfill`), as the other triggers' backfills are. A user who does not match the achievement's
 * user filters when their anniversary comes does not complete it then; a later look (their next
 * anniversary of another achievement, or a change of the anniversary achievements) completes it
 * once they match.
 */
import { anniversaryDate, dayStart } from '../../domain/anniversaries.js';
import { dayBounds } from '../../domain/time.js';
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import { prepareIdentification, type UpsertedUser } from '../../domain/users.js';
import { HttpError } from '../../lib/errors.js';
import { ANNIVERSARY_ANCHOR_FIELD, ANNIVERSARY_FIELD } from '../../model/fields.js';
import { operationEntry } from '../../model/log.js';
import type { Deps } from '../deps.js';
import { noteNextAnniversary } from '../anniversaries/next.js';
import { completeAchievement } from './complete.js';
import * as backfillAchievement from '../../redis/scripts/backfillAchievement.js';

/**
 * Completes the user's anniversary achievements that came, on their calendar in zone `zone` (an
 * event's zone; by default the stored one), and notes the next anniversary. Answers the ids
 * completed loudly (with the composites they completed), or null when the user does not exist.
 */
export async function settleAnniversaries(deps: Deps, tenant: string, userId: string, zone?: string): Promise<string[] | null> {
  const { redis, keys, store, clock } = deps;
  const config = store.current;
  const plans = config.anniversaries;
  if (plans.length === 0) return [];
  const u = keys.forUser(tenant, userId);
  const filterFields = [...new Set(plans.flatMap((p) => p.ua.filter((_, i) => i % 2 === 0)))];
  const h = await redis.hmget(u.user, 'id', 'created', 'tz', ANNIVERSARY_ANCHOR_FIELD, ANNIVERSARY_FIELD, ...plans.map((p) => p.cf), ...filterFields, CLOCK_FIELD);
  if (h[0] === null) return null;
  const now = clock.now();
  const tz = zone ?? h[2] ?? '';
  // Not the cached localDay: the creation's day is not the current one.
  const anchor = h[3] ?? dayBounds(tz, Date.parse(h[1] ?? '') || now).date;
  // Today on the user's clock (src/domain/clock.ts), as the event script judges the anniversary come.
  const today = userTime(tz, parseClock(h[h.length - 1]), now).date;
  const attributes = new Map(filterFields.map((f, i) => [f, h[5 + plans.length + i]]));
  const matches = (ua: string[]) => {
    for (let k = 0; k < ua.length; k += 2) if (attributes.get(ua[k]) !== ua[k + 1]) return false;
    return true;
  };
  const completed: string[] = [];
  let coming: string | null = null;
  for (let i = 0; i < plans.length; i++) {
    const p = plans[i];
    if (h[5 + i] !== null) continue;
    const date = anniversaryDate(anchor, p.years);
    if (date > today) {
      if (coming === null || date < coming) coming = date;
      continue;
    }
    const plan = config.singlePlan(p.achievement);
    if (plan === null || !matches(p.ua)) continue;
    if (dayStart(date, tz) >= p.loudFrom) {
      try {
        const user: UpsertedUser = { id: userId };
        const done = await completeAchievement(deps, tenant, p.achievement, plan, user, prepareIdentification(user, config));
        completed.push(...done.completed);
      } catch (err) {
        // Its filters stopped matching meanwhile: not completed, as above.
        if (!(err instanceof HttpError)) throw err;
      }
    } else {
      const entry = operationEntry(tenant, userId, now, { f: { achievement: p.achievement.id } });
      const n = await backfillAchievement.run(redis, { user: u.user, userMetric: u.user, completions: u.completions, log: u.log }, {
        now: new Date(now).toISOString(), plan, entry,
      });
      if (n > 0) await deps.stats.changed(tenant);
    }
  }
  // Unless another look noted one since this one read it: that look came later.
  await noteNextAnniversary(deps, tenant, userId, coming, anchor, tz, now, h[4]);
  return completed;
}
