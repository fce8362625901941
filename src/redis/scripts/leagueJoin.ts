/**
 * The codec of lua/leagueJoin-1.lua: a user's cohort in their tier of a league's run, joined in
 * arrival order (the same one again for a user placed already), with the tier's state after it.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { dotted } from '../leagues.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    leagueJoin(cohorts: string, userId: string, size: number): Result<[number, number, number], Context>;
  }
}

/** A seat in a tier: the user's cohort, and the tier's open cohort and its users after the join. */
export interface Seat {
  cohort: number;
  open: number;
  filled: number;
}

/** The seat's tier state as a `league` entry names it ('<open>.<users>': src/model/log.ts). */
export function tierState(seat: Seat): string {
  return dotted(seat.open, seat.filled);
}

/** The user's seat (cohort from 0). `cohorts`: `Keys.leagueTier(...)`. */
export async function run(redis: RedisClient, cohorts: string, userId: string, size: number): Promise<Seat> {
  const [cohort, open, filled] = await redis.leagueJoin(cohorts, userId, size);
  return { cohort, open, filled };
}
