/**
 * The analytics Postgres keeps, read for the Admin API (docs/dashboard.md): each day's rollups, the
 * achievements completed in a range, the retention of a cohort (src/postgres/analytics/), and the
 * user directory's search. The routes read Postgres through the engine, as they read Redis.
 */
import type { Context } from '../context.js';
import { analyticsDays, type AnalyticsDay } from '../../postgres/analytics/days.js';
import { analyticsAchievements } from '../../postgres/analytics/achievements.js';
import { analyticsRetention } from '../../postgres/analytics/users.js';
import { searchUsers, type UserSearch } from '../../postgres/analytics/directory.js';
import type { UserListView } from '../../model/views.js';

type Deps = Pick<Context, 'postgres' | 'settings'>;

/** Each day of `from` to `to` (dates, both included) of a tenant's rollups. */
export async function rollupDays(deps: Deps, tenant: string, from: string, to: string): Promise<AnalyticsDay[]> {
  return analyticsDays(await deps.postgres(), deps.settings.prefix, tenant, from, to);
}

/** The users who completed each achievement (by id) in the range. */
export async function achievementsCompleted(deps: Deps, tenant: string, from: string, to: string): Promise<Map<string, number>> {
  return analyticsAchievements(await deps.postgres(), deps.settings.prefix, tenant, from, to);
}

/** The retention of the users new from `cohortFrom` to `cohortTo`, as of `to`: the control group's and the rest's. */
export async function cohortRetention(
  deps: Deps, tenant: string, cohortFrom: string, cohortTo: string, to: string,
): ReturnType<typeof analyticsRetention> {
  return analyticsRetention(await deps.postgres(), deps.settings.prefix, tenant, cohortFrom, cohortTo, to);
}

/** A page of a tenant's users found by the directory's search. */
export async function findUsers(deps: Deps, tenant: string, search: UserSearch): Promise<UserListView> {
  return searchUsers(await deps.postgres(), deps.settings.prefix, tenant, search);
}
