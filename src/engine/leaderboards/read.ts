/**
 * The leaderboards' reads (`GET /v1/leaderboards/{key}`, `GET /v1/users/{id}/leaderboards/{key}`):
 * a page of a run's ranking with its users' names, what the workers recorded of a finalised run,
 * and a user's place with its stored changes. The routes shape the answers; the stored forms are
 * src/redis/rankings.ts's and src/redis/board-state.ts's.
 */
import { breakdownGroup, breakdownKeys, groupName } from '../../domain/leaderboards/runs.js';
import { attributeField } from '../../model/fields.js';
import type { Leaderboard } from '../../model/entities.js';
import type { RankingView } from '../../model/views.js';
import { runOutcome, type Winner } from '../../redis/board-state.js';
import { readPlaces } from '../../redis/rankings.js';
import type { Context } from '../context.js';
import { pruneStreakBoard } from '../streaks/prune-lost.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** A run of a board, and one of its breakdown groups ('' for a board without). */
export interface RunRef {
  tenant: string;
  lb: Leaderboard;
  run: string;
  group: string;
}

/** The ranking's keys of a run's group, a streak board's lost streaks taken out first. */
async function rankingOf(deps: Deps, ref: RunRef) {
  const k = deps.keys.leaderboard(ref.tenant, ref.lb.id, ref.run, ref.group);
  if (ref.lb.rankBy === 'streak') await pruneStreakBoard(deps, k);
  return k;
}

/**
 * `limit` places of a run's ranking from `offset`, counted from `around`'s place when given (none
 * when that user is not ranked), each with the user's name.
 */
export async function rankingPage(deps: Deps, ref: RunRef, offset: number, limit: number, around: string | null): Promise<RankingView[]> {
  const { redis, keys } = deps;
  const k = await rankingOf(deps, ref);
  let start = offset;
  if (around !== null) {
    const member = await redis.hget(k.members, around);
    const rank = member === null ? null : await redis.zrevrank(k.ranking, member);
    if (rank === null) return [];
    start = rank + offset;
  }
  const places = await readPlaces(redis, k.ranking, start, limit);
  const names = await Promise.all(places.map((p) => redis.hget(keys.forUser(ref.tenant, p.userId).user, 'name')));
  return places.map((p, i) => ({ userId: p.userId, userName: names[i], rank: p.rank, value: p.value }));
}

/** When the workers finalised a run (null: not yet), and its group's winners. */
export function finalisedRun(deps: Deps, ref: RunRef): Promise<{ finalised: string | null; winners: Winner[] | null }> {
  return runOutcome(deps.redis, deps.keys.leaderboardIndex(ref.tenant, ref.lb.id).state, ref.run, ref.group);
}

/** A user of a tenant as a board's reads need them: their time zone, and their breakdown group (null: in none); null when no such user. */
export async function boardUser(deps: Deps, tenant: string, lb: Leaderboard, userId: string): Promise<{ tz: string; group: string | null } | null> {
  const snapshot = deps.store.current;
  const keys = breakdownKeys(lb, snapshot);
  const [exists, tz, ...values] = await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, 'id', 'tz', ...keys.map(attributeField));
  if (exists === null) return null;
  if (lb.breakdownAttributes.length === 0) return { tz: tz ?? '', group: '' };
  const group = breakdownGroup(lb, snapshot, (key) => values[keys.indexOf(key)]);
  return { tz: tz ?? '', group: group === null ? null : groupName(group) };
}

/** A user's rank and value in a run's group (null: not ranked), and with `history`, their stored changes (oldest first). */
export async function userPlace(deps: Deps, ref: RunRef, userId: string, history: boolean): Promise<{ rank: number | null; value: number | null; changes: string[] }> {
  const { redis } = deps;
  const k = await rankingOf(deps, ref);
  const [member, changes] = await Promise.all([redis.hget(k.members, userId), history ? redis.lrange(k.history(userId), 0, -1) : []]);
  if (member === null) return { rank: null, value: null, changes };
  const [rank, score] = await Promise.all([redis.zrevrank(k.ranking, member), redis.zscore(k.ranking, member)]);
  return { rank: rank === null ? null : rank + 1, value: score === null ? null : Number(score), changes };
}
