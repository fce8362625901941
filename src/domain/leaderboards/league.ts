/**
 * Leagues (docs/api.md, "Leagues"): a repeating board whose users compete in small cohorts of
 * their tier. The configuration's schema and checks, a cohort's id as the API shows it, and the
 * zone a place in a cohort is in (where finalisation moves users: promote, demote, or stay).
 *
 * Tiers are kept by their index (0 the lowest): a user's tier and the cohorts' keys hold indexes,
 * the API shows the tiers' keys. Once users have seen the board, its tiers' keys and order are
 * fixed (the stored indexes would name other tiers); names, the counts that move and the cohort
 * size may change (a new size applies to the cohorts that fill from then on).
 */
import type { League, Leaderboard } from '../../model/entities.js';
import type { LeagueOutcome, LeagueTierView } from '../../model/views.js';

export const MIN_TIERS = 2;
export const MAX_TIERS = 20;
export const MIN_COHORT = 5;
export const MAX_COHORT = 1000;

const KEY = { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 100 };
const COUNT = { type: 'integer', minimum: 0, maximum: MAX_COHORT };

/** The `league` field of a leaderboard's Admin schemas (null: none). */
export const LEAGUE_SCHEMA = {
  type: ['object', 'null'], required: ['tiers', 'cohortSize'],
  properties: {
    tiers: {
      type: 'array', minItems: MIN_TIERS, maxItems: MAX_TIERS,
      items: {
        type: 'object', required: ['key', 'name'],
        properties: { key: KEY, name: { type: 'string', minLength: 1, maxLength: 255 }, promote: COUNT, demote: COUNT },
      },
    },
    cohortSize: { type: 'integer', minimum: MIN_COHORT, maximum: MAX_COHORT },
  },
};

/** A league as the Admin API takes it: the counts that move default to 0. */
export interface LeagueInput {
  tiers: { key: string; name: string; promote?: number; demote?: number }[];
  cohortSize: number;
}

/** The league an input asks for, counts filled in. */
export function leagueOf(input: LeagueInput | null): League | null {
  if (input === null) return null;
  return {
    tiers: input.tiers.map((t) => ({ key: t.key, name: t.name, promote: t.promote ?? 0, demote: t.demote ?? 0 })),
    cohortSize: input.cohortSize,
  };
}

/** What a board's league must be whatever its history; a message, or null when sound (or none). */
export function checkLeague(lb: Leaderboard): string | null {
  const league = lb.league;
  if (league === null || league === undefined) return null;
  if (lb.rankBy === 'streak') return 'a league ranks a metric or points: rankBy must be metric or points';
  if (lb.runUnit === null) return 'a league moves its users between runs: it needs a repeating board (runUnit and runInterval)';
  if (lb.breakdownAttributes.length > 0) return 'a league ranks its users in cohorts of their tier: breakdownAttributes cannot be combined with it';
  const { tiers, cohortSize } = league;
  const seen = new Set<string>();
  for (const [i, t] of tiers.entries()) {
    if (seen.has(t.key)) return `league.tiers: the key "${t.key}" is listed twice`;
    seen.add(t.key);
    if (i === 0 && t.demote !== 0) return `league.tiers[0] ("${t.key}") is the lowest tier and demotes nobody: its demote must be 0`;
    if (i === tiers.length - 1 && t.promote !== 0) return `league.tiers[${i}] ("${t.key}") is the highest tier and promotes nobody: its promote must be 0`;
    if (t.promote + t.demote > cohortSize) {
      return `league.tiers[${i}] ("${t.key}") moves ${t.promote + t.demote} users of a cohort, more than its cohortSize ${cohortSize}`;
    }
  }
  return null;
}

/**
 * Whether the league may change so once users have seen the board (`shown`): not added or
 * removed, its tiers' keys in the same order. A message, or null.
 */
export function checkLeagueChange(previous: Leaderboard, next: Leaderboard, shown: string): string | null {
  const before = previous.league ?? null;
  const after = next.league ?? null;
  if ((before === null) !== (after === null)) {
    return `league can only be ${before === null ? 'added' : 'removed'} before the leaderboard starts (${shown}, and its users are placed by run)`;
  }
  if (before !== null && after !== null && before.tiers.map((t) => t.key).join(',') !== after.tiers.map((t) => t.key).join(',')) {
    return `league.tiers' keys and order can only change before the leaderboard starts (${shown}, and its users hold their tiers)`;
  }
  return null;
}

/** A cohort's id as the API shows it: `<tier key>-<number from 1>`. */
export function cohortId(league: League, tier: number, n: number): string {
  return `${league.tiers[tier].key}-${n + 1}`;
}

/** The tier index and the 0-based number of a cohort's id; null when it names none of the league's. */
export function parseCohortId(league: League, id: string): { tier: number; n: number } | null {
  const dash = id.lastIndexOf('-');
  if (dash <= 0) return null;
  const tier = league.tiers.findIndex((t) => t.key === id.slice(0, dash));
  const digits = id.slice(dash + 1);
  if (tier < 0 || !/^[1-9][0-9]{0,8}$/.test(digits)) return null;
  return { tier, n: Number(digits) - 1 };
}

/** A user's tier index as stored (a tier removed since, or none: the lowest, 0). */
export function tierIn(league: League, stored: number | null): number {
  return stored !== null && stored >= 0 && stored < league.tiers.length ? stored : 0;
}

export type Zone = 'promote' | 'stay' | 'demote';

/**
 * How many of a cohort of `participants` move up and down, given the tier's counts (`promote` 0 in
 * the highest tier, `demote` 0 in the lowest) and the league's cohort size: a cohort below its size
 * moves in proportion, each count times participants over the size rounded down, and a cohort never
 * moves all its users (while the two cover everyone, demotion gives way first, then promotion).
 * lua/leagueFinalise-2.lua applies the same lines when the run is final.
 */
export function zoneSizes(promote: number, demote: number, participants: number, cohortSize: number): { up: number; down: number } {
  const of = Math.max(cohortSize, participants, 1);
  let up = Math.floor((promote * participants) / of);
  let down = Math.floor((demote * participants) / of);
  while (participants > 0 && up + down >= participants) {
    if (down > 0) down--;
    else up--;
  }
  return { up, down };
}

/**
 * Where `rank` of a cohort of `participants` in tier `tier` is: the first of them (but in the
 * highest tier) move up, the last (but in the lowest) move down, as many as `zoneSizes` says; the
 * rest stay.
 */
export function zoneOf(league: League, tier: number, rank: number, participants: number): Zone {
  const t = league.tiers[tier];
  const highest = league.tiers.length - 1;
  const { up, down } = zoneSizes(tier < highest ? t.promote : 0, tier > 0 ? t.demote : 0, participants, league.cohortSize);
  if (rank <= up) return 'promote';
  if (rank > participants - down) return 'demote';
  return 'stay';
}

/** The zone a decided outcome moved the user from: once a run is final, its reads show that one. */
export function zoneOfOutcome(outcome: LeagueOutcome): Zone {
  return outcome === 'promoted' ? 'promote' : outcome === 'demoted' ? 'demote' : 'stay';
}

/** A tier as the reads show it. */
export function tierView(league: League, index: number): LeagueTierView {
  const t = league.tiers[index];
  return { key: t.key, name: t.name, index };
}

/** The `cohort` query parameter of a board's rankings. */
export const COHORT_QUERY = {
  name: 'cohort', schema: { type: 'string', minLength: 1, maxLength: 120 },
  description: 'A league\'s cohort (`<tier key>-<number>`, as GET /users/{id}/leagues/{key} answers): its rankings instead of the board\'s',
};
