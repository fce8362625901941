/**
 * The partitions' due sets of anniversaries (src/redis/due-sets.ts ANNIVERSARIES_DUE, scored by
 * when the user is looked at next: src/engine/anniversaries/next.ts): what the
 * `anniversaries` worker reads each second (workers/anniversaries.ts) and fills when an anniversary
 * achievement is activated or changed.
 */
import { ANNIVERSARIES_DUE } from '../../redis/due-sets.js';
import { liveTenants, tenantExists } from '../../redis/users.js';
import type { Context } from '../context.js';

/** The users due to be looked at in one partition by `now` (at most `limit`), as [tenant, user id]. */
export function anniversaryDueUsers(
  deps: Pick<Context, 'redis' | 'keys' | 'store'>, partition: number, now: number, limit: number,
): Promise<[string, string][]> {
  return ANNIVERSARIES_DUE.due(deps, partition, now, limit, (t) => tenantExists(deps.store.current, t));
}

/** A user who is gone leaves the due set. */
export function leaveAnniversaryDue(deps: Pick<Context, 'redis' | 'keys'>, partition: number, tenant: string, userId: string): Promise<void> {
  return ANNIVERSARIES_DUE.remove(deps, partition, tenant, userId);
}

/** Puts every user of every tenant into the due sets, due now (a look settles a user whose anniversaries did not change); answers how many. */
export function allAnniversaryDue(deps: Pick<Context, 'redis' | 'keys' | 'store'>): Promise<{ users: number }> {
  return ANNIVERSARIES_DUE.addEveryUser(deps, liveTenants(deps.store.current), 0);
}
