/**
 * A board run's statistics as stored (src/engine/leaderboards/stats.ts reads them): the ranking's
 * size and its lowest and highest values, the rank changes lua/leaderboardRank-8.lua counts in the
 * run's `:s` hash as the board moves, and how many values fall in each of a distribution's
 * buckets (ZCOUNT: logarithmic, never a scan of the ranking).
 */
import type { Bucket } from '../domain/leaderboards/distribution.js';
import type { RedisClient } from './client.js';
import { sentTogether } from './coalesce.js';
import type { LeaderboardKeys } from './keys.js';

/** The rank changes of a run (or group): users who entered, moved by their own value, were pushed out. */
export interface RankChanges {
  entered: number;
  moved: number;
  pushedOut: number;
}

/** What a run's (or group's) keys hold of its statistics. */
export interface RunCounts {
  participants: number;
  /** The lowest and highest values (null: nobody ranks). */
  lowest: number | null;
  highest: number | null;
  changes: RankChanges;
}

export async function runCounts(redis: RedisClient, k: LeaderboardKeys): Promise<RunCounts> {
  const [participants, low, high, changes] = await Promise.all(sentTogether(redis, () => [
    redis.zcard(k.ranking),
    redis.zrange(k.ranking, 0, 0, 'WITHSCORES'),
    redis.zrevrange(k.ranking, 0, 0, 'WITHSCORES'),
    redis.hgetall(k.stats),
  ]));
  const n = (field: string) => Number(changes[field] ?? 0);
  return {
    participants,
    lowest: low.length === 0 ? null : Number(low[1]),
    highest: high.length === 0 ? null : Number(high[1]),
    changes: { entered: n('entered'), moved: n('moved'), pushedOut: n('pushedOut') },
  };
}

/** How many users a ranking holds. */
export function sizeOf(redis: RedisClient, k: LeaderboardKeys): Promise<number> {
  return redis.zcard(k.ranking);
}

/** How many values of a ranking fall in each bucket (`from ≤ value < to`, the last `to` too). */
export function bucketCounts(redis: RedisClient, k: LeaderboardKeys, buckets: Bucket[]): Promise<number[]> {
  return Promise.all(sentTogether(redis, () => buckets.map((b, i) => redis.zcount(k.ranking, b.from, i === buckets.length - 1 ? b.to : `(${b.to}`))));
}
