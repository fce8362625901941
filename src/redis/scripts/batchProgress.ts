/**
 * The codec of lua/batchProgress-2.lua: notes a batch's processed and failed items (idempotent).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    batchProgress(record: string, done: string, ...args: (string | number)[]): Result<number, Context>;
  }
}

/** `Keys.batch(batchId)` */
export interface Keys { record: string; done: string }

export interface Args {
  /** Items in the batch. */
  items: number;
  tenant: string;
  /** Accepted at (ms). */
  accepted: number;
  /** When the batch is forgotten (wall ms). */
  expires: number;
  /** The indexes processed. */
  done: number[];
  /** The indexes that failed, each with its message. */
  failed: [index: number, message: string][];
}

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<void> {
  await redis.batchProgress(k.record, k.done, a.items, a.tenant, a.accepted, a.expires, a.done.length, ...a.done, ...a.failed.flat());
}
