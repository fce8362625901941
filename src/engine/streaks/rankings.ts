/**
 * A user's standing in the tenant's streak rankings (GET /streaks/rankings, the rank of GET
 * /users/{id}/streak): written by phase 2 of the event that extended the streak, before its answer,
 * so a read that follows the 201 sees the event; by the admin's streak operations; and again by the
 * replay of an event whose api process died before its phase 2
 * (src/engine/durability/replay-phase2.ts). Absolute values, ordered by the log entry id of the
 * event (lua/streakRank-4.lua): a later write of an earlier state changes nothing.
 *
 * (The points totals the summaries read are written by the awarding script itself, in the user's
 * slot: lua/includes/points.lua.)
 */
import { orderOf } from '../../domain/leaderboards/runs.js';
import type { StreakStanding } from '../../domain/streaks/standing.js';
import type { Context } from '../context.js';
import * as streakRank from '../../redis/scripts/streakRank.js';

/**
 * Records one user's streak in the tenant's rankings (lua/streakRank-4.lua): equal lengths rank by
 * arrival, the log entry id `seq` of the event or operation (src/domain/leaderboards/runs.ts orderOf;
 * the service time `at` without one), or by `at` for an event sent with `occurredAt` (`timed`).
 */
export function rankStreak(
  deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string, streak: StreakStanding, at: number, seq: string, timed = false,
): Promise<number> {
  const k = deps.keys.streakRankings(tenant);
  return streakRank.run(deps.redis, k, { userId, length: streak.length, longest: streak.longest, expiry: streak.expiry, seq, order: timed ? orderOf(at) : orderOf(at, seq) });
}

/** What the standing hash holds of a user (lua/streakRank-4.lua), as the readers need it. */
export interface HeldStanding {
  /** The log entry id last taken ('' for none). */
  seq: string;
  /** The user's member in the active ranking, or null when the user has none there. */
  active: string | null;
  /** The user's member in the longest ranking, or null. */
  longest: string | null;
}

/** A user's field of the standing hash ('<seq>|<active order>|<active length>|<longest order>|<longest length>'); null: none. */
export function heldStanding(text: string | null, userId: string): HeldStanding | null {
  if (text === null) return null;
  const [seq, activeOrder, activeLength, longestOrder, longest] = text.split('|');
  // An empty order with a length: the member written before members carried one, the user id itself.
  const member = (order: string, length: string) => (length === '' ? null : order === '' ? userId : `${order}|${userId}`);
  return { seq, active: member(activeOrder, activeLength), longest: member(longestOrder, longest) };
}

/** A user's members in the tenant's streak rankings, and the log entry id last taken. */
export async function streakStanding(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string): Promise<HeldStanding | null> {
  return heldStanding(await deps.redis.hget(deps.keys.streakRankings(tenant).standing, userId), userId);
}
