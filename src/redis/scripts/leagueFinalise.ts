/**
 * The codec of lua/leagueFinalise-2.lua: a league cohort's outcome decided once its run is final
 * (the recorded one answered when decided before), and whether the decision is in the event log.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { CohortCounts } from '../../model/log.js';
import { outcomeOf, type CohortOutcome } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueFinalise(ranking: string, outcomes: string, promote: number, demote: number, cohortSize: number): Result<(number | string)[], Context>;
  }
}

/** A cohort's outcome: whether decided by this call, whether logged, its counts, and each user's, the best ranked first. */
export interface Decided {
  now: boolean;
  logged: boolean;
  counts: CohortCounts;
  /** `text`: the outcome as the hash holds it ('<p|d|s>|<rank>|<value>'). */
  users: (CohortOutcome & { userId: string; text: string })[];
}

/** Each user's outcome as the hash holds it, by user id (an `outcome` entry's `o`). */
export function outcomeTexts(users: Decided['users']): Record<string, string> {
  // Object.fromEntries defines each id as a key of its own, '__proto__' too.
  return Object.fromEntries(users.map((u) => [u.userId, u.text]));
}

/**
 * Decides the cohort's outcome (`promote`, `demote`: how many of a full cohort move, 0 in the
 * highest and lowest tier; a smaller cohort moves in proportion to `cohortSize`).
 */
export async function run(redis: RedisClient, k: { ranking: string; outcome: string }, promote: number, demote: number, cohortSize: number): Promise<Decided> {
  const [now, logged, counts, ...flat] = await redis.leagueFinalise(k.ranking, k.outcome, promote, demote, cohortSize);
  const users: Decided['users'] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const text = String(flat[i + 1]);
    const o = outcomeOf(text);
    if (o === null) continue;
    users.push({ userId: String(flat[i]), text, ...o });
  }
  const [n, p, d, s] = String(counts).split('|').map(Number);
  return { now: now === 1, logged: logged === 1, counts: { n, p, d, s }, users: users.sort((a, b) => a.rank - b.rank) };
}
