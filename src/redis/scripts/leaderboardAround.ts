/**
 * The codec of lua/leaderboardAround-2.lua: a user's place on one ranking and a page of places from
 * a position counted from theirs, in one call.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';
import { placesOf, type Place } from '../rankings.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardAround(ranking: string, members: string, userId: string, offset: number, count: number): Result<(number | string)[], Context>;
  }
}

/**
 * `userId`'s place on `k`'s ranking and `count` places from their position plus `offset` (none
 * when 0); null when the user is not on it.
 */
export async function run(
  redis: RedisClient, k: Pick<LeaderboardKeys, 'ranking' | 'members'>, userId: string, offset: number, count: number,
): Promise<{ place: Place; places: Place[] } | null> {
  const [rank, value, first, ...page] = await redis.leaderboardAround(k.ranking, k.members, userId, offset, count);
  if (rank === undefined) return null;
  return { place: { userId, rank: Number(rank), value: Number(value) }, places: placesOf(page.map(String), Number(first)) };
}
