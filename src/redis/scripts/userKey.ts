/**
 * The codec of lua/userKey-2.lua: the user and tenant of a key scoped to a user, with its rate
 * limit taken in the same script.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    userKey(record: string, bucket: string, hash: string, now: number, interval: number, tolerance: number): Result<[0] | [1, string, string] | [2, number], Context>;
  }
}

/** `Keys.apiKey(id)` */
export interface Keys { record: string; bucket: string }

export interface Args {
  /** sha256 of the key as sent, hex */
  hash: string;
  now: number;
  /** ms between two requests at the limit; 0: no limit */
  interval: number;
  /** ms the key may run ahead of its rate */
  tolerance: number;
}

/** null for no such key; the user and tenant; or the ms to wait when over the limit. */
export type Answer = null | { userId: string; tenant: string } | { wait: number };

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const r = await redis.userKey(k.record, k.bucket, a.hash, a.now, a.interval, a.tolerance);
  if (r[0] === 0) return null;
  if (r[0] === 2) return { wait: r[1] };
  return { userId: r[1], tenant: r[2] };
}
