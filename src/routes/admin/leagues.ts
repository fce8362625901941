/**
 * Admin API for leagues (docs/api.md, "Leagues"): a run's tiers, each with its cohorts and their
 * participants (a key bound to a tenant reads its tenant's).
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { leagueSummary } from '../../engine/leaderboards/league-read.js';
import { cohortId, tierView } from '../../domain/leaderboards/league.js';
import { runFor } from '../../engine/leaderboards/board-of-query.js';
import { DATE_SCHEMA } from '../../domain/time.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import type { League, Leaderboard } from '../../model/entities.js';
import type { LeagueSummaryView } from '../../model/views.js';

export function adminLeagueRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'get', path: '/leaderboards/:id/league', family: 'admin', reach: 'tenant',
      doc: {
        summary: 'A league\'s run: its tiers, each with its cohorts and their participants',
        params: { id: { schema: { type: 'string' }, description: 'The leaderboard\'s id' } },
        query: [{ name: 'run', schema: DATE_SCHEMA, description: 'Any day of the run, YYYY-MM-DD (default: today\'s, UTC)' }],
        success: [200], refusals: [404], malformed: 422, tenant: true,
      },
      handler: async (req) => {
        const id = req.params[0];
        const raw = queryOf(req).get('run');
        const lb = deps.store.current.leaderboards.get(id);
        if (lb === undefined) throw fail('not_found', `Leaderboard "${id}"`);
        if (!lb.league) throw fail('not_found', `League of leaderboard "${id}" (it has none)`);
        const league = lb.league;
        const run = runFor(deps, lb, raw);
        const tiers = await leagueSummary(deps, principalOf(req).tenant, lb as Leaderboard & { league: League }, run.start);
        const answer: LeagueSummaryView = {
          leaderboardId: lb.id, key: lb.key, run: run.start, runEnd: run.end, cohortSize: league.cohortSize,
          tiers: tiers.map(({ tier, cohorts }) => ({
            ...tierView(league, tier),
            participants: cohorts.reduce((sum, c) => sum + c.participants, 0),
            cohorts: cohorts.map((c) => ({ cohort: cohortId(league, tier, c.n), participants: c.participants })),
          })),
        };
        return ok(answer);
      },
    },
  ];
}
