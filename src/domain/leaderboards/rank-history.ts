/**
 * A user's rank history on a leaderboard run. The placement scripts (lua/leaderboardRank-8.lua,
 * lua/leaderboardLeave-6.lua) keep one entry per change of the user's own rank or value, newest
 * first, the last 100 of each run: `<ms>|<previous rank>|<rank>|<previous value>|<value>`, a rank
 * of 0 and an empty value for off the board. Readers see days: `GET users/{id}/leaderboards/{key}`
 * answers one entry per local day with a change (trophy-application 1.21.1's daily snapshots),
 * worked out here at read time, so the event path writes nothing more.
 */
import { dayBounds, type DayBounds } from '../time.js';
import type { RankDay } from '../../model/views.js';

/** One stored change. */
export interface RankChange {
  at: number;
  /** Null: off the board (also before the user's first placement). */
  previousRank: number | null;
  rank: number | null;
  previousValue: number | null;
  value: number | null;
}

/** A day of the history as the API answers it. */
export type { RankDay };

const rankOf = (s: string): number | null => (s === '' || s === '0' ? null : Number(s));
const valueOf = (s: string): number | null => (s === '' ? null : Number(s));

/** A stored entry, parsed. */
export function parseRankChange(raw: string): RankChange {
  const [at, previousRank, rank, previousValue, value] = raw.split('|');
  return { at: Number(at), previousRank: rankOf(previousRank), rank: rankOf(rank), previousValue: valueOf(previousValue), value: valueOf(value) };
}

/**
 * The last `days` days holding a change, oldest first, from the stored entries (newest first, in
 * the order they were applied), by the local date in zone `tz` ('' is UTC) of each change's time:
 * each day with the state after its last change and before its first.
 */
export function dailyHistory(entries: readonly string[], tz: string, days: number): RankDay[] {
  const byDate = new Map<string, RankDay>();
  let bounds: DayBounds | null = null;
  for (const raw of entries) {
    const change = parseRankChange(raw);
    if (bounds === null || change.at < bounds.start || change.at >= bounds.end) bounds = dayBounds(tz, change.at);
    const day = byDate.get(bounds.date);
    if (day === undefined) {
      byDate.set(bounds.date, {
        date: bounds.date, timestamp: new Date(bounds.start).toISOString(),
        previousRank: change.previousRank, rank: change.rank, previousValue: change.previousValue, value: change.value,
      });
    } else {
      // An earlier change of the same day: the state before the day is the one before it.
      day.previousRank = change.previousRank;
      day.previousValue = change.previousValue;
    }
  }
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1)).slice(Math.max(0, byDate.size - days));
}
