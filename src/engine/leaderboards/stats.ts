/**
 * A board's statistics (`GET /admin/v1/leaderboards/{id}/stats`, docs/api.md): a run's
 * participants, its rank changes and its score distribution, and the participants of the runs
 * before it. Every figure comes from what the board keeps as it moves (the rankings' sizes and
 * scores, the rank changes lua/leaderboardRank-8.lua counts): no read scans a ranking. A board
 * with breakdown attributes sums its groups, and one with shards its shards.
 */
import { bucketsOf, type Bucket } from '../../domain/leaderboards/distribution.js';
import { runOf, runStart } from '../../domain/leaderboards/runs.js';
import type { Leaderboard } from '../../model/entities.js';
import { bucketCounts, runCounts, sizeOf, type RankChanges } from '../../redis/board-stats.js';
import type { Context } from '../context.js';
import { pruneStreakBoard } from './prune-streak-board.js';
import { runShards } from '../../redis/board-shards.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock'>;

/** Runs whose participants the statistics list: the run read and those before it. */
export const RUNS_LISTED = 10;

export interface BoardStats {
  participants: number;
  /** Breakdown groups the run has (0 on a board without breakdown attributes). */
  groups: number;
  rankChanges: RankChanges;
  distribution: (Bucket & { participants: number })[];
  runs: { run: string; runEnd: string | null; participants: number }[];
}

/** The rankings of a run: its breakdown groups' ('' alone on a board without). */
async function rankingsOf(deps: Deps, tenant: string, lb: Leaderboard, run: string) {
  const groups = lb.breakdownAttributes.length === 0 ? [''] : await deps.redis.smembers(deps.keys.leaderboardIndex(tenant, lb.id).groups(run));
  // Every shard of every group: the figures add up.
  const rankings = groups.flatMap((g) => runShards(deps.keys, tenant, lb, run, g));
  // A streak board's lost streaks hold no place: taken out as before any read of it.
  if (lb.rankBy === 'streak') for (const k of rankings) await pruneStreakBoard(deps, k);
  return { groups: lb.breakdownAttributes.length === 0 ? 0 : groups.length, rankings };
}

/** The statistics of the run of `lb` starting on `run`. */
export async function boardStats(deps: Deps, tenant: string, lb: Leaderboard, run: { start: string; end: string | null }): Promise<BoardStats> {
  const { redis } = deps;
  const { groups, rankings } = await rankingsOf(deps, tenant, lb, run.start);
  const counts = await Promise.all(rankings.map((k) => runCounts(redis, k)));
  const sum = (f: (c: (typeof counts)[number]) => number) => counts.reduce((s, c) => s + f(c), 0);
  const lows = counts.flatMap((c) => (c.lowest === null ? [] : [c.lowest]));
  const highs = counts.flatMap((c) => (c.highest === null ? [] : [c.highest]));
  let distribution: BoardStats['distribution'] = [];
  if (lows.length > 0) {
    const buckets = bucketsOf(Math.min(...lows), Math.max(...highs));
    const perRanking = await Promise.all(rankings.map((k) => bucketCounts(redis, k, buckets)));
    distribution = buckets.map((b, i) => ({ ...b, participants: perRanking.reduce((s, c) => s + c[i], 0) }));
  }
  const participants = sum((c) => c.participants);
  return {
    participants,
    groups,
    rankChanges: { entered: sum((c) => c.changes.entered), moved: sum((c) => c.changes.moved), pushedOut: sum((c) => c.changes.pushedOut) },
    distribution,
    runs: [{ run: run.start, runEnd: run.end, participants }, ...await runsBefore(deps, tenant, lb, run.start)],
  };
}

/** Up to RUNS_LISTED - 1 runs before the one starting on `start`, newest first, with their participants. */
async function runsBefore(deps: Deps, tenant: string, lb: Leaderboard, start: string): Promise<BoardStats['runs']> {
  const current = runOf(lb, start);
  if (current === null) return [];
  const runs: BoardStats['runs'] = [];
  for (let k = current.k - 1; k >= 0 && k > current.k - RUNS_LISTED; k--) {
    const r = runOf(lb, runStart(lb, k));
    if (r === null) break;
    const { rankings } = await rankingsOf(deps, tenant, lb, r.start);
    const sizes = await Promise.all(rankings.map((rk) => sizeOf(deps.redis, rk)));
    runs.push({ run: r.start, runEnd: r.end, participants: sizes.reduce((s, n) => s + n, 0) });
  }
  return runs;
}
