/**
 * The codec of lua/leagueJoin-1.lua: a user's cohort in their tier of a league's run, joined in
 * arrival order (the same one again for a user placed already).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueJoin(cohorts: string, userId: string, size: number): Result<number, Context>;
  }
}

/** The user's cohort number (from 0). `cohorts`: `Keys.leagueTier(...)`. */
export function run(redis: RedisClient, cohorts: string, userId: string, size: number): Promise<number> {
  return redis.leagueJoin(cohorts, userId, size);
}
