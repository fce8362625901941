/**
 * A run's ranking read whole, whether it is one sorted set or a board's shards
 * (src/domain/leaderboards/shards.ts): every reader of a run's places goes through here. `shards`
 * lists the run's (or group's) rankings, shard 0 first; a board without shards has one, read as
 * ever. Over several shards, one ranking's order is kept exactly: a higher value first, and equal
 * values in the order of their members (`<order>|<user id>`, compared byte by byte as Redis does):
 * - a user's rank is 1 plus the members above them in each shard (lua/leaderboardAbove-1.lua; in
 *   their own shard, their ZREVRANK);
 * - the participants are the sum of the shards' sizes;
 * - a page from position `start` merges each shard's part of it: the first start + count of each
 *   for a page near the top, around a user each shard's members near the user's position in it,
 *   and for a deep page those near a pivot found by halves (a member of the largest shard whose
 *   place on the run is at or just above `start`).
 * A read touches every shard: what one ranking does in one command costs one per shard.
 */
import { shardOfUser } from '../domain/leaderboards/shards.js';
import type { RedisClient } from './client.js';
import type { LeaderboardKeys } from './keys.js';
import { participantsOf, placesOfUsers, readPlaces, userOfMember, type Place } from './rankings.js';
import * as leaderboardAbove from './scripts/leaderboardAbove.js';
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

/** A member as read with its score. */
interface Entry {
  member: string;
  score: number;
}

/** Whether `a` ranks before `b` in one ranking's order: higher value, then the larger member (bytes). */
function compare(a: Entry, b: Entry): number {
  if (a.score !== b.score) return b.score - a.score;
  return Buffer.compare(Buffer.from(b.member), Buffer.from(a.member));
}

function entriesOf(flat: string[]): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i], score: Number(flat[i + 1]) });
  return out;
}

/** A user found on the run: their member and score in their shard. */
interface Found {
  userId: string;
  member: string;
  score: string;
}

/** Reads of a user's member made again when a placement replaced it between the member's read and its score's. */
const REREADS = 5;

/**
 * The members and scores of `userIds` in their shards (those not on the run left out). A member
 * whose score is gone was replaced meanwhile by a placement of the user (a new member, with the
 * value's order): read again.
 */
async function found(redis: RedisClient, shards: Shards, userIds: readonly string[]): Promise<Found[]> {
  const out: Found[] = [];
  let left = userIds;
  for (let read = 0; read <= REREADS && left.length > 0; read++) {
    const members = await Promise.all(left.map((u) => redis.hget(shardOf(shards, u).members, u)));
    const on = left.flatMap((u, i) => (members[i] === null ? [] : [{ userId: u, member: members[i]! }]));
    const scores = await Promise.all(on.map((o) => redis.zscore(shardOf(shards, o.userId).ranking, o.member)));
    on.forEach((o, i) => { if (scores[i] !== null) out.push({ ...o, score: scores[i]! }); });
    left = on.filter((_, i) => scores[i] === null).map((o) => o.userId);
  }
  return out;
}

/**
 * For each user found, the members above them in each shard ([user][shard]); null for a user whose
 * member a placement replaced since it was read (their own shard would count their new member).
 */
async function aboveIn(redis: RedisClient, shards: Shards, users: readonly Found[]): Promise<(number[] | null)[]> {
  const own = users.map((u) => shardOf(shards, u.userId).ranking);
  const perShard = await Promise.all(shards.map((k) => leaderboardAbove.run(redis, k.ranking, users, (i) => own[i] === k.ranking)));
  return users.map((_, i) => {
    const counts = perShard.map((c) => c[i]);
    return counts.some((c) => c === null) ? null : counts as number[];
  });
}

/**
 * The users of `userIds` found on the run, each with the members above them in each shard; a user
 * placed again between the read of their member and the counts is read again.
 */
async function counted(redis: RedisClient, shards: Shards, userIds: readonly string[]): Promise<{ user: Found; above: number[] }[]> {
  const out: { user: Found; above: number[] }[] = [];
  let left = userIds;
  for (let read = 0; read <= REREADS && left.length > 0; read++) {
    const users = await found(redis, shards, left);
    const above = await aboveIn(redis, shards, users);
    users.forEach((user, i) => { if (above[i] !== null) out.push({ user, above: above[i]! }); });
    left = users.filter((_, i) => above[i] === null).map((u) => u.userId);
  }
  return out;
}

/** The places of `userIds` on the run, in its order; the users not on it left out. */
export async function placesOfRunUsers(redis: RedisClient, shards: Shards, userIds: readonly string[]): Promise<Place[]> {
  if (shards.length === 1) {
    const members = userIds.length === 0 ? [] : await redis.hmget(shards[0].members, ...userIds);
    return placesOfUsers(redis, shards[0].ranking, new Map(userIds.map((id, i) => [id, members[i]])));
  }
  return (await counted(redis, shards, userIds))
    .map(({ user, above }) => ({ userId: user.userId, rank: 1 + above.reduce((s, n) => s + n, 0), value: Number(user.score) }))
    .sort((a, b) => a.rank - b.rank);
}

/** A user's place on the run, or null when not on it. */
export async function placeOfRunUser(redis: RedisClient, shards: Shards, userId: string): Promise<Place | null> {
  if (shards.length === 1) return (await leaderboardAround.run(redis, shards[0], userId, 0, 0))?.place ?? null;
  return (await placesOfRunUsers(redis, shards, [userId]))[0] ?? null;
}

/**
 * `count` places from the 0-based position `start`, given where a pivot sits in each shard
 * (`splits[i]`: the members of shard i above it; their sum, the pivot's position on the run).
 * Each shard's members within reach of its split are read and merged: the j-th place above or
 * below the pivot on the run is among them, since no shard holds more than j of the places between.
 */
async function pageNear(redis: RedisClient, shards: Shards, splits: readonly number[], start: number, count: number): Promise<Place[]> {
  const pivot = splits.reduce((s, n) => s + n, 0);
  const before = Math.max(0, pivot - start);
  const after = Math.max(0, start + count - pivot);
  const ranges = splits.map((c) => [Math.max(0, c - before), c + after - 1] as const);
  const read = await Promise.all(shards.map((k, i) => (ranges[i][1] < ranges[i][0]
    ? Promise.resolve([] as string[])
    : redis.zrevrange(k.ranking, ranges[i][0], ranges[i][1], 'WITHSCORES'))));
  const merged = read.flatMap(entriesOf).sort(compare);
  // The members read above the pivot: merged[aboveRead + j] is the run's position pivot + j.
  const aboveRead = splits.reduce((s, c, i) => s + c - ranges[i][0], 0);
  const places: Place[] = [];
  for (let g = start; g < start + count; g++) {
    const e = merged[aboveRead + g - pivot];
    if (e === undefined) break;
    places.push({ userId: userOfMember(e.member), rank: g + 1, value: e.score });
  }
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
 * Past this many places from the top (or from a user), a page is read from a pivot found near it
 * rather than from each shard's first members.
 */
const NEAR = 10_000;

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
    const splits = await Promise.all(shards.map(async (k) => (await leaderboardAbove.run(redis, k.ranking, [{ member, score }], () => false))[0] ?? 0));
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
  if (start + count <= near) return pageNear(redis, shards, shards.map(() => 0), start, count);
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
  const [user] = await counted(redis, shards, [userId]);
  if (user === undefined) return null;
  const splits = user.above;
  const position = splits.reduce((s, n) => s + n, 0);
  const place = { userId, rank: position + 1, value: Number(user.user.score) };
  if (count <= 0) return { place, places: [] };
  const start = Math.max(0, position + offset);
  // Far from the user: read as a page of its own.
  if (Math.abs(start - position) + count > near) return { place, places: await readRunPlaces(redis, shards, start, count, near) };
  return { place, places: await pageNear(redis, shards, splits, start, count) };
}

