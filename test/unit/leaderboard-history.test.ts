/**
 * A user's rank history as days (src/domain/leaderboards/rank-history.ts): the stored changes, newest
 * first, grouped by the local date of each change in the user's zone.
 */
import { describe, expect, it } from 'vitest';
import { dailyHistory, parseRankChange } from '../../src/domain/leaderboards/rank-history.js';

/** A stored entry: `<ms>|<previous rank>|<rank>|<previous value>|<value>`. */
const entry = (iso: string, previousRank: number, rank: number, previousValue: number | '', value: number | '') =>
  `${Date.parse(iso)}|${previousRank}|${rank}|${previousValue}|${value}`;

describe('leaderboard history', () => {
  it('parses a stored change: rank 0 and an empty value are off the board', () => {
    expect(parseRankChange(entry('2026-07-01T10:00:00Z', 0, 3, '', 2.5))).toEqual({
      at: Date.parse('2026-07-01T10:00:00Z'), previousRank: null, rank: 3, previousValue: null, value: 2.5,
    });
    expect(parseRankChange(entry('2026-07-01T10:00:00Z', 1, 0, 5, ''))).toMatchObject({ previousRank: 1, rank: null, previousValue: 5, value: null });
  });

  it('makes one entry a day, oldest first, with the day\'s last state and the state before its first change', () => {
    const stored = [
      entry('2026-07-03T08:00:00Z', 2, 0, 9, ''), // left the board (a breakdown group) on the 3rd
      entry('2026-07-02T23:59:59Z', 1, 2, 7, 9),
      entry('2026-07-02T00:00:00Z', 3, 1, 4, 7),
      entry('2026-07-01T12:00:00Z', 0, 3, '', 4),
    ];
    expect(dailyHistory(stored, '', 10)).toEqual([
      { date: '2026-07-01', timestamp: '2026-07-01T00:00:00.000Z', previousRank: null, rank: 3, previousValue: null, value: 4 },
      { date: '2026-07-02', timestamp: '2026-07-02T00:00:00.000Z', previousRank: 3, rank: 2, previousValue: 4, value: 9 },
      { date: '2026-07-03', timestamp: '2026-07-03T00:00:00.000Z', previousRank: 2, rank: null, previousValue: 9, value: null },
    ]);
    // The latest days only; none at all.
    expect(dailyHistory(stored, '', 2).map((d) => d.date)).toEqual(['2026-07-02', '2026-07-03']);
    expect(dailyHistory(stored, '', 0)).toEqual([]);
    expect(dailyHistory([], '', 10)).toEqual([]);
  });

  it('takes the days of the zone given, and a DST day\'s own bounds', () => {
    // New York moved to summer time on 2026-03-08: that day began at 05:00 UTC, the next at 04:00 UTC.
    const stored = [
      entry('2026-03-09T03:59:00Z', 1, 1, 3, 4), // 23:59 on the 8th in New York
      entry('2026-03-08T05:00:00Z', 1, 1, 2, 3), // midnight on the 8th
      entry('2026-03-08T04:59:00Z', 0, 1, '', 2), // 23:59 on the 7th
    ];
    expect(dailyHistory(stored, 'America/New_York', 10)).toEqual([
      { date: '2026-03-07', timestamp: '2026-03-07T05:00:00.000Z', previousRank: null, rank: 1, previousValue: null, value: 2 },
      { date: '2026-03-08', timestamp: '2026-03-08T05:00:00.000Z', previousRank: 1, rank: 1, previousValue: 2, value: 4 },
    ]);
    // In UTC the first two are on the 8th and the last on the 9th.
    expect(dailyHistory(stored, '', 10).map((d) => [d.date, d.previousValue, d.value])).toEqual([['2026-03-08', null, 3], ['2026-03-09', 3, 4]]);
  });

  it('groups by date when the stored order and the changes\' times disagree (a late placement)', () => {
    const stored = [
      entry('2026-07-01T09:00:00Z', 2, 1, 5, 6), // applied last, made earlier on the 1st
      entry('2026-07-02T09:00:00Z', 3, 2, 4, 5),
      entry('2026-07-01T10:00:00Z', 0, 3, '', 4),
    ];
    expect(dailyHistory(stored, '', 10).map((d) => [d.date, d.previousRank, d.rank])).toEqual([['2026-07-01', null, 1], ['2026-07-02', 3, 2]]);
  });
});
