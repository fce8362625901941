/**
 * The codec of lua/historyRestate-1.lua: a sharded board's history entry stated again with the
 * ranks on the whole run, compare-and-set.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    historyRestate(history: string, at: number, shardPrevious: number, shardRank: number, runPrevious: number, runRank: number): Result<number, Context>;
  }
}

/** 1 when the placement's entry was stated again, 0 when it was not found. */
export function run(
  redis: RedisClient, history: string, at: number, shardRanks: [previous: number, rank: number], runRanks: [previous: number, rank: number],
): Promise<number> {
  return redis.historyRestate(history, at, shardRanks[0], shardRanks[1], runRanks[0], runRanks[1]);
}
