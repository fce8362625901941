/**
 * The codec of lua/leagueMove-1.lua: a run's outcome applied, once, to the tier a user carries
 * into the next run they join.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { leagueField } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueMove(user: string, field: string, run: string, move: number, highest: number): Result<number, Context>;
  }
}

/** What became of the move: applied now, applied before, the user holds no place, or is gone (erased). */
export type Moved = 'applied' | 'before' | 'unplaced' | 'gone';

const ANSWERS: Record<number, Moved> = { 0: 'gone', 1: 'applied', 2: 'before', 3: 'unplaced' };

/** Moves the tier of the user whose hash is `user` by `move` (1, -1, 0) for `run`'s outcome; `highest`: the top tier's index. */
export async function run(redis: RedisClient, user: string, boardId: string, run: string, move: number, highest: number): Promise<Moved> {
  return ANSWERS[await redis.leagueMove(user, leagueField(boardId), run, move, highest)] ?? 'gone';
}
