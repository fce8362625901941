/**
 * The dashboard's analytics (docs/dashboard.md), computed from the archived event log
 * (`laurel_log`, src/postgres/log-archive.ts): only the batches whose time span meets the range are
 * read, and their lines parsed there. Days are UTC days of the service's clock at the event.
 *
 * A batch's span is in Redis's time (its entries' stream ids), an entry's `ts` in the service's:
 * under the manual clock the two have nothing to do with each other, and `everyBatch` reads every
 * batch instead.
 */
import type pg from 'pg';

export interface AnalyticsDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  events: number;
  /** Users with at least one event that day. */
  activeUsers: number;
  /** Achievements completed that day (events' and API completions'). */
  completions: number;
  /** Events by metric id. */
  byMetric: Record<string, number>;
}

/** Each day of [from, to] (YYYY-MM-DD, both included) with its figures, a day without any at 0. */
export async function analyticsDays(
  pool: pg.Pool, prefix: string, tenant: string, from: string, to: string, everyBatch = false,
): Promise<AnalyticsDay[]> {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + 86_400_000;
  const { rows } = await pool.query<{ date: string; kind: string; metric: string | null; total: number; events: string; users: string; completions: string }>(
    `WITH lines AS (
       SELECT split_part(x.line, E'\\t', 2) AS kind, split_part(x.line, E'\\t', 3)::jsonb AS body
       FROM laurel_log l CROSS JOIN LATERAL string_to_table(l.lines, E'\\n') AS x(line)
       WHERE l.prefix = $1 AND ($5 OR (l.last_at >= to_timestamp($3 / 1000.0) AND l.first_at < to_timestamp($4 / 1000.0)))
     ), mine AS (
       SELECT kind, body, (body->>'ts')::float8 AS ms FROM lines
       WHERE coalesce(body->>'t', '') = $2 AND kind IN ('event', 'achievement')
     )
     SELECT to_char(to_timestamp(ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, kind, body->>'m' AS metric,
            GROUPING(body->>'m') AS total,
            count(*) AS events, count(DISTINCT body->>'u') AS users,
            coalesce(sum(CASE WHEN jsonb_typeof(body->'ac') = 'array' THEN jsonb_array_length(body->'ac') ELSE 0 END), 0) AS completions
     FROM mine WHERE ms >= $3 AND ms < $4
     GROUP BY GROUPING SETS ((1, kind, body->>'m'), (1, kind))
     ORDER BY 1`,
    [prefix, tenant, start, end, everyBatch],
  );
  const days = new Map<string, AnalyticsDay>();
  for (let ms = start; ms < end; ms += 86_400_000) {
    const date = new Date(ms).toISOString().slice(0, 10);
    days.set(date, { date, events: 0, activeUsers: 0, completions: 0, byMetric: {} });
  }
  for (const r of rows) {
    const day = days.get(r.date);
    if (day === undefined) continue;
    // A row by metric (an API completion's has none: its metric is null there too, not a total).
    if (r.total === 0) {
      if (r.kind === 'event' && r.metric !== null) day.byMetric[r.metric] = Number(r.events);
      continue;
    }
    // The day's totals of a kind (the grouping set without the metric).
    if (r.kind === 'event') {
      day.events = Number(r.events);
      day.activeUsers = Number(r.users);
    }
    day.completions += Number(r.completions);
  }
  return [...days.values()];
}
