/**
 * A leaderboard run finalised (src/engine/leaderboards/finalise.ts): when, and its winners (the
 * top three of each breakdown group), kept in the board's state hash (src/redis/keys.ts leaderboardIndex) with
 * `last`, the last run finalised. The pass appends a `finalised` entry to the event log first
 * (src/model/log.ts), so a restore replays what the pass wrote after the snapshot it starts from:
 * the very time and winners, before any worker runs again (src/engine/durability/restore.ts).
 */
import { finalisedEntry, type FinalisedRun } from '../../model/log.js';
import type { Context } from '../context.js';
import * as logAppend from '../../redis/scripts/logAppend.js';
import { finalisedFields, lastFinalised } from '../../redis/board-state.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

/** The run's state in the board's hash; `last` only moves on (a restore replays entries the snapshot held too). */
export async function writeFinalised(deps: Deps, run: FinalisedRun): Promise<void> {
  const state = deps.keys.leaderboardIndex(run.t, run.b).state;
  const last = await lastFinalised(deps.redis, state);
  await deps.redis.hset(state, ...finalisedFields(run.r, run.at, run.w, last === null || last < run.r));
}

/** Logs the run finalised, then writes its state. */
export async function recordFinalised(deps: Deps, run: FinalisedRun): Promise<void> {
  const { redis, keys } = deps;
  await logAppend.run(redis, keys.partitionLog(keys.partitionOf(run.t, run.b)), 'finalised', finalisedEntry(run));
  await writeFinalised(deps, run);
}
