/**
 * What the board reads of the APIs share: the board a path names, the run a query names, and a
 * league's board and cohort (src/routes/app/leaderboards.ts, src/routes/app/leagues.ts,
 * src/routes/admin/leagues.ts).
 */
import type { Deps } from '../deps.js';
import { fail } from '../../lib/errors.js';
import { parseCohortId } from '../../domain/leaderboards/league.js';
import { lastDayOf, runOf } from '../../domain/leaderboards/runs.js';
import { dateOfDay } from '../../domain/periods.js';
import type { League, Leaderboard } from '../../model/entities.js';
import { cohortCount } from '../../redis/leagues.js';

/** A board users may see (not inactive); 404 otherwise. */
export function visibleBoard(deps: Pick<Deps, 'store'>, key: string): Leaderboard {
  const lb = deps.store.current.leaderboardsByKey.get(key);
  if (lb === undefined || lb.status === 'inactive') throw fail('not_found', `Leaderboard "${key}"`);
  return lb;
}

/**
 * The run `raw` names (`run=YYYY-MM-DD`, any day of it), or without one the run of `today`
 * (default: the UTC date; a user's own read passes the user's local date, the run their events go
 * to), the last once the board finished (by its end, or by an admin, whose day is then its last).
 */
export function runFor(deps: Pick<Deps, 'clock'>, lb: Leaderboard, raw: string | null, today?: string): { start: string; end: string | null } {
  const last = lastDayOf(lb);
  let date: string;
  if (raw !== null) {
    // A date of laurel's calendar: checked by queryOf (src/http/query.ts).
    if (last !== null && raw > last) throw fail('not_found', `Run "${raw}" of leaderboard "${lb.key}" (it ranked up to ${last})`);
    date = raw;
  } else {
    date = today ?? dateOfDay(Math.floor(deps.clock.now() / 86_400_000));
    if (last !== null && date > last) date = last;
    if (date < lb.start) date = lb.start;
  }
  const run = runOf(lb, date);
  if (run === null) throw fail('not_found', `Run "${raw}" of leaderboard "${lb.key}"`);
  return run;
}

/** A board users see that carries a league; 404 otherwise. */
export function leagueBoard(deps: Pick<Deps, 'store'>, key: string): Leaderboard & { league: League } {
  const lb = visibleBoard(deps, key);
  if (!lb.league) throw fail('not_found', `League of leaderboard "${key}" (it has none)`);
  return lb as Leaderboard & { league: League };
}

/**
 * The cohort a query names in a run of `lb` (its tier index and number from 0): 422 on a board
 * without a league, 404 for a cohort the run has not opened.
 */
export async function cohortOfQuery(deps: Deps, tenant: string, lb: Leaderboard, run: string, raw: string): Promise<{ tier: number; n: number }> {
  if (!lb.league) throw fail('invalid_query', `cohort applies to a league's board only: leaderboard "${lb.key}" has no league`);
  const cohort = parseCohortId(lb.league, raw);
  if (cohort === null) throw fail('not_found', `Cohort "${raw}" of leaderboard "${lb.key}"`);
  if (cohort.n >= await cohortCount(deps.redis, deps.keys.leagueTier(tenant, lb.id, run, cohort.tier))) throw fail('not_found', `Cohort "${raw}" of leaderboard "${lb.key}" in run ${run}`);
  return cohort;
}
