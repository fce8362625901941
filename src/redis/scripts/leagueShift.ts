/**
 * The codec of lua/leagueShift-2.lua: a user's place in a league's run, kept with them, moved to
 * another cohort of the run while it is still the one they are moved from; the seat logged.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { leagueField, leagueText, type LeaguePlace } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueShift(user: string, log: string, field: string, from: string, to: string, entry: string): Result<number, Context>;
  }
}

/** Moved now, moved before, another place kept (a later run's), or no such user (erased). */
export type Shifted = 'moved' | 'before' | 'other' | 'gone';

const ANSWERS: Record<number, Shifted> = { 0: 'gone', 1: 'moved', 2: 'before', 3: 'other' };

/**
 * Moves the place of the user whose hash is `user` from `from` to `to`. `log`: the user's
 * partition's log; `entry`: the `league` entry's body (src/model/log.ts leagueEntry).
 */
export async function run(
  redis: RedisClient, user: string, log: string, boardId: string, from: LeaguePlace, to: LeaguePlace, entry: string,
): Promise<Shifted> {
  return ANSWERS[await redis.leagueShift(user, log, leagueField(boardId), leagueText(from), leagueText(to), entry)] ?? 'gone';
}
