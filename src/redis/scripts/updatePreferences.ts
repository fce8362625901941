/**
 * The codec of lua/updatePreferences-3.lua: a user's notification and streak preferences.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    updatePreferences(user: string, history: string, log: string, entry: string, streak: string, ...pairs: string[]): Result<(string | number)[], Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'history' | 'log'>;

export interface Args {
  /** The log entry (JSON). */
  entry: string;
  /** The streak preferences passed, JSON, or null. */
  streak: string | null;
  /** 'n:<type>' -> JSON array of channels, flat. */
  pairs: string[];
}

/** The user hash after the change, flat (HGETALL), or null for an unknown user. */
export async function run(redis: RedisClient, k: Keys, a: Args): Promise<(string | number)[] | null> {
  const r = await redis.updatePreferences(k.user, k.history, k.log, a.entry, a.streak ?? '', ...a.pairs);
  return r[0] === ScriptCode.NOT_FOUND ? null : r.slice(1);
}
