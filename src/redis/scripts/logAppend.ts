/**
 * The codec of lua/logAppend-1.lua: one entry of the workers' on a partition's event log.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    logAppend(log: string, kind: string, body: string): Result<string, Context>;
  }
}

/** The entry's id. `log`: `Keys.partitionLog(partition)`; `body` JSON. */
export function run(redis: RedisClient, log: string, kind: string, body: string): Promise<string> {
  return redis.logAppend(log, kind, body);
}
