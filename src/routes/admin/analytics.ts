/**
 * Admin API: `GET /admin/v1/analytics?from=&to=` (laurel's own, for the dashboard:
 * docs/dashboard.md): the tenant's events, active, weekly active and new users and achievement
 * completions per day, events per metric, each achievement's completion in the range (the users who
 * completed it and their share of the range's active users), and the 14-day retention of the
 * control group against the rest, from the archived event log in Postgres
 * (src/postgres/analytics/days.ts, src/postgres/analytics/users.ts,
 * src/postgres/analytics/achievements.ts); and how the active streaks spread over lengths now
 * (src/engine/streaks/length-buckets.ts). The range defaults to the 14 days up to today (the
 * service's clock); at most 366 days.
 */
import type { Deps } from '../../engine/deps.js';
import { principalOf } from '../../http/auth.js';
import { ok, queryOf } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { fail } from '../../lib/errors.js';
import { achievementShares, retentionOf } from '../../domain/analytics.js';
import { streakLengths } from '../../engine/streaks/length-buckets.js';
import { analyticsDays } from '../../postgres/analytics/days.js';
import { analyticsAchievements } from '../../postgres/analytics/achievements.js';
import { analyticsUsers } from '../../postgres/analytics/users.js';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

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
      // Under the manual clock, the batches' times (Redis's) say nothing of the entries'
      // (src/postgres/analytics/days.ts).
      const everyBatch = deps.settings.clock === 'manual';
      const [daily, users, completion, streaks] = await Promise.all([
        analyticsDays(pool, deps.settings.prefix, tenant, from, to, everyBatch),
        analyticsUsers(pool, deps.settings.prefix, tenant, from, to, everyBatch),
        analyticsAchievements(pool, deps.settings.prefix, tenant, from, to, everyBatch),
        streakLengths(deps, tenant),
      ]);
      const newByDay = new Map<string, number>();
      for (const u of users.newUsers) {
        const day = new Date(u.first).toISOString().slice(0, 10);
        newByDay.set(day, (newByDay.get(day) ?? 0) + 1);
      }
      const days = daily.map((d) => ({
        date: d.date, events: d.events, activeUsers: d.activeUsers, weeklyActiveUsers: users.weeklyActive.get(d.date) ?? 0,
        newUsers: newByDay.get(d.date) ?? 0, completions: d.completions,
        byMetric: Object.fromEntries(Object.entries(d.byMetric).map(([id, n]) => [snapshot.metrics.get(id)?.key ?? id, n])),
      }));
      const retention = retentionOf(users.newUsers, snapshot.notifications, tenant, from, to);
      const achievements = achievementShares(snapshot.achievements.values(), completion.users, completion.activeUsers);
      return ok({ from, to, days, activeUsers: completion.activeUsers, achievements, retention, streaks });
    },
  }];
}
