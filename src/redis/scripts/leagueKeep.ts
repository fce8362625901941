/**
 * The codec of lua/leagueKeep-2.lua: a user's place in a league (tier, run, cohort) kept with the
 * user, unless a later run's, or this run's, is kept already; the join logged.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { leagueField, leaguePlaceOf, leagueText, type LeaguePlace } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueKeep(user: string, log: string, field: string, place: string, run: string, read: string, entry: string): Result<number | string, Context>;
  }
}

/**
 * What became of the place: written, a later run's kept instead, refused because an outcome moved
 * the tier carried since it was read, this run's kept already (`place`), or no such user (erased).
 */
export type Kept = { kept: 'written' | 'later' | 'moved' | 'gone' } | { kept: 'held'; place: LeaguePlace };

/**
 * Keeps `place` with the user whose hash is `user`; `carried`: the tier carried read before joining
 * (null: the user kept no place). `log`: the user's partition's log; `entry`: the `league` entry's
 * body (src/model/log.ts leagueEntry).
 */
export async function run(
  redis: RedisClient, user: string, log: string, boardId: string, place: LeaguePlace, carried: number | null, entry: string,
): Promise<Kept> {
  const answer = await redis.leagueKeep(user, log, leagueField(boardId), leagueText(place), place.run, carried === null ? '' : String(carried), entry);
  if (typeof answer === 'string') {
    const held = leaguePlaceOf(answer);
    if (held !== null) return { kept: 'held', place: held };
  }
  return { kept: answer === 1 ? 'written' : answer === 2 ? 'later' : answer === 3 ? 'moved' : 'gone' };
}
