/** A board's score distribution's buckets (src/domain/leaderboards/distribution.ts). */
import { describe, expect, it } from 'vitest';
import { bucketsOf } from '../../src/domain/leaderboards/distribution.js';

describe('a score distribution\'s buckets', () => {
  it('gives whole values whole widths, at most ten buckets, the last ending at the highest value', () => {
    expect(bucketsOf(1, 3)).toEqual([{ from: 1, to: 2 }, { from: 2, to: 3 }, { from: 3, to: 3 }]);
    expect(bucketsOf(0, 100)).toHaveLength(10);
    expect(bucketsOf(0, 100)[0]).toEqual({ from: 0, to: 11 });
    expect(bucketsOf(0, 100)[9]).toEqual({ from: 99, to: 100 });
    expect(bucketsOf(0, 1_000_000)).toHaveLength(10);
    expect(bucketsOf(-5, 4).map((b) => b.from)).toEqual([-5, -4, -3, -2, -1, 0, 1, 2, 3, 4]);
    expect(bucketsOf(7, 7)).toEqual([{ from: 7, to: 7 }]);
  });

  it('gives other values ten buckets of a tenth of the range, one bucket for a single value', () => {
    const b = bucketsOf(0.5, 5.5);
    expect(b).toHaveLength(10);
    expect(b[0]).toEqual({ from: 0.5, to: 1 });
    expect(b[9]).toEqual({ from: 5, to: 5.5 });
    expect(bucketsOf(2.5, 2.5)).toEqual([{ from: 2.5, to: 2.5 }]);
  });
});
