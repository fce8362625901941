/**
 * The codec of lua/streakPrune-3.lua: drops lost streaks from a tenant's active ranking.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { StreakRankingKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    streakPrune(active: string, expiry: string, standing: string, now: number, limit: number): Result<number, Context>;
  }
}

export type Keys = Pick<StreakRankingKeys, 'active' | 'expiry' | 'standing'>;

/** The number of streaks removed, at most `limit`. */
export function run(redis: RedisClient, k: Keys, now: number, limit: number): Promise<number> {
  return redis.streakPrune(k.active, k.expiry, k.standing, now, limit);
}
