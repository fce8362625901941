/**
 * The codec of lua/pointsNote-2.lua: notes drained awards for the `points.changed` of their windows.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pointsNote(latest: string, due: string, ...notes: string[]): Result<number, Context>;
  }
}

/** `Keys.partitionPointsChanged(partition)` */
export interface Keys { latest: string; due: string }

/**
 * The number of members noted. `notes`: member, value ('<entry id, sortable>\t<ts>\t<awards
 * JSON>'), the end of its window (ms); repeated.
 */
export function run(redis: RedisClient, k: Keys, notes: string[]): Promise<number> {
  return redis.pointsNote(k.latest, k.due, ...notes);
}
