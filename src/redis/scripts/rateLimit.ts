/**
 * The codec of lua/rateLimit-1.lua: takes one request of an API key's bucket (GCRA).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateLimit(bucket: string, now: number, interval: number, tolerance: number): Result<number, Context>;
  }
}

export interface Args {
  now: number;
  /** ms between two requests at the limit */
  interval: number;
  /** ms the key may run ahead of its rate (the burst) */
  tolerance: number;
}

/** 0 to go on, else the ms to wait. `bucket`: `Keys.apiKey(id).bucket`. */
export function run(redis: RedisClient, bucket: string, a: Args): Promise<number> {
  return redis.rateLimit(bucket, a.now, a.interval, a.tolerance);
}
