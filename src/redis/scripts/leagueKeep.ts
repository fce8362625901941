/**
 * The codec of lua/leagueKeep-1.lua: a user's place in a league (tier, run, cohort) kept with the
 * user, unless a later run's is kept already.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { leagueField, leagueText, type LeaguePlace } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueKeep(user: string, field: string, place: string, run: string): Result<number, Context>;
  }
}

/** What became of the place: written, a later run's kept instead, or no such user (erased). */
export type Kept = 'written' | 'later' | 'gone';

/** Keeps `place` with the user whose hash is `user`. */
export async function run(redis: RedisClient, user: string, boardId: string, place: LeaguePlace): Promise<Kept> {
  const answer = await redis.leagueKeep(user, leagueField(boardId), leagueText(place), place.run);
  return answer === 1 ? 'written' : answer === 2 ? 'later' : 'gone';
}
