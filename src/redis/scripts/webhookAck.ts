/**
 * The codec of lua/webhookAck-1.lua: deletes deliveries from an endpoint's queue.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    webhookAck(queue: string, group: string, ...ids: string[]): Result<number, Context>;
  }
}

/** The number of deliveries deleted. `queue`: `Keys.webhookQueue(endpointId).queue`; `ids` the stream entries. */
export function run(redis: RedisClient, queue: string, group: string, ids: string[]): Promise<number> {
  return redis.webhookAck(queue, group, ...ids);
}
