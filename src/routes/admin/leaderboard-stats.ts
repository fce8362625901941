/**
 * Admin API for a board's statistics (docs/api.md, "A board's statistics"): a run's
 * participants, rank changes and score distribution, and the participants of the runs before it
 * (a key bound to a tenant reads its tenant's).
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { runFor } from '../../engine/leaderboards/board-of-query.js';
import { boardStats } from '../../engine/leaderboards/stats.js';
import { DATE_SCHEMA } from '../../domain/time.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import type { LeaderboardStatsView } from '../../model/views.js';

export function adminLeaderboardStatsRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'get', path: '/leaderboards/:id/stats', family: 'admin', reach: 'tenant',
      doc: {
        summary: 'A board\'s statistics: a run\'s participants, rank changes and score distribution, and the runs before it',
        params: { id: { schema: { type: 'string' }, description: 'The leaderboard\'s id, or its key' } },
        query: [{ name: 'run', schema: DATE_SCHEMA, description: 'Any day of the run, YYYY-MM-DD (default: today\'s, UTC)' }],
        success: [200], refusals: [404], malformed: 422, tenant: true,
      },
      handler: async (req) => {
        const id = req.params[0];
        const lb = deps.store.current.leaderboards.get(id) ?? deps.store.current.leaderboardsByKey.get(id);
        if (lb === undefined) throw fail('not_found', `Leaderboard "${id}"`);
        const run = runFor(deps, lb, queryOf(req).get('run'));
        const stats = await boardStats(deps, principalOf(req).tenant, lb, run);
        const answer: LeaderboardStatsView = { leaderboardId: lb.id, key: lb.key, run: run.start, runEnd: run.end, ...stats };
        return ok(answer);
      },
    },
  ];
}
