/**
 * A run's top places by breakdown group, as a finalisation records them (./finalise.ts,
 * src/engine/batches/import-runs.ts): the top three of each group are its winners.
 */
import type { Deps } from '../deps.js';
import type { RankedUser } from '../../domain/webhooks/clock-events.js';
import type { Leaderboard } from '../../model/entities.js';
import { runShards } from '../../redis/board-shards.js';
import { readRunPlaces } from '../../redis/sharded-rankings.js';

/** Each group's top `count` (at least 3) of a run of `lb`, by group ('' without a breakdown). */
export async function topOfRun(deps: Pick<Deps, 'redis' | 'keys'>, tenant: string, lb: Leaderboard, runStart: string, count: number): Promise<Map<string, RankedUser[]>> {
  const { redis, keys } = deps;
  const groups = lb.breakdownAttributes.length === 0 ? [''] : await redis.smembers(keys.leaderboardIndex(tenant, lb.id).groups(runStart));
  const tops = new Map<string, RankedUser[]>();
  for (const group of groups) tops.set(group, await readRunPlaces(redis, runShards(keys, tenant, lb, runStart, group), 0, Math.max(3, count)));
  return tops;
}

/** The winners of each group: its top three. */
export function winnersOfTops(tops: Map<string, RankedUser[]>): Record<string, RankedUser[]> {
  const winners: Record<string, RankedUser[]> = {};
  for (const [group, ranked] of tops) winners[group] = ranked.slice(0, 3);
  return winners;
}
