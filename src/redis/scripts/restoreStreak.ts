/**
 * The codec of lua/restoreStreak-3.lua: restores a streak to its longest length within a window.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    restoreStreak(
      user: string, history: string, log: string, frequency: string, period: number, from: number, current: number, entry: string,
    ): Result<number[], Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'history' | 'log'>;

export interface Args {
  /** 'd', 'w' or 'm' */
  frequency: string;
  period: number;
  /** The window's first period. */
  from: number;
  /** The current length as the api computed it (0 when lost). */
  current: number;
  /** The log entry (JSON). */
  entry: string;
}

export type Answer = { restored: number } | 'not_found' | 'nothing_lost' | 'at_maximum';

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const [r] = await redis.restoreStreak(k.user, k.history, k.log, a.frequency, a.period, a.from, a.current, a.entry);
  if (r === ScriptCode.NOT_FOUND) return 'not_found';
  if (r === ScriptCode.AT_MAXIMUM) return 'at_maximum';
  if (r === 0) return 'nothing_lost';
  return { restored: r };
}
