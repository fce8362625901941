/**
 * The partitions' due sets of time awards (src/redis/due-sets.ts TIME_AWARDS_DUE, scored by the
 * user's earliest next award): what the `points-time` worker reads each second
 * (workers/points-time.ts) and fills when a time trigger appears.
 */
import { TIME_AWARDS_DUE } from '../../redis/due-sets.js';
import { liveTenants, tenantExists } from '../../redis/users.js';
import type { Context } from '../context.js';

/** The users whose next time award is due in one partition (at most `limit`), as [tenant, user id]. */
export function dueUsers(deps: Pick<Context, 'redis' | 'keys' | 'clock' | 'store'>, partition: number, limit: number): Promise<[string, string][]> {
  return TIME_AWARDS_DUE.due(deps, partition, deps.clock.now(), limit, (t) => tenantExists(deps.store.current, t));
}

/** A user who is gone leaves the due set. */
export function leaveTimeDue(deps: Pick<Context, 'redis' | 'keys'>, partition: number, tenant: string, userId: string): Promise<void> {
  return TIME_AWARDS_DUE.remove(deps, partition, tenant, userId);
}

/** Puts every user of every tenant into the due sets, due now (a user already in keeps its due time); answers how many. */
export function allTimeDue(deps: Pick<Context, 'redis' | 'keys' | 'store'>): Promise<{ users: number }> {
  return TIME_AWARDS_DUE.addEveryUser(deps, liveTenants(deps.store.current), 0, true);
}
