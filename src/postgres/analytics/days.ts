/**
 * The dashboard's daily analytics (docs/dashboard.md), read from the rollups
 * (src/postgres/analytics/rollups.ts): one row per day of the range and one per metric and day,
 * whatever the archive's size. Days are UTC days of the service's clock at the entry.
 */
import type pg from 'pg';

export interface AnalyticsDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  events: number;
  /** Users with an event or an API completion that day. */
  activeUsers: number;
  /** Users first seen that day. */
  newUsers: number;
  /** Achievements completed that day (events' and API completions'). */
  completions: number;
  /** Events by metric id. */
  byMetric: Record<string, number>;
}

/** Each day of [from, to] (YYYY-MM-DD, both included) with its figures, a day without any at 0. */
export async function analyticsDays(pool: pg.Pool, prefix: string, tenant: string, from: string, to: string): Promise<AnalyticsDay[]> {
  const [days, metrics] = await Promise.all([
    pool.query<{ date: string; events: string; active_users: string; new_users: string; completions: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS date, events, active_users, new_users, completions FROM laurel_rollup_days
       WHERE prefix = $1 AND tenant = $2 AND day BETWEEN $3::date AND $4::date`,
      [prefix, tenant, from, to],
    ),
    pool.query<{ date: string; metric: string; events: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS date, metric, events FROM laurel_rollup_metrics
       WHERE prefix = $1 AND tenant = $2 AND day BETWEEN $3::date AND $4::date`,
      [prefix, tenant, from, to],
    ),
  ]);
  const out = new Map<string, AnalyticsDay>();
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= end; ms += 86_400_000) {
    const date = new Date(ms).toISOString().slice(0, 10);
    out.set(date, { date, events: 0, activeUsers: 0, newUsers: 0, completions: 0, byMetric: {} });
  }
  for (const r of days.rows) {
    const day = out.get(r.date);
    if (day === undefined) continue;
    day.events = Number(r.events);
    day.activeUsers = Number(r.active_users);
    day.newUsers = Number(r.new_users);
    day.completions = Number(r.completions);
  }
  for (const r of metrics.rows) {
    const day = out.get(r.date);
    if (day !== undefined && Number(r.events) > 0) day.byMetric[r.metric] = Number(r.events);
  }
  return [...out.values()];
}
