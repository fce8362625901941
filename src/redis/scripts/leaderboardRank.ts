/**
 * The codec of lua/leaderboardRank-8.lua: a user's value in a leaderboard run's capped ranking
 * (phase 2; a Redis function of the event path's library). Its arguments stay positional: a
 * placement is on the event path, and a caller's object would be built per board and event.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LeaderboardKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leaderboardRank(
      ranking: string, members: string, history: string, awards: string, expiry: string, falls: string, sequences: string, stats: string,
      userId: string, value: string | number, order: string, max: number | string, now: number | string, expiryMs: number | string, seq: string,
      ...awardPairs: (string | number)[]
    ): Result<Answer, Context>;
  }
}

/**
 * rank and previousRank (0 when off the ranking), the value needed to enter now, the falls
 * counter; and for a league cohort the user was moved out of, the cohort they are in ('<tier>.<n>').
 */
export type Answer = [rank: number, previousRank: number, threshold: string, falls: string, movedTo?: string];

/**
 * `max`: the maximum participants; `expiry`: a streak
 * board's loss time (ms) or ''; `seq`: the event's log entry id or '' ('=' before it: a void's
 * move of a member only; '<': a league move back into a cohort the user left before, see the
 * script's header); `awards`: award number / points pairs, whose sum is then the value.
 */
export function run(
  redis: RedisClient, k: LeaderboardKeys, userId: string, value: string | number, order: string, max: number, now: number,
  expiry: number | '', seq: string, awards: (string | number)[] | undefined,
): Promise<Answer> {
  return awards === undefined
    ? redis.leaderboardRank(k.ranking, k.members, k.history(userId), k.awards(userId), k.expiry, k.falls, k.sequences, k.stats, userId, value, order, max, now, expiry, seq)
    : redis.leaderboardRank(k.ranking, k.members, k.history(userId), k.awards(userId), k.expiry, k.falls, k.sequences, k.stats, userId, value, order, max, now, expiry, seq, ...awards);
}
