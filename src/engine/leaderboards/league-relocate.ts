/**
 * An early joiner moved (docs/api.md, "Leagues"): a step of a league's finalisation
 * (src/engine/leaderboards/league-final.ts), for a user whose run's outcome moved the tier they
 * carry (lua/leagueMove-1.lua) while they already held a place in a later run, in a cohort of
 * their old tier (a run ends at each user's local midnight, its finalisation waits for the last
 * zone: most users active early in a run joined it before the run before was final). They go to
 * the open cohort of their new tier in that run, with what they hold there.
 *
 * Four slots, one script each, in this order:
 * 1. the new tier's cohorts (lua/leagueJoin-1.lua): the user joins its open cohort as any joiner
 *    does (none ever overfills; joining again answers the same cohort);
 * 2. the old cohort (lua/leagueDepart-6.lua): the user leaves its ranking (the cohort is one
 *    smaller: their seat is not given to another joiner), and the cohort keeps a mark naming the
 *    new one with what they held, so it ranks them no more (a placement that read the old place
 *    is ranked in the new cohort instead: src/engine/leaderboards/league-place.ts), and a second
 *    call answers the same without changing anything;
 * 3. the new cohort (lua/leaderboardRank-8.lua): what they held placed, with its order (ties) and
 *    its event's log entry id, so an event placed there first keeps its later value, and awards
 *    count once by their number;
 * 4. the user's hash (lua/leagueShift-2.lua): the place kept with them moved to the new cohort,
 *    only while it is the old one; the seat of step 1 logged there as any join's is (a `league`
 *    entry), for a restore to seat the new tier as it was.
 * The step to do is read from the user's place (a later run's place whose tier is not the one the
 * user carries, moved by this run), so a pass killed at any point, or a second worker doing the
 * same at once, does the remaining steps again, each of which changes nothing done already: the
 * user is moved once, and is never in two cohorts.
 *
 * The early joiners of one cohort move together, their joins (step 1) in the order they are given
 * (the cohort's ranking): sent one after the other without waiting, so the connection to each
 * tier's slot carries them in that order, and a pass made again, or a restore's replay of the
 * run's finalisation, seats them in the same cohorts.
 */
import { NO_CAP } from '../../domain/leaderboards/cap.js';
import { tierIn } from '../../domain/leaderboards/league.js';
import type { League, Leaderboard } from '../../model/entities.js';
import { leagueEntry } from '../../model/log.js';
import { dotted, readLeaguePlace, type HeldPlace } from '../../redis/leagues.js';
import * as leaderboardRank from '../../redis/scripts/leaderboardRank.js';
import * as leagueDepart from '../../redis/scripts/leagueDepart.js';
import * as leagueJoin from '../../redis/scripts/leagueJoin.js';
import * as leagueShift from '../../redis/scripts/leagueShift.js';
import { orderOfMember } from '../../redis/rankings.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock'>;

/** The folded part of a user's awards in a cohort (lua/leaderboardRank-8.lua): its sum and the highest number folded. */
const FOLDED = 'b';
const WATERMARK = 'w';

/** Whether a place kept with a user is an early joiner's that `run`'s outcome moved to another tier: a later run's, in a cohort of the old tier. */
export function isEarlyJoiner(league: League, held: HeldPlace | null, run: string): held is HeldPlace {
  return held !== null && held.run > run && held.movedBy === run && tierIn(league, held.next) !== tierIn(league, held.tier);
}

/**
 * Moves each of `userIds` (in that order) to a cohort of their new tier in the later run they hold
 * a place in, when `run`'s outcome moved their tier; answers how many it moved.
 */
export async function relocateEarlyJoiners(
  deps: Deps, tenant: string, lb: Leaderboard & { league: League }, run: string, userIds: string[],
): Promise<number> {
  const { redis, keys, clock } = deps;
  const { league } = lb;
  const held = await Promise.all(userIds.map((u) => readLeaguePlace(redis, keys.forUser(tenant, u).user, lb.id)));
  const moving = userIds.flatMap((userId, i) => {
    const place = held[i];
    return isEarlyJoiner(league, place, run) ? [{ userId, held: place }] : [];
  });
  // Joined in order: each call sends its command before the next one is made.
  const seats = await Promise.all(moving.map(({ userId, held: h }) =>
    leagueJoin.run(redis, keys.leagueTier(tenant, lb.id, h.run, tierIn(league, h.next)), userId, league.cohortSize)));
  const now = clock.now();
  await Promise.all(moving.map(({ userId, held: h }, i) => moveTo(deps, tenant, lb, userId, h, seats[i], now)));
  return moving.length;
}

/** Steps 2 to 4 for a user given `seat` in their new tier. */
async function moveTo(
  deps: Deps, tenant: string, lb: Leaderboard & { league: League }, userId: string, held: HeldPlace, seat: leagueJoin.Seat, now: number,
): Promise<void> {
  const { redis, keys } = deps;
  const { league } = lb;
  const { user, log } = keys.forUser(tenant, userId);
  const { cohort } = seat;
  const from = { tier: tierIn(league, held.tier), run: held.run, cohort: held.cohort };
  const tier = tierIn(league, held.next);
  const left = await leagueDepart.run(redis, keys.leagueCohort(tenant, lb.id, held.run, from.tier, from.cohort), userId, dotted(tier, cohort), now);
  if (left.member !== '') {
    const order = orderOfMember(left.member);
    // '<': a cohort they left before (moved out by an earlier outcome, back by this one) takes them back.
    await leaderboardRank.run(
      redis, keys.leagueCohort(tenant, lb.id, held.run, tier, cohort), userId, left.value, order, NO_CAP, now, '', `<${left.seq}`, awardPairs(left.awards),
    );
  }
  const entry = leagueEntry({ t: tenant, u: userId, ts: now, b: lb.id, r: held.run, c: dotted(tier, cohort), n: leagueJoin.tierState(seat) });
  await leagueShift.run(redis, user, log, lb.id, { ...from, tier: held.tier }, { tier, run: held.run, cohort }, entry);
}

/**
 * The awards a user held in a cohort as number / points pairs (undefined: none, the value is
 * absolute). The folded sum goes as one award numbered by the highest number folded, which the new
 * cohort has not folded.
 */
function awardPairs(all: string[]): string[] | undefined {
  if (all.length === 0) return undefined;
  const pairs: string[] = [];
  let folded: string | null = null;
  let watermark: string | null = null;
  for (let i = 0; i + 1 < all.length; i += 2) {
    if (all[i] === FOLDED) folded = all[i + 1];
    else if (all[i] === WATERMARK) watermark = all[i + 1];
    else pairs.push(all[i], all[i + 1]);
  }
  if (folded !== null && watermark !== null) pairs.push(watermark, folded);
  return pairs;
}
