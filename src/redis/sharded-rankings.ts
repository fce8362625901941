/**
 * A run's ranking read whole, whether it is one sorted set or a board's shards
 * (src/domain/leaderboards/shards.ts): every reader of a run's places goes through here. `shards`
 * lists the run's (or group's) rankings, shard 0 first; a board without shards has one, read as
 * ever. Over several shards, one ranking's order is kept exactly: a higher value first, and equal
 * values in the order of their members (`<order>|<user id>`, compared byte by byte as Redis does):
 * - users' places: each shard's users read in one call (lua/leaderboardPlaces-2.lua: member,
 *   value, position), then every shard counts the members above all the users of the others in
 *   one call (lua/leaderboardAbove-1.lua); a user's rank is 1 plus their position in their shard
 *   plus those counts. A read of n users makes two calls a shard, whatever n;
 * - the participants are the sum of the shards' sizes;
 * - a page from position `start` merges the shards' members from a pivot (src/redis/shard-merge.ts),
 *   each shard read a chunk at a time as far as the merge reaches: from the top for a page near
 *   it, from the user's place around a user, and for a deep page from a pivot found by halves (a
 *   member of the largest shard whose place on the run is at or just above `start`).
 * A read touches every shard: what one ranking does in one command costs one per shard.
 */
import { shardOfUser } from '../domain/leaderboards/shards.js';
import type { RedisClient } from './client.js';
import type { LeaderboardKeys } from './keys.js';
import { atMostAtOnce } from '../lib/at-once.js';
import { listIn } from '../lib/lists.js';
import { participantsOf, readPlaces, userOfMember, type Place } from './rankings.js';
import { compare, mergeDown, mergeUp, type Entry } from './shard-merge.js';
import * as leaderboardAbove from './scripts/leaderboardAbove.js';
import * as leaderboardPlaces from './scripts/leaderboardPlaces.js';
import * as leaderboardAround from './scripts/leaderboardAround.js';
import * as historyRestate from './scripts/historyRestate.js';

/** The rankings of one run (and group): shard 0 first. */
export type Shards = readonly LeaderboardKeys[];

/** The keys of the shard `userId` is placed in. */
export function shardOf(shards: Shards, userId: string): LeaderboardKeys {
  return shards[shardOfUser(userId, shards.length)];
}

/** How many users the run holds, over its shards. */
export async function participantsOfRun(redis: RedisClient, shards: Shards): Promise<number> {
  if (shards.length === 1) return participantsOf(redis, shards[0].ranking);
  const sizes = await Promise.all(shards.map((k) => participantsOf(redis, k.ranking)));
  return sizes.reduce((s, n) => s + n, 0);
}

/** A user found on the run: their member and score in their shard, and their position there. */
interface Found {
  userId: string;
  member: string;
  score: string;
  /** Their shard's index. */
  shard: number;
  /** The members above them in their shard. */
  position: number;
}

/**
 * The members, scores and positions of `userIds` in their shards (those not on the run left out):
 * one call for each shard that holds any of them, all of a shard's read at one moment.
 */
async function found(redis: RedisClient, shards: Shards, userIds: readonly string[]): Promise<Found[]> {
  const byShard = new Map<number, string[]>();
  for (const u of userIds) listIn(byShard, shardOfUser(u, shards.length)).push(u);
  const read = await Promise.all([...byShard].map(async ([shard, ids]) => {
    const held = await leaderboardPlaces.run(redis, shards[shard], ids);
    return ids.flatMap((userId, i) => {
      const h = held[i];
      return h === null ? [] : [{ userId, member: h.member, score: h.score, shard, position: h.position }];
    });
  }));
  return read.flat();
}

/** The shards counting the places of a read of several users at once, at most. */
const CALLS_AT_ONCE = 8;

/**
 * The members above each user found in each shard: `count(i, shard, n)` for the i-th user, their
 * own position in their shard and, in each other shard, a count there (one call a shard for every
 * user, the places asked best first, so that those of one value share their counts:
 * lua/leaderboardAbove-1.lua).
 */
async function countAbove(redis: RedisClient, shards: Shards, users: readonly Found[], count: (i: number, shard: number, n: number) => void): Promise<void> {
  users.forEach((u, i) => count(i, u.shard, u.position));
  if (shards.length === 1 || users.length === 0) return;
  const entries = users.map((u) => ({ member: u.member, score: Number(u.score) }));
  const order = users.map((_, i) => i).sort((a, b) => compare(entries[a], entries[b]));
  const packed = leaderboardAbove.pack(order.map((i) => users[i]));
  // The places go to every shard: a few calls at a time hold a few copies of them, not one a shard.
  await atMostAtOnce(shards, CALLS_AT_ONCE, async (k, shard) => {
    const counts = await leaderboardAbove.run(redis, k.ranking, shard, packed);
    counts.forEach((n, j) => { if (n !== null) count(order[j], shard, n); });
  });
}

/** A user on the run and the members above them in each shard; null when not on it. */
async function splitsOfUser(redis: RedisClient, shards: Shards, userId: string): Promise<{ user: Found; above: number[] } | null> {
  const [user] = await found(redis, shards, [userId]);
  if (user === undefined) return null;
  const above = shards.map(() => 0);
  await countAbove(redis, shards, [user], (_, shard, n) => { above[shard] = n; });
  return { user, above };
}

/** The places of `userIds` on the run, in its order; the users not on it left out. */
export async function placesOfRunUsers(redis: RedisClient, shards: Shards, userIds: readonly string[]): Promise<Place[]> {
  const users = await found(redis, shards, userIds);
  const ranks = users.map(() => 1);
  await countAbove(redis, shards, users, (i, _, n) => { ranks[i] += n; });
  return users.map((u, i) => ({ userId: u.userId, rank: ranks[i], value: Number(u.score) })).sort((a, b) => a.rank - b.rank);
}

/** A user's place on the run, or null when not on it. */
export async function placeOfRunUser(redis: RedisClient, shards: Shards, userId: string): Promise<Place | null> {
  if (shards.length === 1) return (await leaderboardAround.run(redis, shards[0], userId, 0, 0))?.place ?? null;
  return (await placesOfRunUsers(redis, shards, [userId]))[0] ?? null;
}

/**
 * `count` places from the 0-based position `start`, given where a pivot sits in each shard
 * (`splits[i]`: the members of shard i above it; their sum, the pivot's position on the run): the
 * shards' members merged from the pivot up to `start` and down past it (src/redis/shard-merge.ts).
 */
async function pageNear(redis: RedisClient, shards: Shards, splits: readonly number[], start: number, count: number): Promise<Place[]> {
  const pivot = splits.reduce((s, n) => s + n, 0);
  const rankings = shards.map((k) => k.ranking);
  // The page's places above the pivot (positions start to pivot - 1), and from it down.
  const wantUp = Math.max(0, pivot - start);
  const up = Math.min(count, wantUp);
  const down = count - up;
  const [above, below] = await Promise.all([
    up > 0 ? mergeUp(redis, rankings, splits, wantUp) : Promise.resolve([]),
    down > 0 ? mergeDown(redis, rankings, splits, Math.max(0, start - pivot), down) : Promise.resolve([]),
  ]);
  const place = (e: Entry, position: number): Place => ({ userId: userOfMember(e.member), rank: position + 1, value: e.score });
  // The members read above the pivot are the positions right above it (fewer than asked only if
  // the shards changed meanwhile).
  const places = above.slice(0, up).map((e, i) => place(e, pivot - above.length + i));
  below.forEach((e, i) => places.push(place(e, Math.max(start, pivot) + i)));
  return places;
}

/**
 * A placement in one shard recorded the user's ranks there in their history
 * (src/domain/leaderboards/rank-history.ts): that entry (its time and the shard's ranks, not yet
 * stated again) is stated again with the ranks on the whole run, in one script
 * (lua/historyRestate-1.lua), so that concurrent placements of the user each state their own.
 */
export async function restateLatestChange(
  redis: RedisClient, history: string, at: number, shardRanks: [previous: number, rank: number], runRanks: [previous: number, rank: number],
): Promise<void> {
  await historyRestate.run(redis, history, at, shardRanks, runRanks);
}

/**
 * Past this many places from the top (or from a user) to skip, a page is read from a pivot found
 * near it rather than merged from the top (or the user): a merge reads every place it skips.
 */
const NEAR = 1000;

/**
 * Where in each shard the run's place `start` (0-based) sits, near enough: the members above a
 * pivot taken from the largest shard, searched by halves for the last one at or above `start`
 * (each step one member read and one count per shard). Null when `start` is past the run's end.
 */
async function splitsNear(redis: RedisClient, shards: Shards, start: number): Promise<number[] | null> {
  const sizes = await Promise.all(shards.map((k) => participantsOf(redis, k.ranking)));
  if (start >= sizes.reduce((s, n) => s + n, 0)) return null;
  const j = sizes.indexOf(Math.max(...sizes));
  let best = shards.map(() => 0);
  let [lo, hi] = [0, sizes[j] - 1];
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const [member, score] = await redis.zrevrange(shards[j].ranking, mid, mid, 'WITHSCORES');
    if (member === undefined) {
      hi = mid - 1;
      continue;
    }
    const pivot = leaderboardAbove.pack([{ member, score, shard: -1 }]);
    const splits = await Promise.all(shards.map(async (k, i) => (await leaderboardAbove.run(redis, k.ranking, i, pivot))[0] ?? 0));
    if (splits.reduce((s, n) => s + n, 0) <= start) {
      best = splits;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

/** `count` places of the run from the 0-based position `start`, the best first (`near`: NEAR, or another bound for a test). */
export async function readRunPlaces(redis: RedisClient, shards: Shards, start: number, count: number, near = NEAR): Promise<Place[]> {
  if (count <= 0) return [];
  if (shards.length === 1) return readPlaces(redis, shards[0].ranking, start, count);
  if (start <= near) return pageNear(redis, shards, shards.map(() => 0), start, count);
  const splits = await splitsNear(redis, shards, start);
  return splits === null ? [] : pageNear(redis, shards, splits, start, count);
}

/**
 * The places around `userId`: `count` from `offset` places after theirs (negative: above them, up
 * to the top), and their own place; null when they are not on the run.
 */
export async function readRunAround(
  redis: RedisClient, shards: Shards, userId: string, offset: number, count: number, near = NEAR,
): Promise<{ place: Place; places: Place[] } | null> {
  // One ranking: the user's place and the page in one call.
  if (shards.length === 1) return leaderboardAround.run(redis, shards[0], userId, offset, Math.max(0, count));
  const user = await splitsOfUser(redis, shards, userId);
  if (user === null) return null;
  const splits = user.above;
  const position = splits.reduce((s, n) => s + n, 0);
  const place = { userId, rank: position + 1, value: Number(user.user.score) };
  if (count <= 0) return { place, places: [] };
  const start = Math.max(0, position + offset);
  // The places a merge from the user's place would read and skip: those between the page and the user.
  const skipped = Math.max(0, position - start - count) + Math.max(0, start - position);
  // Far from the user, or nearer the top than the user: read as a page of its own (from the top,
  // or from a pivot found near it), not merged from the user's place.
  if (skipped > near || start < skipped) return { place, places: await readRunPlaces(redis, shards, start, count, near) };
  return { place, places: await pageNear(redis, shards, splits, start, count) };
}

