/**
 * A board's cap and a user's place among its participants (docs/api.md, "Boards without a cap").
 * A capped board ranks up to `maxParticipants` users (1 to 1000, Trophy's rule); an uncapped one
 * (`maxParticipants: null`) ranks every participant. The placement script takes a number: an
 * uncapped board's ranking is given NO_CAP, which no ranking reaches, so it is never full.
 */
import type { Leaderboard } from '../../model/entities.js';

/** The maximum an uncapped board's ranking is given, and the Application API shows (SDK 1.0.42 needs a number there). */
export const NO_CAP = Number.MAX_SAFE_INTEGER;

/** The most users `lb` ranks: its maxParticipants, or NO_CAP. */
export function capOf(lb: Pick<Leaderboard, 'maxParticipants'>): number {
  return lb.maxParticipants ?? NO_CAP;
}

/** Whether `next` ranks fewer users than `previous` (null: every one). */
export function capFalls(previous: number | null, next: number | null): boolean {
  return next !== null && (previous === null || next < previous);
}

/**
 * The share of a ranking's `participants` that a user at `rank` (from 1) ranks at or above, 0 to
 * 100, rounded down to one decimal (worked out in integers: rank 1 of 4 is 100, rank 4 of 4 is 25,
 * and only the first of a large board reads 100).
 */
export function percentileOf(rank: number, participants: number): number {
  if (participants <= 0 || rank < 1 || rank > participants) return 0;
  return Math.floor(((participants - rank + 1) * 1000) / participants) / 10;
}
