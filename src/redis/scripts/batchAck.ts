/**
 * The codec of lua/batchAck-n.lua: a partition's chunks out of its queue, and the items' own
 * idempotency keys deleted, while the worker holds the lease.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    batchAck(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Result<number, Context>;
  }
}

/** `Keys.partitionBatches(p)` */
export interface Keys { queue: string; count: string; lease: string }

export interface Args {
  worker: string;
  /** The items the chunks hold. */
  items: number;
  /** The chunks' queue entry ids. */
  ids: string[];
  /** The items' own keys to delete: each user-metric hash (`Keys.userMetric`) and its field ('i:' + item key). */
  own: [hash: string, field: string][];
}

/** True when done, false when the worker no longer holds the lease (nothing changed). */
export async function run(redis: RedisClient, k: Keys, a: Args): Promise<boolean> {
  const r = await redis.batchAck(
    3 + a.own.length, k.queue, k.count, k.lease, ...a.own.map(([hash]) => hash),
    a.worker, a.items, a.ids.length, ...a.ids, ...a.own.map(([, field]) => field),
  );
  return r === 1;
}
