/**
 * A leaderboard's state hash (src/redis/keys.ts leaderboardIndex): per run, when it was finalised
 * (`f:<run>`) and the winners of each breakdown group (`w:<run>:<group>`, JSON), and `last`, the
 * last run finalised (src/engine/leaderboards/finalised.ts writes them); the top 10 the webhooks
 * last reported of a run's group (`c:<run>:<group>`, src/engine/webhooks/rankings.ts).
 */
import type { RedisClient } from './client.js';

/** A run's winner: the top three of a group. */
export interface Winner {
  userId: string;
  rank: number;
  value: number;
}

/** The field of a group's winners in a run. */
const winnersField = (run: string, group: string): string => `w:${run}:${group}`;

/** The winners a state hash (as read whole) records: each run's groups. */
export function winnersOf(state: Record<string, string>): { run: string; group: string; winners: Winner[] }[] {
  const out: { run: string; group: string; winners: Winner[] }[] = [];
  for (const [field, value] of Object.entries(state)) {
    if (!field.startsWith('w:')) continue;
    // A run has no ':', a group may.
    const at = field.indexOf(':', 2);
    out.push({ run: field.slice(2, at), group: field.slice(at + 1), winners: JSON.parse(value) as Winner[] });
  }
  return out;
}

/** Records the winners of a run's group again (an erased user taken out). */
export async function rewriteWinners(redis: RedisClient, state: string, run: string, group: string, winners: Winner[]): Promise<void> {
  await redis.hset(state, winnersField(run, group), JSON.stringify(winners));
}

/** The fields that record a run finalised, with its winners per group, and `last` when it moves on. */
export function finalisedFields(run: string, at: string, winners: Record<string, Winner[]>, moveLast: boolean): string[] {
  const fields = [`f:${run}`, at];
  for (const [group, w] of Object.entries(winners)) fields.push(winnersField(run, group), JSON.stringify(w));
  if (moveLast) fields.push('last', run);
  return fields;
}

/** The last run finalised, or null. */
export function lastFinalised(redis: RedisClient, state: string): Promise<string | null> {
  return redis.hget(state, 'last');
}

/** When a run was finalised (null: not yet), and the winners of a group (null: none recorded). */
export async function runOutcome(redis: RedisClient, state: string, run: string, group: string): Promise<{ finalised: string | null; winners: Winner[] | null }> {
  const [finalised, winners] = await redis.hmget(state, `f:${run}`, winnersField(run, group));
  return { finalised, winners: winners === null ? null : JSON.parse(winners) as Winner[] };
}

/** The field of the top 10 the webhooks last reported of a run's group. */
export const reportedTopField = (run: string, group: string): string => `c:${run}:${group}`;

/** Whether a run was finalised. */
export async function isFinalised(redis: RedisClient, state: string, run: string): Promise<boolean> {
  return (await redis.hexists(state, `f:${run}`)) === 1;
}
