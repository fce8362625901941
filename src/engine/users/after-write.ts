/**
 * What follows a user's write, in one order, whichever path wrote: an identification through
 * /users, an achievement completed through the API or an anniversary, a metric event.
 *
 * 1. The tenant's statistics, when the write moved them (a user created, an achievement
 *    completed): sent first, alongside the steps that follow, and awaited last, before the answer.
 * 2. The departure from the breakdown groups the write moved the user out of, so that the
 *    placements land in the new ones.
 * 3. For a user the write created: the time triggers and the first anniversary counted from now
 *    (the workers must find the user). An event's script notes both itself (lua/recordEventPlan-4.lua,
 *    lua/includes/anniversary.lua): it has no such step.
 * 4. The placements: the awards' places on the points boards; an event's own on its metric's and
 *    streak's boards with them (src/engine/event/record.ts), in the same batch of writes.
 *
 * Each path says how it takes each step (FollowUps); followUserWrite takes them in this order, and
 * issues a step that does not wait for an earlier one in the same turn as it, so that an event's
 * writes leave together (src/redis/coalesce.ts).
 */
import type { Deps } from '../deps.js';
import { firstAnniversary } from '../anniversaries/next.js';
import { placedAwards, rankAwards } from '../leaderboards/rank-user.js';
import { accrueTime } from '../points/time-awards.js';

/** How a write path takes each follow-up; null: the write calls for none. */
export interface FollowUps<R> {
  /** 1. The tenant's statistics moved. */
  stats: (() => Promise<void>) | null;
  /** 2. The departure; false when it waits for Redis's connection (src/engine/durability/outage-phase2.ts). */
  leave: (() => Promise<boolean>) | null;
  /** 3. What a user created by the write needs noted. */
  created: (() => Promise<void>) | null;
  /** 4. The placements, told whether the departure was made (or not needed). */
  place: (left: boolean) => Promise<R>;
}

/** Takes a write's follow-ups in their order; answers what the placements answered. */
export async function followUserWrite<R>(steps: FollowUps<R>): Promise<R> {
  const stats = steps.stats === null ? null : steps.stats();
  try {
    const left = steps.leave === null || await steps.leave();
    if (steps.created !== null) await steps.created();
    const placed = await steps.place(left);
    if (stats !== null) await stats;
    return placed;
  } catch (err) {
    if (stats !== null) await stats.catch(() => undefined);
    throw err;
  }
}

/** A write outside an event, as its script answered it. */
export interface UserWrite {
  /** The user was created by the write. */
  created: boolean;
  /** The tenant's user count or completion counts moved (a user created, an achievement completed). */
  statsMoved: boolean;
  /** The groups the write moved the user out of, as the script answers them ('' when none). */
  moved: string;
  /** The user's breakdown attributes after the write, when known (read from Redis otherwise). */
  attributes: Map<string, string> | null;
  /** The user's zone after the write. */
  zone: () => Promise<string>;
  /** The awards the write made, as its script answers them. */
  awards: unknown;
  now: number;
  /** The log entry id the placements are ordered by (a restore gives the original one). */
  order: string;
}

/**
 * The follow-ups of an identification or a completion. A departure put off for Redis's connection
 * leaves the awards' placements to be tried now all the same: only an event's are placed again with it.
 */
export function afterUserWrite(deps: Deps, tenant: string, userId: string, w: UserWrite): Promise<void> {
  return followUserWrite({
    stats: w.statsMoved ? () => deps.stats.changed(tenant) : null,
    leave: w.moved === '' ? null : async () => deps.placements.leave(tenant, userId, w.moved, w.attributes, await w.zone(), w.now, w.order),
    created: !w.created ? null : async () => {
      await accrueTime(deps, tenant, userId);
      await firstAnniversary(deps, tenant, userId, await w.zone());
    },
    place: () => rankAwards(deps, tenant, userId, placedAwards(w.awards), w.now, w.order),
  });
}
