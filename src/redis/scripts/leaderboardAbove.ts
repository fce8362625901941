/**
 * The codec of lua/leaderboardAbove-1.lua: how many members of one shard of a board's run rank
 * above each place asked (src/redis/sharded-rankings.ts adds them up).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardAbove(ranking: string, shard: string, places: string, members: string): Result<number[], Context>;
  }
}

/** A place asked about: the value as Redis gave it, the member as the user's shard holds it, and that shard's index (-1: none). */
export interface Asked {
  score: string;
  member: string;
  shard: number;
}

/** Places packed once for every shard of a read: the same two strings go to each. */
export interface Packed {
  places: string;
  members: string;
  /** The shard of each place, in order. */
  shards: number[];
}

/** Packs places, best first (places of one value then share their counts). */
export function pack(asked: readonly Asked[]): Packed {
  return {
    places: asked.map((a) => `${a.score} ${a.shard} ${Buffer.byteLength(a.member)}`).join('\n'),
    members: asked.map((a) => a.member).join(''),
    shards: asked.map((a) => a.shard),
  };
}

/** The members of `ranking` (shard `shard`) above each packed place, in order; null for its own shard's places (not asked). */
export async function run(redis: RedisClient, ranking: string, shard: number, packed: Packed): Promise<(number | null)[]> {
  if (packed.shards.every((s) => s === shard)) return packed.shards.map(() => null);
  const counts = await redis.leaderboardAbove(ranking, String(shard), packed.places, packed.members);
  let j = 0;
  return packed.shards.map((s) => (s === shard ? null : Number(counts[j++])));
}
