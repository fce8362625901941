/**
 * Streaks are lost lazily, when nothing extends them in time: a streak board's run drops the lost
 * ones before it is read (lua/leaderboardPrune-5.lua; the tenant's ranking of active streaks does
 * the same: src/engine/streaks/prune-ranking.ts).
 */
import type { LeaderboardKeys } from '../../redis/keys.js';
import type { Context } from '../context.js';
import * as leaderboardPrune from '../../redis/scripts/leaderboardPrune.js';

/** A streak board's run (and group). */
export async function pruneStreakBoard(deps: Pick<Context, 'redis' | 'clock'>, k: LeaderboardKeys): Promise<void> {
  await leaderboardPrune.run(deps.redis, k, deps.clock.now());
}
