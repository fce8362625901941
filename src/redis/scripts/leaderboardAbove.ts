/**
 * The codec of lua/leaderboardAbove-1.lua: how many members of one shard of a board's run rank
 * above each place asked (src/redis/sharded-rankings.ts adds them up).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardAbove(ranking: string, ...pairs: string[]): Result<number[], Context>;
  }
}

/** A place asked about: the value as Redis gave it, and the member as the user's shard holds it. */
export interface Asked {
  score: string;
  member: string;
}

/** The members of `ranking` above each of `asked`, in order. */
export async function run(redis: RedisClient, ranking: string, asked: readonly Asked[]): Promise<number[]> {
  if (asked.length === 0) return [];
  const counts = await redis.leaderboardAbove(ranking, ...asked.flatMap((a) => [a.score, a.member]));
  return counts.map(Number);
}
