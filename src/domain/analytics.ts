/**
 * The dashboard's analytics as rules (docs/dashboard.md): the 14-day retention of the control group
 * against the rest, and the buckets of the distributions.
 */
import type { AchievementShare } from '../model/views.js';

const DAY_MS = 86_400_000;

/**
 * The most days an analytics range spans: a year, leap day included. The dashboard asks for two
 * weeks by default; the active users' sketches are kept 400 days (src/engine/analytics/active-users.ts),
 * enough for the range and the week before its first day.
 */
export const ANALYTICS_MAX_DAYS = 366;

/** How many days after their first day a user must act again to count as retained. */
export const RETENTION_DAYS = 14;

export interface RetentionGroup {
  users: number;
  retained: number;
}

export interface Retention {
  days: number;
  /** The first days of the cohort: users first seen from `cohortFrom` to `cohortTo` (null: none can be judged yet). */
  cohortFrom: string | null;
  cohortTo: string | null;
  control: RetentionGroup;
  rest: RetentionGroup;
}

/**
 * The cohort of the retention over [from, to]: the users first seen from `from` up to the day whose
 * 14th day after is `to`; null when no first day of the range can be judged yet.
 */
export function retentionCohort(from: string, to: string): { from: string; to: string } | null {
  const lastFirstDay = Date.parse(`${to}T00:00:00Z`) - RETENTION_DAYS * DAY_MS;
  if (lastFirstDay < Date.parse(`${from}T00:00:00Z`)) return null;
  return { from, to: new Date(lastFirstDay).toISOString().slice(0, 10) };
}

/** The streak lengths' buckets, [from, to] (to null: and longer). */
export const STREAK_BUCKETS: [number, number | null][] = [[1, 1], [2, 3], [4, 7], [8, 14], [15, 30], [31, 90], [91, 365], [366, null]];


/**
 * Each achievement of the account (in the order given) with the users who completed it in the range
 * and their share of the range's active users; an achievement deleted since is left out.
 */
export function achievementShares(
  achievements: Iterable<{ id: string; key: string; name: string }>, completed: Map<string, number>, activeUsers: number,
): AchievementShare[] {
  return [...achievements].map((a) => {
    const users = completed.get(a.id) ?? 0;
    return { id: a.id, key: a.key, name: a.name, users, share: activeUsers === 0 ? 0 : Math.round((10_000 * users) / activeUsers) / 10_000 };
  });
}
