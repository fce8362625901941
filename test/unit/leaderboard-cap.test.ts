/**
 * A board's cap and a user's percentile (src/domain/leaderboards/cap.ts): the share of participants
 * a rank is at or above, rounded down to one decimal, and which cap changes are falls.
 */
import { describe, expect, it } from 'vitest';
import { capFalls, capOf, NO_CAP, percentileOf } from '../../src/domain/leaderboards/cap.js';

describe('a board\'s cap', () => {
  it('gives an uncapped board a maximum no ranking reaches', () => {
    expect(capOf({ maxParticipants: 10 })).toBe(10);
    expect(capOf({ maxParticipants: null })).toBe(NO_CAP);
    expect(NO_CAP).toBe(2 ** 53 - 1);
  });

  it('counts a lower cap as a fall, and uncapped as the highest', () => {
    expect(capFalls(10, 9)).toBe(true);
    expect(capFalls(null, 1000)).toBe(true);
    expect(capFalls(10, 10)).toBe(false);
    expect(capFalls(10, 11)).toBe(false);
    expect(capFalls(10, null)).toBe(false);
    expect(capFalls(null, null)).toBe(false);
  });

  it('answers the share of participants a rank is at or above, rounded down to one decimal', () => {
    expect([1, 2, 3, 4].map((rank) => percentileOf(rank, 4))).toEqual([100, 75, 50, 25]);
    expect([1, 2, 3].map((rank) => percentileOf(rank, 3))).toEqual([100, 66.6, 33.3]);
    // Only the first of a large board reads 100; the last, 0.
    expect(percentileOf(2, 100_000_000)).toBe(99.9);
    expect(percentileOf(100_000_000, 100_000_000)).toBe(0);
    expect(percentileOf(1, 1)).toBe(100);
    // No such place.
    expect(percentileOf(1, 0)).toBe(0);
    expect(percentileOf(5, 4)).toBe(0);
  });
});
