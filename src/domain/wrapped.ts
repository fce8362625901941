/**
 * Wrapped (a user's year in review), computed from what laurel already keeps per user and local
 * day, without any write: the metrics' `d:<day>` changes, the points systems' `d:<day>` end-of-day
 * totals, the achievements' completion times and the leaderboard rank histories.
 *
 * Definitions (docs/api.md, "Wrapped"):
 * - A day is active when the user has an event of an active metric on it (a `d:<day>` field in
 *   a metric's hash); a week or month is active when one of its days is. Days are the user's local
 *   days (their `tz`, UTC when none); weeks are ISO weeks (Monday to Sunday) cut at the year's
 *   bounds, so the year's first and last week may be shorter.
 * - The most active day, week and month is the one with the most active days, then the most
 *   metrics with events, then the largest sum of the metrics' absolute changes; ties go to the
 *   earliest. Without any activity in the year: January 1st, the year's first week, January.
 * - Each period shows the metrics with events in it and the points systems with awards in it:
 *   `currentTotal` is the total at the end of the period (so far, for one not over yet),
 *   `changeThisPeriod` the change within it, `percentChange` that change against the previous
 *   period of the same kind (the day, the same number of days, the calendar month, the year
 *   before), in percent with two decimals, 0 when the previous change was 0. Achievements are
 *   those completed in the period; leaderboards, the best (lowest) rank the user's own rank
 *   history reached in the period on each board.
 */
import { dateOfDay, dayIndexOf, periodOfDay } from './periods.js';
import { clean as cleanNoise } from './summary.js';
import type { UserAchievementStatsView } from '../model/views.js';

export interface Range {
  first: string;
  last: string;
}

export interface MetricDays {
  key: string;
  name: string;
  units: string | null;
  /** Local day → change that day. */
  days: Map<string, number>;
}

export interface PointsDays {
  key: string;
  name: string;
  description: string | null;
  /** Local day → total at the end of that day. */
  days: Map<string, number>;
}

export interface RankEntry {
  /** Local day of the change. */
  day: string;
  ms: number;
  rank: number;
  value: number | null;
  /** The board's view (UserLeaderboardResponse without rank and value). */
  view: Record<string, unknown>;
}

export interface WrappedInput {
  year: number;
  metrics: MetricDays[];
  points: PointsDays[];
  /** Completed achievements: the local day of the completion and the view. */
  achievements: { day: string; at: string; view: UserAchievementStatsView }[];
  /** Per board key, the user's rank changes (any order). */
  leaderboards: Map<string, RankEntry[]>;
}

/**
 * A number JSON can hold: beyond a double's range, its largest value (Infinity would be written as
 * null, which the SDK refuses).
 */
function finite(n: number): number {
  return Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, n));
}

/** Sums and differences of decimal values without binary noise (src/domain/summary.ts), finite. */
function clean(n: number): number {
  return finite(cleanNoise(n));
}

function percent(change: number, previous: number): number {
  if (previous === 0) return 0;
  return finite(Math.round(((change - previous) / Math.abs(previous)) * 10_000) / 100);
}

function shift(date: string, days: number): string {
  return dateOfDay(dayIndexOf(date) + days);
}

function lengthOf(r: Range): number {
  return dayIndexOf(r.last) - dayIndexOf(r.first) + 1;
}

/** The same number of days just before a range. */
function before(r: Range): Range {
  return { first: shift(r.first, -lengthOf(r)), last: shift(r.first, -1) };
}

export function monthRange(year: number, month: number): Range {
  const y = String(year).padStart(4, '0');
  const m = String(month + 1).padStart(2, '0');
  const days = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return { first: `${y}-${m}-01`, last: `${y}-${m}-${String(days).padStart(2, '0')}` };
}

export function yearRange(year: number): Range {
  return { first: monthRange(year, 0).first, last: monthRange(year, 11).last };
}

/** The ISO week of a day, cut at the bounds of its year. */
function weekRange(day: string): Range {
  const year = yearRange(Number(day.slice(0, 4)));
  const week = periodOfDay('weekly', dayIndexOf(day));
  const monday = dateOfDay(week * 7 - 3);
  const sunday = dateOfDay(week * 7 + 3);
  return { first: monday < year.first ? year.first : monday, last: sunday > year.last ? year.last : sunday };
}

function sumIn(days: Map<string, number>, r: Range): { sum: number; any: boolean } {
  let sum = 0;
  let any = false;
  for (const [day, v] of days) {
    if (day >= r.first && day <= r.last) {
      sum += v;
      any = true;
    }
  }
  return { sum: clean(sum), any };
}

/** A points system's total at the end of `day` (the last recorded day up to it; 0 before any). */
function totalAt(days: Map<string, number>, day: string): number {
  let best = '';
  let total = 0;
  for (const [d, v] of days) {
    if (d <= day && d > best) {
      best = d;
      total = v;
    }
  }
  return total;
}

/** A period's metrics, points, achievements and best leaderboard ranks. */
export function periodActivity(input: WrappedInput, r: Range, previous: Range) {
  const metrics: Record<string, unknown> = {};
  for (const m of input.metrics) {
    const now = sumIn(m.days, r);
    if (!now.any) continue;
    const prev = sumIn(m.days, previous).sum;
    let total = 0;
    for (const [day, v] of m.days) if (day <= r.last) total += v;
    metrics[m.key] = {
      name: m.name, ...(m.units === null ? {} : { units: m.units }),
      currentTotal: clean(total), changeThisPeriod: now.sum, percentChange: percent(now.sum, prev), byAttribute: {},
    };
  }
  const points: Record<string, unknown> = {};
  for (const p of input.points) {
    if (!sumIn(p.days, r).any) continue;
    const end = totalAt(p.days, r.last);
    const start = totalAt(p.days, shift(r.first, -1));
    const prevStart = totalAt(p.days, shift(previous.first, -1));
    const change = clean(end - start);
    points[p.key] = {
      name: p.name, ...(p.description === null ? {} : { description: p.description }),
      currentTotal: end, changeThisPeriod: change, percentChange: percent(change, clean(start - prevStart)),
    };
  }
  const achievements = input.achievements
    .filter((a) => a.day >= r.first && a.day <= r.last)
    .sort((a, b) => a.at.localeCompare(b.at))
    .map((a) => a.view);
  const leaderboards: Record<string, unknown> = {};
  for (const [key, entries] of input.leaderboards) {
    let best: RankEntry | null = null;
    for (const e of entries) {
      if (e.day < r.first || e.day > r.last) continue;
      if (best === null || e.rank < best.rank || (e.rank === best.rank && e.ms < best.ms)) best = e;
    }
    if (best !== null) leaderboards[key] = { ...best.view, rank: best.rank, value: best.value };
  }
  return { metrics, points, achievements, leaderboards };
}

interface Score {
  days: number;
  metrics: number;
  change: number;
}

/** Whether score `a` beats `b` (more active days, then more metrics, then more absolute change). */
function beats(a: Score, b: Score): boolean {
  if (a.days !== b.days) return a.days > b.days;
  if (a.metrics !== b.metrics) return a.metrics > b.metrics;
  return a.change > b.change;
}

/** The activity of a user's year: counts, the most active day, week and month, the entire year. */
export function wrappedActivity(input: WrappedInput) {
  const year = yearRange(input.year);
  // Per active day of the year: which metrics had events, and their absolute change.
  const byDay = new Map<string, { metrics: Set<string>; change: number }>();
  for (const m of input.metrics) {
    for (const [day, v] of m.days) {
      if (day < year.first || day > year.last) continue;
      let d = byDay.get(day);
      if (d === undefined) byDay.set(day, (d = { metrics: new Set(), change: 0 }));
      d.metrics.add(m.key);
      d.change += Math.abs(v);
    }
  }
  const days = [...byDay.keys()].sort();
  /** The best of the periods the active days fall in (`periodOf` names a day's period by its first day). */
  const mostActive = (periodOf: (day: string) => string): string | null => {
    const scores = new Map<string, { days: number; metrics: Set<string>; change: number }>();
    for (const day of days) {
      const key = periodOf(day);
      let s = scores.get(key);
      if (s === undefined) scores.set(key, (s = { days: 0, metrics: new Set(), change: 0 }));
      const d = byDay.get(day)!;
      s.days++;
      for (const m of d.metrics) s.metrics.add(m);
      s.change += d.change;
    }
    let best: string | null = null;
    let bestScore: Score | null = null;
    for (const [key, s] of scores) {
      const score = { days: s.days, metrics: s.metrics.size, change: clean(s.change) };
      if (bestScore === null || beats(score, bestScore) || (!beats(bestScore, score) && key < best!)) {
        best = key;
        bestScore = score;
      }
    }
    return best;
  };
  const day = mostActive((d) => d) ?? year.first;
  const week = weekRange(mostActive((d) => weekRange(d).first) ?? year.first);
  const monthStart = mostActive((d) => d.slice(0, 7) + '-01') ?? year.first;
  const month = Number(monthStart.slice(5, 7)) - 1;
  const monthR = monthRange(input.year, month);
  const prevMonth = month === 0 ? monthRange(input.year - 1, 11) : monthRange(input.year, month - 1);
  const dayR = { first: day, last: day };
  return {
    daysActive: days.length,
    weeksActive: new Set(days.map((d) => weekRange(d).first)).size,
    monthsActive: new Set(days.map((d) => d.slice(0, 7))).size,
    mostActiveDay: { date: day, ...periodActivity(input, dayR, before(dayR)) },
    mostActiveWeek: { start: week.first, end: week.last, ...periodActivity(input, week, before(week)) },
    mostActiveMonth: { month, ...periodActivity(input, monthR, prevMonth) },
    entireYear: periodActivity(input, year, yearRange(input.year - 1)),
  };
}
