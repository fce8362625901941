/**
 * A league's reads (docs/api.md, "Leagues"): a user's tier and cohort in a run with the whole
 * cohort ranked (and their outcome once the run is final), and a run's tiers with their cohorts,
 * participants and moves. The stored forms are src/redis/leagues.ts's and src/redis/rankings.ts's;
 * a cohort's page through the board's reads (read.ts, a RunRef with its cohort).
 */
import { MAX_COHORT, tierIn } from '../../domain/leaderboards/league.js';
import type { League, Leaderboard } from '../../model/entities.js';
import {
  cohortCount, cohortMoves, cohortUserField, readLeaguePlace, readOutcome, type CohortOutcome, type LeaguePlace, type Outcome,
} from '../../redis/leagues.js';
import { participantsOf, readPlaces, type Place } from '../../redis/rankings.js';
import { isFinalised } from '../../redis/board-state.js';
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
    /** The user's outcome once the run is final (null before). */
    outcome: CohortOutcome | null;
  } | null;
}

/** A cohort's whole ranking with its users' names. */
async function cohortRankings(deps: Deps, tenant: string, lb: Leaderboard, place: LeaguePlace) {
  const k = deps.keys.leagueCohort(tenant, lb.id, place.run, place.tier, place.cohort);
  return named(deps, tenant, await readPlaces(deps.redis, k.ranking, 0, MAX_COHORT));
}

/**
 * The user's place in an earlier run than the one kept with them: the tier whose cohorts name the
 * user and whose cohort ranks them (a seat held by a placement that lost to another is not one);
 * each tier read on its own slot, together. Null: not in the run.
 */
async function pastPlace(deps: Deps, tenant: string, lb: Leaderboard & { league: League }, userId: string, run: string): Promise<LeaguePlace | null> {
  const { redis, keys } = deps;
  const joined = await Promise.all(lb.league.tiers.map((_, tier) => redis.hget(keys.leagueTier(tenant, lb.id, run, tier), cohortUserField(userId))));
  for (const [tier, n] of joined.entries()) {
    if (n === null) continue;
    const place = { tier, run, cohort: Number(n) };
    if ((await redis.hexists(keys.leagueCohort(tenant, lb.id, run, tier, place.cohort).members, userId)) === 1) return place;
  }
  return null;
}

/**
 * The league of `lb` for a user in `run`: in the run they last joined or an earlier one, the tier
 * of their cohort there, the cohort ranked and, once the run is final, their outcome; in a run
 * they are not in, the tier they carry (the lowest for a user never placed) and no cohort.
 */
export async function userLeague(deps: Deps, tenant: string, lb: Leaderboard & { league: League }, userId: string, run: string): Promise<UserLeague> {
  const held = await readLeaguePlace(deps.redis, deps.keys.forUser(tenant, userId).user, lb.id);
  const carried = tierIn(lb.league, held?.next ?? null);
  const found = held === null ? null : held.run === run ? held : held.run > run ? await pastPlace(deps, tenant, lb, userId, run) : null;
  if (found === null) return { tier: carried, cohort: null };
  const place = { run, cohort: found.cohort, tier: tierIn(lb.league, found.tier) };
  const [rankings, outcome] = await Promise.all([
    cohortRankings(deps, tenant, lb, place),
    readOutcome(deps.redis, deps.keys.leagueCohort(tenant, lb.id, run, place.tier, place.cohort).outcome, userId),
  ]);
  const mine = rankings.find((p) => p.userId === userId);
  return { tier: place.tier, cohort: { place, rank: mine?.rank ?? null, value: mine?.value ?? null, rankings, outcome } };
}

/** A run's tier: how many cohorts it opened, those of the page (their numbers from 0) with each one's participants, and once the run is final how its users moved. */
export interface TierSummary {
  tier: number;
  /** Every cohort the tier opened in the run, on this page or not. */
  cohortCount: number;
  cohorts: { n: number; participants: number; moves: Record<Outcome, number> | null }[];
}

/** Whether the run is final (its cohorts' outcomes decided, its users moved), every tier of it with the page's cohorts, and where the next page starts. */
export interface LeagueSummary {
  finalised: boolean;
  tiers: TierSummary[];
  /** The first cohort of the next page (null: this page holds the last). */
  next: CohortPosition | null;
}

/** A cohort's place in a run's summary: tiers lowest first, each tier's cohorts in their order. */
export interface CohortPosition {
  tier: number;
  n: number;
}

/** A page of a run's cohorts: from `from` (the first cohort of the lowest tier when left out), at most `limit`. */
export interface SummaryPage {
  from?: CohortPosition;
  limit: number;
}

/**
 * Every tier of a league's run with its cohort count (one read per tier, each on its own slot,
 * together), and a page of its cohorts in tier and cohort order, each cohort's participants and
 * moves read on its own slot, together: a page reads at most `limit` cohorts, however many the
 * run has.
 */
export async function leagueSummary(deps: Deps, tenant: string, lb: Leaderboard & { league: League }, run: string, page: SummaryPage): Promise<LeagueSummary> {
  const { redis, keys } = deps;
  const [finalised, counts] = await Promise.all([
    isFinalised(redis, keys.leaderboardIndex(tenant, lb.id).state, run),
    Promise.all(lb.league.tiers.map((_, tier) => cohortCount(redis, keys.leagueTier(tenant, lb.id, run, tier)))),
  ]);
  const from = page.from ?? { tier: 0, n: 0 };
  // The page's cohorts, tier by tier from `from`.
  const wanted: CohortPosition[] = [];
  let next: CohortPosition | null = null;
  for (let tier = from.tier; tier < counts.length && next === null; tier++) {
    for (let n = tier === from.tier ? from.n : 0; n < counts[tier]; n++) {
      if (wanted.length === page.limit) {
        next = { tier, n };
        break;
      }
      wanted.push({ tier, n });
    }
  }
  const read = await Promise.all(wanted.map(async ({ tier, n }) => {
    const k = keys.leagueCohort(tenant, lb.id, run, tier, n);
    const [participants, moves] = await Promise.all([participantsOf(redis, k.ranking), cohortMoves(redis, k.outcome)]);
    return { tier, cohort: { n, participants, moves } };
  }));
  const tiers: TierSummary[] = counts.map((cohortCount, tier) => ({ tier, cohortCount, cohorts: [] }));
  for (const { tier, cohort } of read) tiers[tier].cohorts.push(cohort);
  return { finalised, tiers, next };
}

/** A summary page's cursor: the first cohort of the page, '<tier>.<cohort>' (opaque to clients). */
export function summaryCursor(at: CohortPosition): string {
  return `${at.tier}.${at.n}`;
}

/** The position a cursor names in a league of `tiers` tiers; null for a text that is not one. */
export function summaryPosition(cursor: string, tiers: number): CohortPosition | null {
  const m = /^(\d{1,2})\.(\d{1,9})$/.exec(cursor);
  if (m === null) return null;
  const tier = Number(m[1]);
  return tier < tiers ? { tier, n: Number(m[2]) } : null;
}
