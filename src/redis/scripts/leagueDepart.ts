/**
 * The codec of lua/leagueDepart-6.lua: a user taken out of their league cohort of a run, once,
 * because an outcome moved them to another cohort of it; what they held there answered (again).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueDepart(
      ranking: string, members: string, history: string, awards: string, falls: string, sequences: string,
      userId: string, target: string, now: number,
    ): Result<string[], Context>;
  }
}

/** What the user held in the cohort they left: member ('' when not ranked), value, log entry id, awards (number / points pairs). */
export interface Departed {
  member: string;
  value: string;
  seq: string;
  awards: string[];
}

/** Takes `userId` out of the cohort of `k`, for the cohort `target` ('<tier>.<n>'). */
export async function run(redis: RedisClient, k: LeaderboardKeys, userId: string, target: string, now: number): Promise<Departed> {
  const [member, value, seq, ...awards] = await redis.leagueDepart(
    k.ranking, k.members, k.history(userId), k.awards(userId), k.falls, k.sequences, userId, target, now,
  );
  return { member: member ?? '', value: value ?? '', seq: seq ?? '', awards };
}
