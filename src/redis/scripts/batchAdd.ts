/**
 * The codec of lua/batchAdd-3.lua: one chunk of a batch of events onto its partition's queue and log.
 */
import type { ChainableCommander, Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    batchAdd(queue: string, count: string, log: string, chunk: string, items: number): Result<string, Context>;
  }
}

/** `Keys.partitionBatches(p)` with `log`: `Keys.partitionLog(p)`. */
export interface Keys { queue: string; count: string; log: string }

/** The queue entry's id. `chunk`: the chunk (JSON); `items`: how many it holds. */
export function run(redis: RedisClient, k: Keys, chunk: string, items: number): Promise<string> {
  return redis.batchAdd(k.queue, k.count, k.log, chunk, items);
}

/** The same call, queued on a MULTI. */
export function queue(multi: ChainableCommander, k: Keys, chunk: string, items: number): void {
  multi.batchAdd(k.queue, k.count, k.log, chunk, items);
}
