/**
 * The streaks' reads (`GET /v1/users/{id}/streak`, `GET /v1/streaks`, `GET /v1/streaks/rankings`):
 * a user's hash with their streak history, a user's rank in the tenant's active ranking, several
 * users' hashes, and a page of a ranking with its users' names. Lost streaks leave the active
 * ranking before it is read. The routes shape the answers.
 */
import type { UserHash } from '../../domain/users.js';
import { readPlaces } from '../../redis/rankings.js';
import type { Context } from '../context.js';
import { pruneStreakRanking } from './prune-ranking.js';
import { streakStanding } from './rankings.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock'>;

/** A user's hash and streak history (period -> length), read together; null when no such user. */
export async function userWithHistory(deps: Deps, tenant: string, userId: string): Promise<{ user: UserHash; history: Record<string, string> } | null> {
  const u = deps.keys.forUser(tenant, userId);
  const [[e1, user], [e2, history]] = (await deps.redis.pipeline().hgetall(u.user).hgetall(u.history).exec()) as [
    [Error | null, UserHash], [Error | null, Record<string, string>],
  ];
  if (e1 || e2) throw e1 ?? e2;
  return user.id === undefined ? null : { user, history };
}

/** Users' hashes (an empty one for a user that does not exist). */
export function userHashes(deps: Deps, tenant: string, userIds: string[]): Promise<UserHash[]> {
  return Promise.all(userIds.map((id) => deps.redis.hgetall(deps.keys.forUser(tenant, id).user)));
}

/** A user's rank in the tenant's active streak ranking, or null. */
export async function activeRank(deps: Deps, tenant: string, userId: string): Promise<number | null> {
  await pruneStreakRanking(deps, tenant);
  // The ranking's member: '<order>|<user id>' (lua/streakRank-4.lua), or the id itself from before.
  const member = (await streakStanding(deps, tenant, userId))?.active ?? userId;
  const r = await deps.redis.zrevrank(deps.keys.streakRankings(tenant).active, member);
  return r === null ? null : r + 1;
}

/** The first `limit` of the tenant's active or longest streaks, with their users' names. */
export async function streakRankingPage(deps: Deps, tenant: string, type: 'active' | 'longest', limit: number): Promise<{ userId: string; name: string | null; streakLength: number }[]> {
  const { redis, keys } = deps;
  const k = keys.streakRankings(tenant);
  if (type === 'active') await pruneStreakRanking(deps, tenant);
  // Scores written before carry a tie-breaking fraction: the length is their whole part.
  const places = await readPlaces(redis, type === 'active' ? k.active : k.longest, 0, limit);
  const names = await Promise.all(places.map((p) => redis.hget(keys.forUser(tenant, p.userId).user, 'name')));
  return places.map((p, i) => ({ userId: p.userId, name: names[i], streakLength: Math.floor(p.value) }));
}
