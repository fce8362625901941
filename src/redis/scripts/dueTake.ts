/**
 * The codec of lua/dueTake-1.lua: takes members out of a due index while their score is the one read.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    dueTake(due: string, ...membersAndScores: string[]): Result<number, Context>;
  }
}

/**
 * The number of members taken. `due`: `Keys.partitionNotificationsDue(p)` or
 * `Keys.streakFreezes(tenant).due` or `Keys.streakLosses(tenant)` or `Keys.leaderboardIndex(tenant, board).noted(run)`; `membersAndScores`: member, score as read, repeated (as
 * ZRANGEBYSCORE ... WITHSCORES answers them).
 */
export function run(redis: RedisClient, due: string, membersAndScores: string[]): Promise<number> {
  return redis.dueTake(due, ...membersAndScores);
}
