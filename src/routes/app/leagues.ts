/**
 * League reads of the Application API (docs/api.md, "Leagues"): a user's tier and cohort in the
 * run of their own date (or an earlier one, with their outcome once it is final), with the whole
 * cohort ranked (public fields only: a key scoped to the user reads it), and the cohort a query
 * names (`GET /v1/leaderboards/{key}?cohort=`).
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { boardUser } from '../../engine/leaderboards/read.js';
import { userLeague } from '../../engine/leaderboards/league-read.js';
import { leagueBoard, runFor } from '../../engine/leaderboards/board-of-query.js';
import { cohortId, tierView, zoneOf, zoneOfOutcome } from '../../domain/leaderboards/league.js';
import { percentileOf } from '../../domain/leaderboards/cap.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { DATE_SCHEMA } from '../../domain/time.js';
import { userTime } from '../../domain/clock.js';
import { queryOf } from '../../http/query.js';
import { checkUserId, USER_ID_PARAM } from '../../domain/users.js';
import type { UserLeagueView } from '../../model/views.js';

export function leagueRoutes(deps: Deps): Route[] {
  const { clock } = deps;
  return [
    {
      method: 'get', path: '/users/:id/leagues/:key', family: 'app', subject: 'path',
      doc: {
        summary: 'The user\'s tier and cohort in the league of a board, the whole cohort ranked',
        params: { id: USER_ID_PARAM, key: { schema: { type: 'string' }, description: 'The leaderboard\'s key' } },
        query: [{ name: 'run', schema: DATE_SCHEMA, description: 'Any day of the run, YYYY-MM-DD (default: the run of the user\'s own date)' }],
        success: [200], refusals: [404], malformed: 422,
      },
      handler: async (req) => {
        const id = req.params[0];
        const raw = queryOf(req).get('run');
        checkUserId(id);
        const lb = leagueBoard(deps, req.params[1]);
        const tenant = principalOf(req).tenant;
        const user = await boardUser(deps, tenant, lb, id);
        if (user === null) throw fail('user_not_found', id);
        // The run asked for, or the run of the user's own date: the one their events count in.
        const run = runFor(deps, lb, raw, raw === null ? userTime(user.tz, user.clock, clock.now()).date : undefined);
        const { tier, cohort } = await userLeague(deps, tenant, lb, id, run.start);
        const participants = cohort?.rankings.length ?? 0;
        const answer: UserLeagueView = {
          key: lb.key, name: lb.name, tier: tierView(lb.league, tier), run: run.start, runEnd: run.end,
          cohort: cohort === null ? null : cohortId(lb.league, cohort.place.tier, cohort.place.cohort),
          rank: cohort?.rank ?? null, value: cohort?.value ?? null, participants,
          // A final run's zone is the one its outcome was decided in (the ranks may have moved since: an erasure).
          zone: cohort?.rank == null ? null : cohort.outcome !== null ? zoneOfOutcome(cohort.outcome.outcome) : zoneOf(lb.league, tier, cohort.rank, participants),
          outcome: cohort?.outcome?.outcome ?? null,
          rankings: (cohort?.rankings ?? []).map((p) => ({
            userId: p.userId, userName: p.userName, rank: p.rank, value: p.value, percentile: percentileOf(p.rank, participants),
          })),
        };
        return ok(answer);
      },
    },
  ];
}
