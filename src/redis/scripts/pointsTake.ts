/**
 * The codec of lua/pointsTake-2.lua: takes the `points.changed` members whose deliveries were recorded.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { Keys } from './pointsNote.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pointsTake(latest: string, due: string, ...taken: string[]): Result<number, Context>;
  }
}

export type { Keys };

/**
 * The number of members taken. `taken`: member, score as read, value as read ('' for none); repeated.
 */
export function run(redis: RedisClient, k: Keys, taken: string[]): Promise<number> {
  return redis.pointsTake(k.latest, k.due, ...taken);
}
