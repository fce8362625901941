/**
 * Which boards give a Wrapped period its percentiles (docs/api.md, "Wrapped"): a board whose run is
 * exactly the period (a weekly board of 7-day runs starting on a Monday for a full ISO week, a
 * monthly board starting on the 1st for a month, a yearly one starting on January 1st for the
 * year), ranking the metric or points system, without a league and with at most one breakdown
 * attribute. The user's place on that run is their percentile among everyone who took part in
 * it (a board without breakdown), or among their attribute group (`byAttribute`).
 */
import { runOf } from './leaderboards/runs.js';
import type { Leaderboard } from '../model/entities.js';
import type { Range } from './wrapped.js';

/** A board whose run is a period, what it ranks, and its breakdown attribute's id (null: none). */
export interface PeriodBoard {
  lb: Leaderboard;
  run: string;
  ranks: { metricId: string } | { pointsSystemId: string };
  attributeId: string | null;
}

/** Whether a board's run starting on the range's first day ends on its last day. */
function runIs(lb: Leaderboard, r: Range): boolean {
  const run = runOf(lb, r.first);
  return run !== null && run.start === r.first && run.end === r.last;
}

/** The boards whose run is exactly `r` and that can give a percentile (see above). */
export function boardsOfPeriod(boards: Iterable<Leaderboard>, r: Range): PeriodBoard[] {
  const found: PeriodBoard[] = [];
  for (const lb of boards) {
    if (lb.status === 'inactive' || (lb.league ?? null) !== null || lb.breakdownAttributes.length > 1) continue;
    const ranks = lb.rankBy === 'metric' && lb.metricId !== null ? { metricId: lb.metricId }
      : lb.rankBy === 'points' && lb.pointsSystemId !== null ? { pointsSystemId: lb.pointsSystemId } : null;
    if (ranks === null || !runIs(lb, r)) continue;
    found.push({ lb, run: r.first, ranks, attributeId: lb.breakdownAttributes[0] ?? null });
  }
  return found;
}
