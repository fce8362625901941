/**
 * The codec of lua/recordEvent-4.lua: phase 1 of a metric event without features (a Redis function
 * of the event path's library). Its answer is recordEventPlan's (./recordEventPlan.ts): a
 * processed event as one string, or a hand-back. The small arguments travel as one '|'-separated
 * string, for the event path's reasons (./recordEventPlan.ts).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { UserKeys } from '../keys.js';
import type { Reply } from './recordEventPlan.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    recordEvent(user: string, userMetric: string, users: string, log: string, ...args: string[]): Result<Reply, Context>;
  }
}

export interface Keys extends Pick<UserKeys, 'user' | 'users' | 'log'> {
  /** `Keys.userMetric(u, metricId)` */
  userMetric: string;
}

export interface Args {
  /** One character each, then ':<now ms>:<expiry ms>' when the idempotency window is finite. */
  flags: string;
  /** The metric's total field in the user hash. */
  total: string;
  value: string;
  /** The local day of the event, YYYY-MM-DD. */
  day: string;
  tz: string;
  now: number;
  /** What the api assumed of the user's clock (src/domain/clock.ts clockArg). */
  clock: string;
  /** A batch item's chunk id in the partition's batch queue (lua/includes/fence.lua); '' for an event. */
  accepted: string;
  /** '' or '<event id><i:key>' */
  idempotency: string;
  /** '<now, ISO-8601, 24 characters><user id>' */
  creation: string;
  /** The log entry (JSON). */
  entry: string;
  /** User hash field/value pairs of the identification. */
  pairs: string[];
}

export function run(redis: RedisClient, k: Keys, a: Args): Promise<Reply> {
  return redis.recordEvent(k.user, k.userMetric, k.users, k.log, smallOf(a), a.idempotency, a.creation, a.entry, ...a.pairs);
}

function smallOf(a: Args): string {
  return `${a.flags}|${a.total}|${a.value}|d:${a.day}|${a.tz}|${a.now}|${a.clock}|${a.accepted}`;
}

/** The event's arguments as `run` sends them after its keys (for lua/recordEventRun-4.lua). */
export function argsOf(a: Args): string[] {
  return [smallOf(a), a.idempotency, a.creation, a.entry, ...a.pairs];
}
