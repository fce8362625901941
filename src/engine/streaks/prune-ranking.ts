/**
 * Streaks are lost lazily, when nothing extends them in time: the tenant's ranking of active
 * streaks drops the lost ones before it is read (lua/streakPrune-3.lua; a streak board's run does
 * the same: src/engine/leaderboards/prune-streak-board.ts).
 */
import type { Context } from '../context.js';
import * as streakPrune from '../../redis/scripts/streakPrune.js';

/** The tenant's ranking of active streaks, at most `limit` lost ones at a time. */
export async function pruneStreakRanking(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, tenant: string, limit = 1000): Promise<void> {
  const k = deps.keys.streakRankings(tenant);
  await streakPrune.run(deps.redis, k, deps.clock.now(), limit);
}
