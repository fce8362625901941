/**
 * The codec of lua/grantFreezes-2.lua: grants streak freezes up to the rule's maximum.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    grantFreezes(user: string, log: string, n: number, max: number, initial: number, day: number, entry: string): Result<number[], Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'log'>;

export interface Args {
  n: number;
  /** The most a user may hold. */
  max: number;
  /** What a user new to freezes starts with. */
  initial: number;
  /** Today's day index. */
  day: number;
  /** The log entry (JSON). */
  entry: string;
}

/** The freezes granted (fewer than asked once the maximum was reached), or null for an unknown user. */
export async function run(redis: RedisClient, k: Keys, a: Args): Promise<number | null> {
  const [granted] = await redis.grantFreezes(k.user, k.log, a.n, a.max, a.initial, a.day, a.entry);
  return granted === ScriptCode.NOT_FOUND ? null : granted;
}
