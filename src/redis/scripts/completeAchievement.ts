/**
 * The codec of lua/completeAchievement-5.lua: an achievement completed through the API.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    completeAchievement(
      user: string, users: string, log: string, completions: string, points: string,
      creation: string, needsEmail: string, entry: string, plan: Buffer, when: string, boosts: string, ...pairs: string[]
    ): Result<(string | number | (string | number)[])[], Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'users' | 'log' | 'completions' | 'points'>;

export interface Args {
  userId: string;
  now: number;
  /** The day field the awards count on. */
  dayField: string;
  /** '1' when the request sets subscribeToEmails to true without an email, else ''. */
  needsEmail: string;
  /** The log entry (JSON). */
  entry: string;
  /** The achievement's plan (msgpack: src/config/plans/achievements.ts). */
  plan: Buffer;
  /** The boosts that may apply (JSON) or ''. */
  boosts: string;
  /** User hash field/value pairs, maybe ending with the breakdown marker. */
  pairs: string[];
}

export interface Completed {
  created: boolean;
  /** When the achievement was completed (now, or earlier). */
  achievedAt: string;
  /** The awards as accruePoints answers them ('' without). */
  awards: unknown;
  /** The log entry's id. */
  seq: string;
  /** The breakdown attributes the identification changed (JSON), or ''. */
  moved: string;
  /** The ids completed now. */
  completed: string[];
}

/** The completion, or the code it was refused with (src/engine/script-errors.ts answers it). */
export type Answer = Completed | typeof ScriptCode.SUBSCRIBE_WITHOUT_EMAIL | typeof ScriptCode.FILTERED_OUT;

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const r = await redis.completeAchievement(
    k.user, k.users, k.log, k.completions, k.points,
    new Date(a.now).toISOString() + a.userId, a.needsEmail, a.entry, a.plan, `${a.now}|${a.dayField}`, a.boosts, ...a.pairs,
  );
  const code = r[0];
  if (code === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL || code === ScriptCode.FILTERED_OUT) return code;
  return {
    created: r[1] === 1, achievedAt: String(r[2]), awards: r[3], seq: String(r[4]), moved: String(r[5]), completed: r.slice(6).map(String),
  };
}
