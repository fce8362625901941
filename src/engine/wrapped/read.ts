/**
 * What the user's year in review reads (`GET /v1/users/{id}/wrapped`): the user's hash and streak
 * history, their hash of each metric and points system given (the user's keys share a slot: one
 * pipeline, on a Cluster too), and their rank changes in runs of boards. The route shapes the answer.
 */
import type { UserHash } from '../../domain/users.js';
import type { Context } from '../context.js';
import type { Leaderboard } from '../../model/entities.js';
import { userShard } from '../../redis/board-shards.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

export interface WrappedHashes {
  user: UserHash;
  /** Period -> streak length. */
  history: Record<string, string>;
  /** Per metric given, in order: the user's hash of it. */
  metrics: Record<string, string>[];
  /** Per points system given, in order: the user's points hash of it. */
  points: Record<string, string>[];
}

/** The user's hashes, or null when there is no such user. */
export async function wrappedHashes(deps: Deps, tenant: string, userId: string, metricIds: string[], systemIds: string[]): Promise<WrappedHashes | null> {
  const { redis, keys } = deps;
  const u = keys.forUser(tenant, userId);
  const pipeline = redis.pipeline().hgetall(u.user).hgetall(u.history);
  for (const id of metricIds) pipeline.hgetall(keys.userMetric(u, id));
  for (const id of systemIds) pipeline.hgetall(keys.userPoints(u, id).days);
  const hashes = ((await pipeline.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value as Record<string, string>;
  });
  const user: UserHash = hashes[0];
  if (user.id === undefined) return null;
  return { user, history: hashes[1], metrics: hashes.slice(2, 2 + metricIds.length), points: hashes.slice(2 + metricIds.length) };
}

/** The user's stored rank changes in each of a board's runs given (their group's), newest first. */
export function rankChanges(deps: Deps, tenant: string, board: Pick<Leaderboard, 'id' | 'shards'>, runs: string[], group: string, userId: string): Promise<string[][]> {
  const { redis, keys } = deps;
  return Promise.all(runs.map((run) => redis.lrange(userShard(keys, tenant, board, run, group, userId).history(userId), 0, -1)));
}
