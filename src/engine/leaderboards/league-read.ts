/**
 * A league's reads (docs/api.md, "Leagues"): a user's tier and cohort in a run with the whole
 * cohort ranked, and a run's tiers with their cohorts and participants. The stored forms are
 * src/redis/leagues.ts's and src/redis/rankings.ts's; a cohort's page through the board's reads
 * (read.ts, a RunRef with its cohort).
 */
import { MAX_COHORT, tierIn } from '../../domain/leaderboards/league.js';
import type { League, Leaderboard } from '../../model/entities.js';
import { cohortCount, readLeaguePlace, type LeaguePlace } from '../../redis/leagues.js';
import { participantsOf, readPlaces, type Place } from '../../redis/rankings.js';
import type { Context } from '../context.js';
import { named } from './read.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** A user in a league's run: their tier, and their cohort's place with the cohort ranked (null: not in one this run). */
export interface UserLeague {
  tier: number;
  cohort: {
    place: LeaguePlace;
    rank: number | null;
    value: number | null;
    rankings: (Place & { userName: string | null })[];
  } | null;
}

/** A cohort's whole ranking with its users' names. */
async function cohortRankings(deps: Deps, tenant: string, lb: Leaderboard, place: LeaguePlace) {
  const k = deps.keys.leagueCohort(tenant, lb.id, place.run, place.tier, place.cohort);
  return named(deps, tenant, await readPlaces(deps.redis, k.ranking, 0, MAX_COHORT));
}

/**
 * The league of `lb` for a user in `run`: the tier they carry (the lowest for a user never placed),
 * and, once placed in the run, their cohort ranked.
 */
export async function userLeague(deps: Deps, tenant: string, lb: Leaderboard & { league: League }, userId: string, run: string): Promise<UserLeague> {
  const held = await readLeaguePlace(deps.redis, deps.keys.forUser(tenant, userId).user, lb.id);
  const tier = tierIn(lb.league, held?.tier ?? null);
  if (held === null || held.run !== run) return { tier, cohort: null };
  const place = { ...held, tier };
  const rankings = await cohortRankings(deps, tenant, lb, place);
  const mine = rankings.find((p) => p.userId === userId);
  return { tier, cohort: { place, rank: mine?.rank ?? null, value: mine?.value ?? null, rankings } };
}

/** A run's tier: its cohorts (their numbers from 0) and each one's participants. */
export interface TierSummary {
  tier: number;
  cohorts: { n: number; participants: number }[];
}

/** Every tier of a league's run, with its cohorts' participants (each counted on its own slot, read together). */
export async function leagueSummary(deps: Deps, tenant: string, lb: Leaderboard & { league: League }, run: string): Promise<TierSummary[]> {
  const { redis, keys } = deps;
  return Promise.all(lb.league.tiers.map(async (_, tier) => {
    const count = await cohortCount(redis, keys.leagueTier(tenant, lb.id, run, tier));
    const participants = await Promise.all(Array.from({ length: count }, (_, n) => participantsOf(redis, keys.leagueCohort(tenant, lb.id, run, tier, n).ranking)));
    return { tier, cohorts: participants.map((p, n) => ({ n, participants: p })) };
  }));
}
