/**
 * How the tenant's active streaks spread over lengths (the dashboard's analytics): the ranking of
 * active streaks, pruned of the lost ones first, counted by bucket (domain/analytics.ts). A score's
 * whole part is the length (src/routes/app/streaks.ts reads it so).
 */
import { STREAK_BUCKETS } from '../../domain/analytics.js';
import type { Context } from '../context.js';
import { pruneStreakRanking } from './prune-ranking.js';

export async function streakLengths(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, tenant: string): Promise<{ from: number; to: number | null; users: number }[]> {
  await pruneStreakRanking(deps, tenant);
  const active = deps.keys.streakRankings(tenant).active;
  const counts = await Promise.all(STREAK_BUCKETS.map(([from, to]) => deps.redis.zcount(active, from, to === null ? '+inf' : `(${to + 1}`)));
  return STREAK_BUCKETS.map(([from, to], i) => ({ from, to, users: counts[i] }));
}
