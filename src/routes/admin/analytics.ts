/**
 * Admin API: `GET /admin/v1/analytics?from=&to=` (laurel's own, for the dashboard:
 * docs/dashboard.md): the tenant's events, active, weekly active and new users and achievement
 * completions per day, events per metric, each achievement's completion in the range (the users who
 * completed it and their share of the range's active users), and the 14-day retention of the
 * control group against the rest, from the rollups the log drain keeps (Postgres:
 * src/postgres/analytics/rollups.ts; the distinct users over several days in Redis:
 * src/engine/analytics/active-users.ts), a few rows per day whatever the archive's size; and how the active streaks spread over lengths now
 * (src/engine/streaks/length-buckets.ts). The range defaults to the 14 days up to today (the
 * service's clock); at most 366 days.
 */
import type { Deps } from '../../engine/deps.js';
import { principalOf } from '../../http/auth.js';
import { ok, queryOf } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { fail } from '../../lib/errors.js';
import { achievementShares, RETENTION_DAYS, retentionCohort } from '../../domain/analytics.js';
import { countActiveUsers } from '../../engine/analytics/active-users.js';
import { streakLengths } from '../../engine/streaks/length-buckets.js';
import { analyticsDays } from '../../postgres/analytics/days.js';
import { analyticsAchievements } from '../../postgres/analytics/achievements.js';
import { analyticsRetention } from '../../postgres/analytics/users.js';
import type { AnalyticsView } from '../../model/views.js';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `date` moved by `n` days. */
function shift(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Each day of [from, to]. */
function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = shift(d, 1)) out.push(d);
  return out;
}

function dateOf(raw: string | null, name: string, fallback: string): string {
  if (raw === null || raw === '') return fallback;
  if (!DATE.test(raw) || Number.isNaN(Date.parse(`${raw}T00:00:00Z`)) || new Date(`${raw}T00:00:00Z`).toISOString().slice(0, 10) !== raw) {
    throw fail('invalid_query', `${name} must be a date, YYYY-MM-DD`);
  }
  return raw;
}

export function adminAnalyticsRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/analytics', family: 'admin',
    doc: {
      summary: 'The tenant\'s events, users and achievement completions per day, each achievement\'s completion, 14-day retention and streak lengths',
      query: [
        { name: 'from', schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, description: 'First day (UTC, YYYY-MM-DD); default 13 days before to' },
        { name: 'to', schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, description: 'Last day (UTC, YYYY-MM-DD); default today' },
      ],
      success: [200], response: { type: 'object' }, refusals: [503], tenant: true,
    },
    handler: async (req) => {
      const q = queryOf(req);
      const today = new Date(deps.clock.now()).toISOString().slice(0, 10);
      const to = dateOf(q.get('to'), 'to', today);
      const from = dateOf(q.get('from'), 'from', new Date(Date.parse(`${to}T00:00:00Z`) - 13 * DAY_MS).toISOString().slice(0, 10));
      const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS;
      if (span < 0) throw fail('invalid_query', 'from must not be after to');
      if (span > 365) throw fail('invalid_query', 'the range may span at most 366 days');
      // Postgres away or busy: 503 with Retry-After (src/http/server.ts).
      const pool = await deps.postgres();
      const tenant = principalOf(req).tenant;
      const snapshot = deps.store.current;
      const { prefix } = deps.settings;
      const cohort = retentionCohort(from, to);
      const dates = daysOf(from, to);
      // The range's active users, then each day's weekly active users (that day and the 6 before).
      const daySets = [dates, ...dates.map((d) => daysOf(shift(d, -6), d))];
      const [daily, completion, retention, active, streaks] = await Promise.all([
        analyticsDays(pool, prefix, tenant, from, to),
        analyticsAchievements(pool, prefix, tenant, from, to),
        cohort === null ? null : analyticsRetention(pool, prefix, tenant, cohort.from, cohort.to, to),
        countActiveUsers(deps, tenant, daySets),
        streakLengths(deps, tenant),
      ]);
      const days = daily.map((d, i) => ({
        date: d.date, events: d.events, activeUsers: d.activeUsers, weeklyActiveUsers: active[i + 1],
        newUsers: d.newUsers, completions: d.completions,
        byMetric: Object.fromEntries(Object.entries(d.byMetric).map(([id, n]) => [snapshot.metrics.get(id)?.key ?? id, n])),
      }));
      const none = { users: 0, retained: 0 };
      const achievements = achievementShares(snapshot.achievements.values(), completion, active[0]);
      const view: AnalyticsView = {
        from, to, days, activeUsers: active[0], achievements,
        retention: {
          days: RETENTION_DAYS, cohortFrom: cohort?.from ?? null, cohortTo: cohort?.to ?? null,
          control: retention?.control ?? none, rest: retention?.rest ?? none,
        },
        streaks,
      };
      return ok(view);
    },
  }];
}
