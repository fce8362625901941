/**
 * The codec of lua/rankNoteTake-1.lua: takes the users noted for `leaderboard.rank_changed` whose
 * moves were recorded.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rankNoteTake(noted: string, ...taken: string[]): Result<number, Context>;
  }
}

/** The number of users taken. `taken`: user, score as read; repeated. */
export function run(redis: RedisClient, noted: string, taken: string[]): Promise<number> {
  return redis.rankNoteTake(noted, ...taken);
}
