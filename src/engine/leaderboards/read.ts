/**
 * The leaderboards' reads (`GET /v1/leaderboards/{key}`, `GET /v1/users/{id}/leaderboards/{key}`):
 * a page of a run's ranking with its users' names (from a rank, or around a user), a friends board
 * (the users a query names, ranked among themselves), what the workers recorded of a finalised
 * run, and a user's place with its stored changes; each with the run's (or group's) participants. The routes shape the answers; the stored forms are
 * src/redis/rankings.ts's and src/redis/board-state.ts's.
 */
import { breakdownGroup, breakdownKeys, groupName } from '../../domain/leaderboards/runs.js';
import { attributeField } from '../../model/fields.js';
import { CLOCK_FIELD, parseClock, type StoredClock } from '../../domain/clock.js';
import type { Leaderboard } from '../../model/entities.js';
import type { FriendRankingView, RankingView } from '../../model/views.js';
import { percentileOf } from '../../domain/leaderboards/cap.js';
import { runOutcome, type Winner } from '../../redis/board-state.js';
import type { Place } from '../../redis/rankings.js';
import {
  participantsOfRun, placeOfRunUser, placesOfRunUsers, readRunAround, readRunPlaces, shardOf, type Shards,
} from '../../redis/sharded-rankings.js';
import { runShards } from '../../redis/board-shards.js';
import type { Context } from '../context.js';
import { pruneStreakBoard } from './prune-streak-board.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** A run of a board, and one of its breakdown groups ('' for a board without), or one of its league's cohorts. */
export interface RunRef {
  tenant: string;
  lb: Leaderboard;
  run: string;
  group: string;
  /** A league's cohort (its tier index and number from 0) instead of the run's ranking. */
  cohort?: { tier: number; n: number };
}

/** The rankings of a run's group (its shards, shard 0 first), a streak board's lost streaks taken out first. */
async function rankingOf(deps: Deps, ref: RunRef): Promise<Shards> {
  const shards = ref.cohort === undefined
    ? runShards(deps.keys, ref.tenant, ref.lb, ref.run, ref.group)
    : [deps.keys.leagueCohort(ref.tenant, ref.lb.id, ref.run, ref.cohort.tier, ref.cohort.n)];
  if (ref.lb.rankBy === 'streak') for (const k of shards) await pruneStreakBoard(deps, k);
  return shards;
}

/** A user's name (null: none, or no such user). */
function nameOf(deps: Deps, tenant: string, userId: string): Promise<string | null> {
  return deps.redis.hget(deps.keys.forUser(tenant, userId).user, 'name');
}

/** Places with their users' names; those of `known` (user id -> name) as read already. */
export async function named(deps: Deps, tenant: string, places: Place[], known?: ReadonlyMap<string, string | null>): Promise<(Place & { userName: string | null })[]> {
  const names = await Promise.all(places.map((p) => (known?.has(p.userId) ? known.get(p.userId)! : nameOf(deps, tenant, p.userId))));
  return places.map((p, i) => ({ ...p, userName: names[i] }));
}

/** A page of a run's ranking, its participants, and the place of the user it was read around (null: none, or not ranked). */
export interface RankingPage {
  rankings: RankingView[];
  participants: number;
  around: { rank: number; percentile: number } | null;
}

/**
 * `limit` places of a run's ranking from `offset`, counted from `around`'s place when given (none
 * when that user is not ranked; a negative offset then reaches above it, up to the top), each with
 * the user's name.
 */
export async function rankingPage(deps: Deps, ref: RunRef, offset: number, limit: number, around: string | null): Promise<RankingPage> {
  const { redis } = deps;
  const shards = await rankingOf(deps, ref);
  const count = participantsOfRun(redis, shards);
  let places: Place[];
  let place: RankingPage['around'] = null;
  let known: Map<string, string | null> | undefined;
  if (around !== null) {
    // A ranked user is on the page read around them when it starts at or above them and reaches
    // them: their name is read beside their place, not after it (a user's own rank, `limit=1`,
    // then takes one round trip).
    const own = offset <= 0 && offset + limit > 0 ? nameOf(deps, ref.tenant, around) : null;
    own?.catch(() => undefined);
    const read = await readRunAround(redis, shards, around, offset, limit);
    if (read === null) return { rankings: [], participants: await count, around: null };
    place = { rank: read.place.rank, percentile: 0 };
    places = read.places;
    if (own !== null) known = new Map([[around, await own]]);
  } else {
    places = await readRunPlaces(redis, shards, offset, limit);
  }
  const participants = await count;
  if (place !== null) place.percentile = percentileOf(place.rank, participants);
  const rankings = (await named(deps, ref.tenant, places, known)).map((p) => ({
    userId: p.userId, userName: p.userName, rank: p.rank, value: p.value, percentile: percentileOf(p.rank, participants),
  }));
  return { rankings, participants, around: place };
}

/**
 * A friends board: the users of `userIds` on a run's ranking, ranked among themselves (`rank`, in
 * the ranking's order, its ties included), each with their place on the whole ranking
 * (`boardRank`, `percentile`); the users not on it left out.
 */
export async function friendsBoard(deps: Deps, ref: RunRef, userIds: string[]): Promise<{ rankings: FriendRankingView[]; participants: number }> {
  const { redis } = deps;
  const shards = await rankingOf(deps, ref);
  const [places, participants] = await Promise.all([placesOfRunUsers(redis, shards, userIds), participantsOfRun(redis, shards)]);
  const rankings = (await named(deps, ref.tenant, places)).map((p, i) => ({
    userId: p.userId, userName: p.userName, rank: i + 1, boardRank: p.rank, value: p.value, percentile: percentileOf(p.rank, participants),
  }));
  return { rankings, participants };
}

/** When the workers finalised a run (null: not yet), and its group's winners. */
export function finalisedRun(deps: Deps, ref: RunRef): Promise<{ finalised: string | null; winners: Winner[] | null }> {
  return runOutcome(deps.redis, deps.keys.leaderboardIndex(ref.tenant, ref.lb.id).state, ref.run, ref.group);
}

/** A user of a tenant as a board's reads need them: their time zone, and their breakdown group (null: in none); null when no such user. */
export async function boardUser(
  deps: Deps, tenant: string, lb: Leaderboard, userId: string,
): Promise<{ tz: string; clock: StoredClock | null; group: string | null } | null> {
  const snapshot = deps.store.current;
  const keys = breakdownKeys(lb, snapshot);
  const [exists, tz, ck, ...values] = await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, 'id', 'tz', CLOCK_FIELD, ...keys.map(attributeField));
  if (exists === null) return null;
  const clock = parseClock(ck);
  if (lb.breakdownAttributes.length === 0) return { tz: tz ?? '', clock, group: '' };
  const group = breakdownGroup(lb, snapshot, (key) => values[keys.indexOf(key)]);
  return { tz: tz ?? '', clock, group: group === null ? null : groupName(group) };
}

/** A user's place in a run's group: rank and value (null: not ranked), the group's participants, and the stored changes. */
export interface UserPlace {
  rank: number | null;
  value: number | null;
  participants: number;
  percentile: number | null;
  changes: string[];
}

/** A user's place in a run's group, and with `history`, their stored changes (oldest first). */
export async function userPlace(deps: Deps, ref: RunRef, userId: string, history: boolean): Promise<UserPlace> {
  const { redis } = deps;
  const shards = await rankingOf(deps, ref);
  const [found, changes, participants] = await Promise.all([
    placeOfRunUser(redis, shards, userId), history ? redis.lrange(shardOf(shards, userId).history(userId), 0, -1) : [], participantsOfRun(redis, shards),
  ]);
  const place = found === null ? null : found.rank;
  return {
    rank: place, value: found === null ? null : found.value, participants,
    percentile: place === null ? null : percentileOf(place, participants), changes,
  };
}
