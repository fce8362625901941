/**
 * The codec of lua/streakLeave-4.lua: a user taken out of the tenant's streak rankings, the log
 * entry id of what took them out kept in their standing.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { StreakRankingKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    streakLeave(active: string, longest: string, expiry: string, standing: string, userId: string, seq: string): Result<number, Context>;
  }
}

/** How many members and fields were removed; `seq` '' keeps the standing's own entry id. */
export function run(redis: RedisClient, k: Pick<StreakRankingKeys, 'active' | 'longest' | 'expiry' | 'standing'>, userId: string, seq: string): Promise<number> {
  return redis.streakLeave(k.active, k.longest, k.expiry, k.standing, userId, seq);
}
