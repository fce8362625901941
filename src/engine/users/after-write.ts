/**
 * What follows a user's write outside an event (an identification through /users, an achievement
 * completed through the API or an anniversary), in one order: the tenant's statistics when users or
 * completions moved; the departure from the breakdown groups the write moved the user out of (so
 * the awards' placements land in the new ones); for a user created here, time triggers and the
 * first anniversary counted from now (the workers must find the user); then the awards' places on
 * the points boards. The event's own path does the same inside its two phases
 * (src/engine/event/record.ts), where they run alongside the answer.
 */
import type { Deps } from '../deps.js';
import { firstAnniversary } from '../anniversaries/next.js';
import { placedAwards, rankAwards } from '../leaderboards/rank-user.js';
import { accrueTime } from '../points/time-awards.js';

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

export async function afterUserWrite(deps: Deps, tenant: string, userId: string, w: UserWrite): Promise<void> {
  if (w.statsMoved) await deps.stats.changed(tenant);
  // The write was made: a departure that fails on the connection follows it.
  if (w.moved !== '') await deps.placements.leave(tenant, userId, w.moved, w.attributes, await w.zone(), w.now, w.order);
  if (w.created) {
    await accrueTime(deps, tenant, userId);
    await firstAnniversary(deps, tenant, userId, await w.zone());
  }
  await rankAwards(deps, tenant, userId, placedAwards(w.awards), w.now, w.order);
}
