/**
 * The codec of lua/batchTake-2.lua: a worker takes the first chunks of a partition's batch queue
 * under a lease.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    batchTake(
      queue: string, lease: string, worker: string, leaseMs: number, chunks: number, items?: number,
    ): Result<typeof ScriptCode.LEASE_HELD | [id: string, fields: string[]][], Context>;
  }
}

/** `Keys.partitionBatches(p)` */
export interface Keys { queue: string; lease: string }

/** The entries taken (XRANGE's answer), or 'held' when another worker holds the lease. */
export type Answer = 'held' | [id: string, fields: string[]][];

/**
 * Takes at most `chunks` chunks, and no more once they hold `items` items (the first whatever it
 * holds); `chunks` 0 releases the lease this worker holds.
 */
export async function run(redis: RedisClient, k: Keys, worker: string, leaseMs: number, chunks: number, items?: number): Promise<Answer> {
  const r = await (items === undefined ? redis.batchTake(k.queue, k.lease, worker, leaseMs, chunks) : redis.batchTake(k.queue, k.lease, worker, leaseMs, chunks, items));
  return r === ScriptCode.LEASE_HELD ? 'held' : r;
}
