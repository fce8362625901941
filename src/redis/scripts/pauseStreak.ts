/**
 * The codec of lua/pauseStreak-2.lua: adds or removes a pause of a user's streak.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { Keys } from './grantFreezes.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pauseStreak(user: string, log: string, op: 'add' | 'remove', pause: string, entry: string): Result<number[], Context>;
  }
}

export type { Keys };

export type Args =
  /** The pause: [frequency letter, first period, last period, id]. */
  | { op: 'add'; pause: [string, number, number, string]; entry: string }
  | { op: 'remove'; id: string; entry: string };

/** 'done'; 'none' when there was no such pause to remove; 'not_found' for an unknown user. */
export async function run(redis: RedisClient, k: Keys, a: Args): Promise<'done' | 'none' | 'not_found'> {
  const [r] = await redis.pauseStreak(k.user, k.log, a.op, a.op === 'add' ? JSON.stringify(a.pause) : a.id, a.entry);
  return r === ScriptCode.NOT_FOUND ? 'not_found' : r === 0 ? 'none' : 'done';
}
