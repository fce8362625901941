/**
 * A user's place in a league's cohort (docs/api.md, "Leagues"), part of phase 2 of whatever ranks
 * them on a league's board (src/engine/leaderboards/rank-user.ts place): the cohort of the run is
 * found, or joined, then the user's value is placed in the cohort's own ranking.
 *
 * Three slots, one script each, in this order:
 * 1. the user's hash (their slot): the place kept with them, '<tier>|<run>|<cohort>' (on the event
 *    path read by the event's own script in phase 1, src/engine/event/phase2.ts). Kept for this
 *    run: steps 2 and 3 are skipped.
 * 2. the tier's cohorts in the run (a slot per tier and run, lua/leagueJoin-1.lua): the user joins
 *    the open cohort, which none ever overfills; a user who joined already gets their cohort again.
 * 3. the user's hash again (lua/leagueKeep-2.lua): the place kept, unless a later run's is (or
 *    this run's: the place kept first is the user's), or an outcome moved the tier the user
 *    carries since step 1 read it: then steps 2 and 3 again, in the tier carried now. The join is
 *    logged there (a `league` entry in the user's partition's log, naming the entry whose
 *    placement joined): the order of the events' entries is not the order of their joins, which
 *    a restore seats again from these (src/engine/durability/league-seats.ts).
 * 4. the cohort's ranking (a slot per cohort, lua/leaderboardRank-8.lua): the user's absolute
 *    value (or the run's awards by number), as on a board.
 * Each step is idempotent, and a later one is only reached once the earlier ones are done: a
 * process that dies between two leaves the user joined (2) but not kept (3), or kept but not
 * ranked (4); the next placement of the user (their next event, or the log drainer placing a dead
 * process's events again: src/engine/durability/replay-phase2.ts) finds the same cohort and ranks
 * them. Two events of a new user at once join the same cohort (2 answers it to both), and keep the
 * same place. A user joins a cohort only by being placed: only users active in a run are in one.
 * A user the finalisation of the run before moved to another cohort of this run
 * (src/engine/leaderboards/league-relocate.ts) is refused by the cohort they left, which names the
 * one they are in now: a placement that read the place before the move ranks them there instead,
 * so each event counts in one cohort.
 */
import { NO_CAP } from '../../domain/leaderboards/cap.js';
import { tierIn } from '../../domain/leaderboards/league.js';
import type { Leaderboard } from '../../model/entities.js';
import { leagueEntry } from '../../model/log.js';
import { dotted, dottedOf, leaguePlaceOf, readLeaguePlace, type LeaguePlace } from '../../redis/leagues.js';
import * as leaderboardRank from '../../redis/scripts/leaderboardRank.js';
import * as leagueJoin from '../../redis/scripts/leagueJoin.js';
import * as leagueKeep from '../../redis/scripts/leagueKeep.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

/** What a league placement ranks: the value (or awards) the board's own placement has, in `order`. */
export interface LeagueValue {
  value: string;
  awards?: string[];
  order: string;
  /** The event's log entry id, or '' (lua/leaderboardRank-8.lua ARGV[7]). */
  seq: string;
}

/** Joins made again after an outcome moved the tier carried, before the place is kept whatever the tier. */
const MAX_REJOINS = 3;

/** When a placement joins, and the log entry it places ('': none), which its `league` entry names. */
export interface JoinCause {
  now: number;
  seq: string;
}

/**
 * The user's cohort of `run` in the league of `lb`: kept with them, or joined now; null for a user
 * gone. `read`: the place as read already (the user hash's field, null when absent), or undefined
 * to read it here. A place read earlier is one a placement may always find: the place can move only
 * by a join (found again below: the join answers the cohort the user holds) or by an outcome (the
 * cohort the user left refuses the placement and names the one they are in: placeInLeague).
 */
export async function cohortOf(
  deps: Deps, tenant: string, userId: string, lb: Leaderboard, run: string, cause: JoinCause, hold?: () => void, read?: string | null,
): Promise<LeaguePlace | null> {
  const league = lb.league;
  if (!league) return null;
  const { redis, keys } = deps;
  const { user, log } = keys.forUser(tenant, userId);
  hold?.();
  for (let attempt = 0; ; attempt++) {
    const held = attempt === 0 && read !== undefined ? leaguePlaceOf(read) : await readLeaguePlace(redis, user, lb.id);
    if (held !== null && held.run === run) return { tier: tierIn(league, held.tier), run, cohort: held.cohort };
    // A new user starts in the lowest tier; the others in the tier they carry (moved by the outcome
    // of the runs finalised since they last joined: lua/leagueMove-1.lua).
    const tier = tierIn(league, held?.next ?? null);
    const seat = await leagueJoin.run(redis, keys.leagueTier(tenant, lb.id, run, tier), userId, league.cohortSize);
    const place = { tier, run, cohort: seat.cohort };
    const entry = leagueEntry({
      t: tenant, u: userId, ts: cause.now, b: lb.id, r: run, c: dotted(tier, seat.cohort), n: leagueJoin.tierState(seat), e: cause.seq === '' ? undefined : cause.seq,
    });
    // An outcome moved the tier carried since it was read: joined again in the tier carried now
    // (a few times at most: one run's outcome moves it once), this join only holding a seat.
    const kept = await leagueKeep.run(redis, user, log, lb.id, place, held === null || attempt >= MAX_REJOINS ? null : held.next, entry);
    if (kept.kept === 'moved') continue;
    if (kept.kept === 'gone') return null;
    // Another placement of the user kept this run's place first: that place is the user's, this
    // join only holds a seat.
    if (kept.kept === 'held') return { ...kept.place, tier: tierIn(league, kept.place.tier) };
    return place;
  }
}

/** A user placed in a cohort: where, and their rank there now and before (0: not ranked before). */
export interface CohortPlacement {
  place: LeaguePlace;
  rank: number;
  previousRank: number;
}

/**
 * Places the user in their cohort of `run` (joined first when new to it); null for a user gone.
 * `read`: the user's place as read already (cohortOf).
 */
export async function placeInLeague(
  deps: Deps, tenant: string, userId: string, lb: Leaderboard, run: string, v: LeagueValue, now: number, hold?: () => void, read?: string | null,
): Promise<CohortPlacement | null> {
  let place = await cohortOf(deps, tenant, userId, lb, run, { now, seq: v.seq }, hold, read);
  if (place === null) return null;
  for (let redirects = 0; ; redirects++) {
    const k = deps.keys.leagueCohort(tenant, lb.id, run, place.tier, place.cohort);
    hold?.();
    const [rank, previousRank, , , movedTo] = await leaderboardRank.run(
      deps.redis, k, userId, v.value, v.order, NO_CAP, now, '', v.seq, v.awards,
    );
    // Moved out of this cohort by the outcome of the run before, after this placement read it:
    // ranked in the cohort the user is in now (which never names another).
    const moved = movedTo === undefined ? null : dottedOf(movedTo);
    if (moved === null || redirects >= 2) return { place, rank, previousRank };
    place = { tier: moved[0], run, cohort: moved[1] };
  }
}
