/**
 * The runs of a repeating board whose next run would start after 9999-12-31 (the Admin API takes any
 * `runInterval`): the run holding the calendar's last day ends there, and the run after it is none,
 * so that the loops over runs (a user's wrapped, the finaliser) end. Boards of one run have run 0
 * alone.
 */
import { describe, expect, it } from 'vitest';
import { runOf, runStart } from '../../src/domain/leaderboards/runs.js';
import type { Leaderboard } from '../../src/model/entities.js';

const board = (runUnit: Leaderboard['runUnit'], runInterval: number | null, end: string | null = null) =>
  ({ start: '2026-01-01', end, runUnit, runInterval }) as Leaderboard;

describe('runs at the end of the calendar', () => {
  for (const [unit, interval] of [['year', 8000], ['month', 100_000], ['day', 3_000_000], ['month', 1], ['year', 1]] as const) {
    it(`a board of a run every ${interval} ${unit}s: the last run ends on 9999-12-31, none after it`, () => {
      const lb = board(unit, interval);
      const last = runOf(lb, '9999-12-31')!;
      expect(last.end).toBe('9999-12-31');
      expect(last.start <= '9999-12-31').toBe(true);
      expect(runOf(lb, runStart(lb, last.k + 1))).toBeNull();
      expect(runOf(lb, '2026-01-15')).toMatchObject({ start: '2026-01-01' });
    });
  }

  it('a board of one run has run 0 alone, whatever k is asked for', () => {
    const lb = board(null, null, '2026-11-20');
    expect(runOf(lb, runStart(lb, 0))).toEqual({ k: 0, start: '2026-01-01', end: '2026-11-20' });
    expect(runOf(lb, runStart(lb, 1))!.k).toBe(0);
  });
});
