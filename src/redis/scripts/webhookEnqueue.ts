/**
 * The codec of lua/webhookEnqueue-2.lua: puts an endpoint's deliveries in its queue, each log entry's once.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    webhookEnqueue(queue: string, marks: string, ...groupAndDeliveries: (string | number)[]): Result<number, Context>;
  }
}

/** `Keys.webhookQueue(endpointId)` */
export interface Keys { queue: string; marks: string }

/**
 * The number of deliveries queued. `groupAndDeliveries`: the consumer group's name, then partition,
 * sortable entry id, the delivery; three for each, a partition's in log order.
 */
export function run(redis: RedisClient, k: Keys, groupAndDeliveries: (string | number)[]): Promise<number> {
  return redis.webhookEnqueue(k.queue, k.marks, ...groupAndDeliveries);
}
