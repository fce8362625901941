/**
 * The codec of lua/leaderboardPlaces-2.lua: some users' members, values and positions in one
 * ranking, read at one moment in one call.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardPlaces(ranking: string, members: string, ...userIds: string[]): Result<(string | number | null)[], Context>;
  }
}

/** A user found on a ranking: their member, its value as Redis gave it, and its position from 0. */
export interface Held {
  member: string;
  score: string;
  position: number;
}

/** Each of `userIds`' place on `k`'s ranking, in order; null for a user not on it. */
export async function run(redis: RedisClient, k: Pick<LeaderboardKeys, 'ranking' | 'members'>, userIds: readonly string[]): Promise<(Held | null)[]> {
  if (userIds.length === 0) return [];
  const flat = await redis.leaderboardPlaces(k.ranking, k.members, ...userIds);
  const out: (Held | null)[] = [];
  for (let i = 0; i < flat.length; i += 3) {
    out.push(flat[i] === null ? null : { member: String(flat[i]), score: String(flat[i + 1]), position: Number(flat[i + 2]) });
  }
  return out;
}
