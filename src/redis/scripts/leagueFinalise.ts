/**
 * The codec of lua/leagueFinalise-2.lua: a league cohort's outcome decided once its run is final
 * (the recorded one answered when decided before).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { outcomeOf, type CohortOutcome } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueFinalise(ranking: string, outcomes: string, promote: number, demote: number): Result<(number | string)[], Context>;
  }
}

/** A cohort's outcome: whether decided by this call, and each user's, the best ranked first. */
export interface Decided {
  now: boolean;
  users: (CohortOutcome & { userId: string })[];
}

/** Decides the cohort's outcome (`promote`, `demote`: how many move, 0 in the highest and lowest tier). */
export async function run(redis: RedisClient, k: { ranking: string; outcome: string }, promote: number, demote: number): Promise<Decided> {
  const [now, ...flat] = await redis.leagueFinalise(k.ranking, k.outcome, promote, demote);
  const users: Decided['users'] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const o = outcomeOf(String(flat[i + 1]));
    if (o !== null) users.push({ userId: String(flat[i]), ...o });
  }
  return { now: now === 1, users: users.sort((a, b) => a.rank - b.rank) };
}
