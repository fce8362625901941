/**
 * The codec of lua/backfillAchievement-4.lua: completes one achievement, silently, for a user who
 * already qualifies.
 */
import type { ChainableCommander, Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    backfillAchievement(user: string, userMetric: string, completions: string, log: string, now: string, plan: Buffer, entry: string): Result<number, Context>;
  }
}

export interface Keys extends Pick<UserKeys, 'user' | 'completions' | 'log'> {
  /** `Keys.userMetric(u, metricId)`, or the user hash when the achievement has no metric. */
  userMetric: string;
}

export interface Args {
  /** ISO-8601 */
  now: string;
  /** The achievement's plan (msgpack: src/config/plans/achievements.ts). */
  plan: Buffer;
  /** The log entry (JSON). */
  entry: string;
}

/** The number of achievements completed. */
export function run(redis: RedisClient, k: Keys, a: Args): Promise<number> {
  return redis.backfillAchievement(k.user, k.userMetric, k.completions, k.log, a.now, a.plan, a.entry);
}

/** The same call, queued on a pipeline (its answer: the number completed). */
export function queue(pipeline: ChainableCommander, k: Keys, a: Args): void {
  pipeline.backfillAchievement(k.user, k.userMetric, k.completions, k.log, a.now, a.plan, a.entry);
}
