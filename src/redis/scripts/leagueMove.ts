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

/** A move, and whether the place kept with the user is of a later run than the one decided (an early joiner's). */
export interface MoveAnswer {
  moved: Moved;
  later: boolean;
}

/** Moves the tier of the user whose hash is `user` by `move` (1, -1, 0) for `run`'s outcome; `highest`: the top tier's index. */
export async function move(redis: RedisClient, user: string, boardId: string, run: string, move: number, highest: number): Promise<MoveAnswer> {
  const answer = await redis.leagueMove(user, leagueField(boardId), run, move, highest);
  return { moved: ANSWERS[answer % 10] ?? 'gone', later: answer >= 10 };
}

/** The same, its move only. */
export async function run(redis: RedisClient, user: string, boardId: string, runStart: string, by: number, highest: number): Promise<Moved> {
  return (await move(redis, user, boardId, runStart, by, highest)).moved;
}
