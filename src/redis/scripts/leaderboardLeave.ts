/**
 * The codec of lua/leaderboardLeave-6.lua: a user leaves a breakdown group's ranking.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardLeave(
      ranking: string, members: string, history: string, expiry: string, falls: string, sequences: string, userId: string, seq: string, now: number | string,
    ): Result<number, Context>;
  }
}

export type Keys = Pick<LeaderboardKeys, 'ranking' | 'members' | 'history' | 'expiry' | 'falls' | 'sequences'>;

/**
 * The rank the user left (0 when not a member, or when a later event placed them there). `seq`:
 * the log entry id of what changed the attribute.
 */
export function run(redis: RedisClient, k: Keys, userId: string, seq: string, now: number): Promise<number> {
  return redis.leaderboardLeave(k.ranking, k.members, k.history(userId), k.expiry, k.falls, k.sequences, userId, seq, now);
}
