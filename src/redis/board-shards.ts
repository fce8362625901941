/**
 * The keys of a board's run by shard (src/domain/leaderboards/shards.ts): every ranking of a run
 * (and group), for the reads (sharded-rankings.ts), and the one a user is placed in, for
 * what writes or reads one user's keys there (their member, history, awards).
 */
import { shardOfUser, shardsOf, spreadOf } from '../domain/leaderboards/shards.js';
import type { Leaderboard } from '../model/entities.js';
import type { Keys, LeaderboardKeys } from './keys.js';

/** Every shard's keys of a run's group (`group` '' without breakdown), shard 0 first. */
export function runShards(keys: Keys, tenant: string, lb: Pick<Leaderboard, 'id' | 'shards' | 'shardSlots'>, run: string, group: string): LeaderboardKeys[] {
  const n = shardsOf(lb);
  const spread = spreadOf(lb);
  const out: LeaderboardKeys[] = [];
  for (let i = 0; i < n; i++) out.push(keys.leaderboard(tenant, lb.id, run, group, i, spread));
  return out;
}

/** The keys of the shard of a run's group that `userId` is placed in. */
export function userShard(keys: Keys, tenant: string, lb: Pick<Leaderboard, 'id' | 'shards' | 'shardSlots'>, run: string, group: string, userId: string): LeaderboardKeys {
  return keys.leaderboard(tenant, lb.id, run, group, shardOfUser(userId, shardsOf(lb)), spreadOf(lb));
}
