/**
 * Admin API for leagues (docs/api.md, "Leagues"): a run's tiers, each with its cohorts, their
 * participants and, once the run is final, how many moved up, down or stayed (a key bound to a
 * tenant reads its tenant's), a page of cohorts at a time: a league of a million users has tens of
 * thousands.
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { leagueSummary, summaryCursor, summaryPosition } from '../../engine/leaderboards/league-read.js';
import { cohortId, tierView } from '../../domain/leaderboards/league.js';
import { runFor } from '../../engine/leaderboards/board-of-query.js';
import { DATE_SCHEMA } from '../../domain/time.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import type { League, Leaderboard } from '../../model/entities.js';
import type { LeagueMovesView, LeagueSummaryView } from '../../model/views.js';

/** Cohorts a page holds at most, and by default. */
const MAX_COHORTS = 1000;
const DEFAULT_COHORTS = 100;

/** A tier's moves: its cohorts' added up. */
function sumMoves(cohorts: (LeagueMovesView | null)[]): LeagueMovesView {
  const sum: LeagueMovesView = { promoted: 0, demoted: 0, stayed: 0 };
  for (const c of cohorts) {
    if (c === null) continue;
    sum.promoted += c.promoted;
    sum.demoted += c.demoted;
    sum.stayed += c.stayed;
  }
  return sum;
}

export function adminLeagueRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'get', path: '/leaderboards/:id/league', family: 'admin', reach: 'tenant',
      doc: {
        summary: 'A league\'s run: its tiers, each with a page of its cohorts, their participants and, once the run is final, their moves',
        params: { id: { schema: { type: 'string' }, description: 'The leaderboard\'s id, or its key' } },
        query: [
          { name: 'run', schema: DATE_SCHEMA, description: 'Any day of the run, YYYY-MM-DD (default: today\'s, UTC)' },
          { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: MAX_COHORTS, default: DEFAULT_COHORTS }, description: 'Cohorts on the page, every tier\'s together' },
          { name: 'cursor', schema: { type: 'string', maxLength: 20, pattern: '^\\d+\\.\\d+$' }, description: 'The `next` of the page before' },
        ],
        success: [200], refusals: [404], malformed: 422, tenant: true,
      },
      handler: async (req) => {
        const id = req.params[0];
        const q = queryOf(req);
        const raw = q.get('run');
        const limit = q.int('limit');
        const cursor = q.get('cursor');
        const lb = deps.store.current.leaderboards.get(id) ?? deps.store.current.leaderboardsByKey.get(id);
        if (lb === undefined) throw fail('not_found', `Leaderboard "${id}"`);
        if (!lb.league) throw fail('not_found', `League of leaderboard "${id}" (it has none)`);
        const league = lb.league;
        const from = cursor === null ? undefined : summaryPosition(cursor, league.tiers.length);
        if (from === null) throw fail('invalid_query', 'cursor must be the `next` of a page before');
        const run = runFor(deps, lb, raw);
        const page = await leagueSummary(deps, principalOf(req).tenant, lb as Leaderboard & { league: League }, run.start, { from, limit });
        const { finalised } = page;
        const answer: LeagueSummaryView = {
          leaderboardId: lb.id, key: lb.key, run: run.start, runEnd: run.end, cohortSize: league.cohortSize, finalised,
          tiers: page.tiers.map(({ tier, cohortCount, cohorts }) => ({
            ...tierView(league, tier),
            cohortCount,
            participants: cohorts.reduce((sum, c) => sum + c.participants, 0),
            moves: finalised ? sumMoves(cohorts.map((c) => c.moves)) : null,
            cohorts: cohorts.map((c) => ({ cohort: cohortId(league, tier, c.n), participants: c.participants, moves: c.moves })),
          })),
          next: page.next === null ? null : summaryCursor(page.next),
        };
        return ok(answer);
      },
    },
  ];
}
