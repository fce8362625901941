/**
 * The dashboard's achievement completion (docs/dashboard.md), from the archived event log
 * (`laurel_log`, src/postgres/log-archive.ts): how many users completed each achievement in a range
 * (an event's or an API completion's `ac`; a backfill's completion is silent, as in the daily
 * completions of src/postgres/analytics/days.ts), and the users active in it (an event or an API
 * completion). Only the batches whose span meets the range are read, or every batch under the
 * manual clock (`everyBatch`, as src/postgres/analytics/days.ts says why). Days are UTC days.
 */
import type pg from 'pg';

export interface AchievementCompletion {
  /** Users with an event or an API completion in the range. */
  activeUsers: number;
  /** Users who completed it in the range, by achievement id. */
  users: Map<string, number>;
}

/** [from, to] (YYYY-MM-DD, both included). */
export async function analyticsAchievements(
  pool: pg.Pool, prefix: string, tenant: string, from: string, to: string, everyBatch = false,
): Promise<AchievementCompletion> {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + 86_400_000;
  const { rows } = await pool.query<{ id: string | null; users: string }>(
    `WITH lines AS (
       SELECT split_part(x.line, E'\\t', 2) AS kind, split_part(x.line, E'\\t', 3)::jsonb AS body
       FROM laurel_log l CROSS JOIN LATERAL string_to_table(l.lines, E'\\n') AS x(line)
       WHERE l.prefix = $1 AND ($5 OR (l.last_at >= to_timestamp($3 / 1000.0) AND l.first_at < to_timestamp($4 / 1000.0)))
     ), mine AS (
       SELECT body->>'u' AS u, CASE WHEN jsonb_typeof(body->'ac') = 'array' THEN body->'ac' ELSE '[]'::jsonb END AS ac
       FROM lines
       WHERE coalesce(body->>'t', '') = $2 AND kind IN ('event', 'achievement')
         AND (body->>'ts')::float8 >= $3 AND (body->>'ts')::float8 < $4
     )
     SELECT NULL AS id, count(DISTINCT u) AS users FROM mine
     UNION ALL
     SELECT a.id, count(DISTINCT u) FROM mine CROSS JOIN LATERAL jsonb_array_elements_text(mine.ac) AS a(id) GROUP BY a.id`,
    [prefix, tenant, start, end, everyBatch],
  );
  let activeUsers = 0;
  const users = new Map<string, number>();
  for (const r of rows) {
    if (r.id === null) activeUsers = Number(r.users);
    else users.set(r.id, Number(r.users));
  }
  return { activeUsers, users };
}
