/**
 * The codec of lua/streakRank-4.lua: one user's streak in the tenant's rankings (a Redis function
 * of the event path's library).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { StreakRankingKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    streakRank(
      active: string, longest: string, expiry: string, standing: string,
      userId: string, length: number, longestLength: number, expiryMs: number, seq: string, order: string,
    ): Result<number, Context>;
  }
}

export type Keys = Pick<StreakRankingKeys, 'active' | 'longest' | 'expiry' | 'standing'>;

export interface Args {
  userId: string;
  length: number;
  longest: number;
  /** ms the streak is lost at */
  expiry: number;
  /** The log entry id of the event or operation, or '' (not ordered). */
  seq: string;
  /** This length's arrival (21 digits: src/domain/leaderboards/runs.ts orderOf). */
  order: string;
}

/** How many users' writes were taken (a write older than the recorded one is not). */
export function run(redis: RedisClient, k: Keys, a: Args): Promise<number> {
  return redis.streakRank(k.active, k.longest, k.expiry, k.standing, a.userId, a.length, a.longest, a.expiry, a.seq, a.order);
}
