/**
 * What a steady variant's events did, read from laurel's own records once its drain has copied
 * them (bench/README.md, "The steady-state workload"): the event entries of the log's archive
 * (`laurel_log`, src/postgres/log-archive.ts) whose time falls in the load, and the directory's
 * rows (`laurel_rollup_users`, src/postgres/analytics/rollups.ts) first seen in it.
 * - a streak started: the entry carries the streak after an extension (`sx`, src/model/log.ts)
 *   whose length (its second field, lua/includes/streak.lua packStreak) is 1; extended: longer;
 * - achievements completed: the ids in its `ac`;
 * - users created: the directory's rows whose first event falls in the load.
 * A board's move leaves no entry in the log (phase 2 ranks it): not counted here.
 */
import pg from 'pg';

export interface SteadyOutcomes {
  events: number;
  usersCreated: number;
  streaksStarted: number;
  streaksExtended: number;
  achievements: number;
}

const EVENTS_SQL = `
  WITH lines AS (
    SELECT split_part(e.line, E'\\t', 2) AS kind, split_part(e.line, E'\\t', 3)::jsonb AS body
    FROM laurel_log l CROSS JOIN LATERAL string_to_table(l.lines, E'\\n') AS e(line)
    WHERE l.prefix = $1 AND l.last_at >= to_timestamp($2 / 1000.0)
  ), events AS (
    SELECT body, nullif(split_part(body->>'sx', '|', 2), '')::int AS len FROM lines
    WHERE kind = 'event' AND (body->>'ts')::float8 >= $2 AND (body->>'ts')::float8 < $3
  )
  SELECT count(*)::int AS events,
         (count(*) FILTER (WHERE len = 1))::int AS started,
         (count(*) FILTER (WHERE len > 1))::int AS extended,
         coalesce(sum(jsonb_array_length(body->'ac')) FILTER (WHERE jsonb_typeof(body->'ac') = 'array'), 0)::int AS achievements
  FROM events`;

const USERS_SQL = 'SELECT count(*)::int AS n FROM laurel_rollup_users WHERE prefix = $1 AND first_ms >= $2 AND first_ms < $3';

/** The outcomes of the events of `prefix` between `fromMs` and `toMs` (times of the events). */
export async function steadyOutcomes(databaseUrl: string, prefix: string, fromMs: number, toMs: number): Promise<SteadyOutcomes> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const e = (await db.query<{ events: number; started: number; extended: number; achievements: number }>(EVENTS_SQL, [prefix, fromMs, toMs])).rows[0];
    const u = (await db.query<{ n: number }>(USERS_SQL, [prefix, fromMs, toMs])).rows[0];
    return { events: e.events, usersCreated: u.n, streaksStarted: e.started, streaksExtended: e.extended, achievements: e.achievements };
  } finally {
    await db.end();
  }
}

/** Each outcome's median over rounds (one variant's). */
export function medianOutcomes(rounds: SteadyOutcomes[], median: (xs: number[]) => number): SteadyOutcomes | null {
  if (rounds.length === 0) return null;
  const of = (k: keyof SteadyOutcomes) => median(rounds.map((r) => r[k]));
  return { events: of('events'), usersCreated: of('usersCreated'), streaksStarted: of('streaksStarted'), streaksExtended: of('streaksExtended'), achievements: of('achievements') };
}
