/**
 * The dashboard's 14-day retention (docs/dashboard.md), from the rollups
 * (src/postgres/analytics/rollups.ts): of the users first seen in the cohort's days, per group
 * (the control group, by the ratio in force when each was first seen, and the rest), how many and
 * how many were active again on their 14th day after their first or later, up to the range's end.
 * Exact: the rows read are a few per day of the range.
 */
import type pg from 'pg';
import type { RetentionGroup } from '../../domain/analytics.js';

/** Users first seen in [cohortFrom, cohortTo], retained by `to` (YYYY-MM-DD each). */
export async function analyticsRetention(
  pool: pg.Pool, prefix: string, tenant: string, cohortFrom: string, cohortTo: string, to: string,
): Promise<{ control: RetentionGroup; rest: RetentionGroup }> {
  const { rows } = await pool.query<{ users: string | null; control: string | null; retained: string | null; retained_control: string | null }>(
    `SELECT (SELECT sum(new_users) FROM laurel_rollup_days WHERE prefix = $1 AND tenant = $2 AND day BETWEEN $3::date AND $4::date) AS users,
            (SELECT sum(new_control) FROM laurel_rollup_days WHERE prefix = $1 AND tenant = $2 AND day BETWEEN $3::date AND $4::date) AS control,
            r.retained, r.retained_control
     FROM (SELECT sum(users) FILTER (WHERE NOT control) AS retained, sum(users) FILTER (WHERE control) AS retained_control
           FROM laurel_rollup_retention
           WHERE prefix = $1 AND tenant = $2 AND first_day BETWEEN $3::date AND $4::date AND retained_day <= $5::date) AS r`,
    [prefix, tenant, cohortFrom, cohortTo, to],
  );
  const r = rows[0];
  const users = Number(r?.users ?? 0);
  const control = Number(r?.control ?? 0);
  return {
    control: { users: control, retained: Number(r?.retained_control ?? 0) },
    rest: { users: users - control, retained: Number(r?.retained ?? 0) },
  };
}
