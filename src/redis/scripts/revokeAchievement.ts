/**
 * The codec of lua/revokeAchievement-3.lua: a user's completion of an achievement revoked, the
 * partition's count of it one lower, and the log's `revoked` entry appended.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    revokeAchievement(user: string, completions: string, log: string, achievementId: string, entry: string): Result<(string | number)[], Context>;
  }
}

/** The `revoked` entry's id, or what kept it from being made (nothing changed then). */
export async function run(
  redis: RedisClient, k: Pick<UserKeys, 'user' | 'completions' | 'log'>, achievementId: string, entry: string,
): Promise<string | 'not_completed' | 'unknown_user'> {
  const r = await redis.revokeAchievement(k.user, k.completions, k.log, achievementId, entry);
  if (r[0] === ScriptCode.NOT_FOUND) return 'unknown_user';
  if (r[0] === 0) return 'not_completed';
  return String(r[0]);
}
