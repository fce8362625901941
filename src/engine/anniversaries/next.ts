/**
 * A user's next anniversary noted (lua/anniversaryNext-2.lua): the date every event compares its
 * day with, the anchor it was counted from, and when the workers look at the user next. A user
 * created by an identification or an API completion gets their first here (one created by an
 * event, in the event's script: lua/includes/anniversary.lua).
 */
import { anniversaryDate, nextLook } from '../../domain/anniversaries.js';
import { localDay } from '../../domain/time.js';
import { NO_ANNIVERSARY } from '../../model/fields.js';
import { dueMember } from '../../redis/due-sets.js';
import type { Context } from '../context.js';
import * as anniversaryNext from '../../redis/scripts/anniversaryNext.js';

/**
 * Notes `coming` (null: no anniversary left) counted from `anchor`, looked at in zone `tz`, unless
 * the user's next anniversary is no longer `read` (what the caller read of it; null: none): another
 * process noted one since, from a later look.
 */
export async function noteNextAnniversary(
  deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string, coming: string | null, anchor: string, tz: string, now: number,
  read: string | null,
): Promise<void> {
  const u = deps.keys.forUser(tenant, userId);
  const look = coming === null ? null : nextLook(coming, tz, now);
  await anniversaryNext.run(deps.redis, u, { member: dueMember(tenant, userId), coming: coming ?? NO_ANNIVERSARY, anchor, look, read });
}

/** A user created now, in zone `tz`: their first anniversary, while anniversary achievements are active. */
export async function firstAnniversary(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>, tenant: string, userId: string, tz: string): Promise<void> {
  const plans = deps.store.current.anniversaries;
  if (plans.length === 0) return;
  const now = deps.clock.now();
  const anchor = localDay(tz, now);
  // A user just created has none yet (an event that created them wrote its own, and keeps it).
  await noteNextAnniversary(deps, tenant, userId, anniversaryDate(anchor, plans[0].years), anchor, tz, now, null);
}
