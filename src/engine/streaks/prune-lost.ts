/**
 * Streaks are lost lazily, when nothing extends them in time: the rankings that hold them drop the
 * lost ones before they are read (lua/streakPrune-3.lua, lua/leaderboardPrune-5.lua).
 */
import type { LeaderboardKeys } from '../../redis/keys.js';
import type { Context } from '../context.js';
import * as leaderboardPrune from '../../redis/scripts/leaderboardPrune.js';
import * as streakPrune from '../../redis/scripts/streakPrune.js';

/** The tenant's ranking of active streaks, at most `limit` lost ones at a time. */
export async function pruneStreakRanking(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, tenant: string, limit = 1000): Promise<void> {
  const k = deps.keys.streakRankings(tenant);
  await streakPrune.run(deps.redis, k, deps.clock.now(), limit);
}

/** A streak board's run (and group). */
export async function pruneStreakBoard(deps: Pick<Context, 'redis' | 'clock'>, k: LeaderboardKeys): Promise<void> {
  await leaderboardPrune.run(deps.redis, k, deps.clock.now());
}
