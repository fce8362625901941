/**
 * The codec of lua/leaderboardPrune-5.lua: drops lost streaks from a streak board's ranking.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardPrune(ranking: string, members: string, expiry: string, falls: string, sequences: string, now: number): Result<number, Context>;
  }
}

export type Keys = Pick<LeaderboardKeys, 'ranking' | 'members' | 'expiry' | 'falls' | 'sequences'>;

/** How many users left. */
export function run(redis: RedisClient, k: Keys, now: number): Promise<number> {
  return redis.leaderboardPrune(k.ranking, k.members, k.expiry, k.falls, k.sequences, now);
}
