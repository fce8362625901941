/**
 * The dashboard's analytics as rules (docs/dashboard.md): the 14-day retention of the control group
 * against the rest, and the buckets of the distributions.
 */
import type { NotificationSettings } from '../model/entities.js';
import { controlPoint, ratioAt } from './notifications/rules.js';

const DAY_MS = 86_400_000;

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
 * Of the users first seen in [from, to] whose 14th day is within it (the cohort), how many were
 * active again on their 14th day or later, in the control group (by the ratio in force when each
 * was created, as notifications judge it) and among the rest.
 */
export function retentionOf(
  users: { userId: string; first: number; retained: boolean }[], settings: NotificationSettings | null, tenant: string, from: string, to: string,
): Retention {
  const lastFirstDay = Date.parse(`${to}T00:00:00Z`) - RETENTION_DAYS * DAY_MS;
  const start = Date.parse(`${from}T00:00:00Z`);
  const control = { users: 0, retained: 0 };
  const rest = { users: 0, retained: 0 };
  for (const u of users) {
    if (Math.floor(u.first / DAY_MS) * DAY_MS > lastFirstDay) continue;
    const ratio = ratioAt(settings, new Date(u.first).toISOString());
    const group = ratio > 0 && controlPoint(tenant, u.userId) < ratio ? control : rest;
    group.users++;
    if (u.retained) group.retained++;
  }
  const judged = lastFirstDay >= start;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { days: RETENTION_DAYS, cohortFrom: judged ? from : null, cohortTo: judged ? day(lastFirstDay) : null, control, rest };
}

/** The streak lengths' buckets, [from, to] (to null: and longer). */
export const STREAK_BUCKETS: [number, number | null][] = [[1, 1], [2, 3], [4, 7], [8, 14], [15, 30], [31, 90], [91, 365], [366, null]];

export interface AchievementShare {
  id: string;
  key: string;
  name: string;
  /** Users who completed it in the range. */
  users: number;
  /** users / the range's active users, 0 to 1 to 4 places (0 when none was active). */
  share: number;
}

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
