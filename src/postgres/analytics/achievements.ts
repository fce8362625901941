/**
 * The dashboard's achievement completion (docs/dashboard.md), from the rollups
 * (src/postgres/analytics/rollups.ts): the completions of each achievement in a range (an event's
 * or an API completion's `ac`; a backfill's completion is silent). A user completes an achievement
 * once, so its completions are the users who completed it. Days are UTC days.
 */
import type pg from 'pg';

/** Completions in [from, to] (YYYY-MM-DD, both included), by achievement id. */
export async function analyticsAchievements(pool: pg.Pool, prefix: string, tenant: string, from: string, to: string): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ id: string; n: string }>(
    `SELECT achievement AS id, sum(completions) AS n FROM laurel_rollup_achievements
     WHERE prefix = $1 AND tenant = $2 AND day BETWEEN $3::date AND $4::date GROUP BY achievement`,
    [prefix, tenant, from, to],
  );
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}
