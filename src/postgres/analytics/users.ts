/**
 * The dashboard's analytics of users (docs/dashboard.md), from the archived event log
 * (`laurel_log`): when each user was first seen (their first entry of any kind: the one their
 * creation logged), the users new in a range with whether they were active again 14 days or more
 * after their first day, and the weekly active users of each day (users with an event in the 7 days
 * ending that day). Unlike the daily figures (src/postgres/analytics/days.ts), this reads every
 * batch up to the range's end: a user's first entry may be older than the range (`everyBatch`:
 * every batch, as src/postgres/analytics/days.ts says why). Days are UTC days.
 */
import type pg from 'pg';

const DAY_MS = 86_400_000;

/** A user first seen in the range. */
export interface NewUser {
  userId: string;
  /** The first entry's time (ms). */
  first: number;
  /** An event on the 14th day after the first one's or later, up to the range's end. */
  retained: boolean;
}

export interface UsersAnalytics {
  newUsers: NewUser[];
  /** Weekly active users by day (YYYY-MM-DD), the days of the range only. */
  weeklyActive: Map<string, number>;
}

/** [from, to] (YYYY-MM-DD, both included). */
export async function analyticsUsers(
  pool: pg.Pool, prefix: string, tenant: string, from: string, to: string, everyBatch = false,
): Promise<UsersAnalytics> {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
  const { rows } = await pool.query<{ what: 'new' | 'wau'; u: string | null; n: number; flag: boolean | null }>(
    `WITH lines AS (
       SELECT split_part(x.line, E'\\t', 2) AS kind, split_part(x.line, E'\\t', 3)::jsonb AS body
       FROM laurel_log l CROSS JOIN LATERAL string_to_table(l.lines, E'\\n') AS x(line)
       WHERE l.prefix = $1 AND ($5 OR l.first_at < to_timestamp($4::float8 / 1000.0))
     ), mine AS (
       SELECT kind, body->>'u' AS u, (body->>'ts')::float8 AS ms FROM lines
       WHERE coalesce(body->>'t', '') = $2 AND body ? 'u' AND body ? 'ts'
     ), firsts AS (
       SELECT u, min(ms) AS first FROM mine GROUP BY u
     ), active AS (
       SELECT DISTINCT u, floor(ms / ${DAY_MS})::int AS day FROM mine
       WHERE kind = 'event' AND ms >= $3::float8 - ${6 * DAY_MS} AND ms < $4::float8
     )
     SELECT 'new' AS what, f.u, f.first AS n,
            EXISTS (SELECT 1 FROM active a WHERE a.u = f.u AND a.day >= floor(f.first / ${DAY_MS})::int + 14) AS flag
     FROM firsts f WHERE f.first >= $3::float8 AND f.first < $4::float8
     UNION ALL
     SELECT 'wau', to_char(to_timestamp(d::float8 * ${DAY_MS / 1000}) AT TIME ZONE 'UTC', 'YYYY-MM-DD'), count(DISTINCT a.u)::float8, NULL
     FROM generate_series(floor($3::float8 / ${DAY_MS})::int, floor($4::float8 / ${DAY_MS})::int - 1) AS d
     LEFT JOIN active a ON a.day BETWEEN d - 6 AND d
     GROUP BY d`,
    [prefix, tenant, start, end, everyBatch],
  );
  const newUsers: NewUser[] = [];
  const weeklyActive = new Map<string, number>();
  for (const r of rows) {
    // 'new': a user (u) and their first entry's time (n); 'wau': a day (u) and its weekly active
    // users (n).
    if (r.what === 'new') newUsers.push({ userId: r.u!, first: Number(r.n), retained: r.flag === true });
    else weeklyActive.set(r.u!, Number(r.n));
  }
  return { newUsers, weeklyActive };
}
