/**
 * Admin API: `GET /admin/v1/analytics?from=&to=` (laurel's own, for the dashboard:
 * docs/dashboard.md): the tenant's events, active, weekly active and new users and achievement
 * completions per day, events per metric, each achievement's completion in the range (the users who
 * completed it and their share of the range's active users), and the 14-day retention of the
 * control group against the rest, from the rollups the log drain keeps (Postgres:
 * src/postgres/analytics/rollups.ts; the distinct users over several days in Redis:
 * src/engine/analytics/active-users.ts), a few rows per day whatever the archive's size; and how the active streaks spread over lengths now
 * (src/engine/streaks/length-buckets.ts). The range defaults to the 14 days up to today (the
 * service's clock); at most ANALYTICS_MAX_DAYS (src/domain/analytics.ts), dates of laurel's
 * calendar (src/domain/time.ts).
 */
import type { Deps } from '../../engine/deps.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { fail } from '../../lib/errors.js';
import { ANALYTICS_MAX_DAYS, achievementShares, RETENTION_DAYS, retentionCohort } from '../../domain/analytics.js';
import { dateOfDay, dayIndexOf } from '../../domain/periods.js';
import { CALENDAR_FIRST, DATE_SCHEMA } from '../../domain/time.js';
import { countActiveUsers } from '../../engine/analytics/active-users.js';
import { streakLengths } from '../../engine/streaks/length-buckets.js';
import { achievementsCompleted, cohortRetention, rollupDays } from '../../engine/analytics/reports.js';
import type { AnalyticsView } from '../../model/views.js';

const DAY_MS = 86_400_000;

/** Each day of day indices [first, last], as YYYY-MM-DD (src/domain/periods.ts: no date text arithmetic). */
function daysOf(first: number, last: number): string[] {
  const out: string[] = [];
  for (let d = first; d <= last; d++) out.push(dateOfDay(d));
  return out;
}

export function adminAnalyticsRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/analytics', family: 'admin',
    doc: {
      summary: 'The tenant\'s events, users and achievement completions per day, each achievement\'s completion, 14-day retention and streak lengths',
      query: [
        { name: 'from', schema: DATE_SCHEMA, description: `First day (UTC, YYYY-MM-DD); default 13 days before to; at most ${ANALYTICS_MAX_DAYS - 1} days before to` },
        { name: 'to', schema: DATE_SCHEMA, description: 'Last day (UTC, YYYY-MM-DD); default today' },
      ],
      success: [200], response: { type: 'object' }, refusals: [503], tenant: true,
    },
    handler: async (req) => {
      const q = queryOf(req);
      // Dates of laurel's calendar, checked by queryOf (src/http/query.ts); then day indices.
      const to = q.get('to') ?? dateOfDay(Math.floor(deps.clock.now() / DAY_MS));
      const last = dayIndexOf(to);
      const from = q.get('from') ?? dateOfDay(Math.max(last - 13, dayIndexOf(CALENDAR_FIRST)));
      const first = dayIndexOf(from);
      if (first > last) throw fail('invalid_query', 'from must not be after to');
      if (last - first + 1 > ANALYTICS_MAX_DAYS) throw fail('invalid_query', `from and to may span at most ${ANALYTICS_MAX_DAYS} days`);
      // Postgres away or busy: 503 with Retry-After (src/http/server.ts).
      const tenant = principalOf(req).tenant;
      const snapshot = deps.store.current;
      const cohort = retentionCohort(from, to);
      const dates = daysOf(first, last);
      // The range's active users, then each day's weekly active users (that day and the 6 before).
      const daySets = [dates, ...dates.map((_, i) => daysOf(first + i - 6, first + i))];
      const [daily, completion, retention, active, streaks] = await Promise.all([
        rollupDays(deps, tenant, from, to),
        achievementsCompleted(deps, tenant, from, to),
        cohort === null ? null : cohortRetention(deps, tenant, cohort.from, cohort.to, to),
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
