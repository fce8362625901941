/**
 * The codecs of lua/erasureJoin-1.lua and lua/erasureDone-1.lua: the workers' passes on an
 * erasure's record, the last to leave marking it done with every pass's counts in.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    erasureJoin(record: string, pass: string, now: number): Result<number, Context>;
    erasureDone(record: string, pass: string, now: number, limitMs: number, rk: number, rm: number, pa: number, pr: number): Result<number, Context>;
  }
}

/** What a pass removed of the user. */
export interface PassCounts {
  redisKeys: number;
  redisMembers: number;
  archivedEntries: number;
  postgresRows: number;
}

/** True when the pass joined; false when the erasure is done or gone. `record`: `Keys.erasure(id)`. */
export async function join(redis: RedisClient, record: string, pass: string, now: number): Promise<boolean> {
  return (await redis.erasureJoin(record, pass, now)) === 1;
}

/** The pass leaves with its counts; true when the erasure is done (by this pass or an earlier one). */
export async function leave(redis: RedisClient, record: string, pass: string, now: number, limitMs: number, c: PassCounts): Promise<boolean> {
  return (await redis.erasureDone(record, pass, now, limitMs, c.redisKeys, c.redisMembers, c.archivedEntries, c.postgresRows)) === 1;
}
