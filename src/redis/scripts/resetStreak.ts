/**
 * The codec of lua/resetStreak-3.lua: ends a user's streak.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { Keys } from './restoreStreak.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    resetStreak(user: string, history: string, log: string, current: number, entry: string): Result<number[], Context>;
  }
}

export type { Keys };

/** `current`: the length as the api computed it (0 when lost); `entry` the log entry (JSON). */
export async function run(redis: RedisClient, k: Keys, current: number, entry: string): Promise<'reset' | 'no_streak' | 'not_found'> {
  const [r] = await redis.resetStreak(k.user, k.history, k.log, current, entry);
  return r === ScriptCode.NOT_FOUND ? 'not_found' : r === 0 ? 'no_streak' : 'reset';
}
