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

/**
 * The members of `ranking` above each of `asked`, in order; null for a place asked of its own shard
 * (`own(i)`: `ranking` is the shard of the i-th) whose member was replaced since it was read.
 */
export async function run(redis: RedisClient, ranking: string, asked: readonly Asked[], own: (i: number) => boolean): Promise<(number | null)[]> {
  if (asked.length === 0) return [];
  const counts = await redis.leaderboardAbove(ranking, ...asked.flatMap((a, i) => [a.score, a.member, own(i) ? '1' : '0']));
  return counts.map((c) => (Number(c) < 0 ? null : Number(c)));
}
