/**
 * A league's stored forms, read in one place: a user's place kept with them (the user hash's
 * `lg:<board id>` field, '<tier index>|<run>|<cohort number>', lua/leagueKeep-1.lua) and a tier's
 * cohorts in a run (lua/leagueJoin-1.lua: `o` the open cohort, `n` its users, `u:<user id>`).
 */
import type { RedisClient } from './client.js';

/** Where a user stands in a league: their tier, the run they last joined, their cohort there (from 0). */
export interface LeaguePlace {
  tier: number;
  run: string;
  cohort: number;
}

/** The user hash's field of a league. */
export function leagueField(boardId: string): string {
  return `lg:${boardId}`;
}

export function leagueText(place: LeaguePlace): string {
  return `${place.tier}|${place.run}|${place.cohort}`;
}

/** A place from its text; null for none (or a text of another form). */
export function leaguePlaceOf(text: string | null | undefined): LeaguePlace | null {
  if (text === null || text === undefined) return null;
  const [tier, run, cohort] = text.split('|');
  if (run === undefined || cohort === undefined) return null;
  return { tier: Number(tier), run, cohort: Number(cohort) };
}

/** A user's place in a league as kept with them (null: never placed). `user`: the user's hash. */
export async function readLeaguePlace(redis: RedisClient, user: string, boardId: string): Promise<LeaguePlace | null> {
  return leaguePlaceOf(await redis.hget(user, leagueField(boardId)));
}

/** How many cohorts a tier has opened in a run (0: nobody joined it). `cohorts`: `Keys.leagueTier(...)`. */
export async function cohortCount(redis: RedisClient, cohorts: string): Promise<number> {
  const open = await redis.hget(cohorts, 'o');
  return open === null ? 0 : Number(open) + 1;
}

/** The field of a user's cohort in a tier's cohorts (an erasure removes it). */
export function cohortUserField(userId: string): string {
  return `u:${userId}`;
}
