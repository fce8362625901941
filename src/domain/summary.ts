/**
 * Event summaries: rows per day, week (Monday first) or month between two dates, each keyed by the
 * first day of its period, with the total at the end of the period and the change within it.
 *
 * Redis keeps, per user and metric, the change of every local day with an event (`d:<day> -> change`,
 * beside the metric's idempotency keys `i:<key>` in the same hash); per user and points system,
 * the total at the end of every local day with an award (`totalsSummary`).
 * A period's change is the sum of its days; its total, the sum of every day up to its end. A user
 * who moves time zone may put a later event on an earlier local day; totals stay consistent.
 */
import type { DateTime } from 'luxon';
import { fail } from '../http/errors.js';
import { parseDate } from './time.js';

export type Aggregation = 'daily' | 'weekly' | 'monthly';

export interface SummaryQuery {
  aggregation: Aggregation;
  start: DateTime;
  end: DateTime;
}

export interface SummaryRow {
  date: string;
  total: number;
  change: number;
}

export const MAX_SUMMARY_DAYS = 400;

const UNIT = { daily: 'day', weekly: 'week', monthly: 'month' } as const;

/** Reads `aggregation`, `startDate`/`endDate` (or the spec's `start_date`/`end_date`). */
export function parseSummaryQuery(q: URLSearchParams): SummaryQuery {
  const aggregation = q.get('aggregation');
  if (aggregation === null) throw fail('invalid_query', 'aggregation is required (daily, weekly or monthly)');
  if (aggregation !== 'daily' && aggregation !== 'weekly' && aggregation !== 'monthly') {
    throw fail('invalid_query', `aggregation must be daily, weekly or monthly, got "${aggregation}"`);
  }
  const date = (camel: string, snake: string): DateTime => {
    const raw = q.get(camel) ?? q.get(snake);
    if (raw === null) throw fail('invalid_query', `${camel} is required (YYYY-MM-DD)`);
    const d = parseDate(raw);
    if (d === null) throw fail('invalid_query', `${camel} must be a date as YYYY-MM-DD, got "${raw}"`);
    return d;
  };
  const start = date('startDate', 'start_date');
  const end = date('endDate', 'end_date');
  if (end < start) throw fail('unprocessable', 'startDate must not be after endDate');
  if (end.diff(start, 'days').days + 1 > MAX_SUMMARY_DAYS) {
    throw fail('unprocessable', `The date range may span at most ${MAX_SUMMARY_DAYS} days`);
  }
  return { aggregation, start, end };
}

/** Removes binary floating-point noise from sums and differences of decimal values. */
function clean(n: number): number {
  return Number(n.toPrecision(15));
}

/**
 * The same rows from days that record the total at their end (`d:<day> -> total`, as points do:
 * one write per award, no read), carrying a total forward over days without one.
 */
export function totalsSummary(fields: Record<string, string>, q: SummaryQuery): SummaryRow[] {
  const ends: Record<string, number> = {};
  for (const field in fields) {
    if (field.startsWith('d:')) ends[field.slice(2)] = Number(fields[field]);
  }
  const days = Object.keys(ends).sort();
  const unit = UNIT[q.aggregation];
  const rows: SummaryRow[] = [];
  let i = 0;
  let total = 0;
  let period = q.start.startOf(unit);
  const first = period.toISODate() as string;
  while (i < days.length && days[i] < first) total = ends[days[i++]];
  while (period <= q.end) {
    const next = period.plus({ [unit + 's']: 1 });
    const nextDate = next.toISODate() as string;
    const before = total;
    while (i < days.length && days[i] < nextDate) total = ends[days[i++]];
    rows.push({ date: period.toISODate() as string, total: clean(total), change: clean(total - before) });
    period = next;
  }
  return rows;
}

export function eventSummary(userMetric: Record<string, string>, q: SummaryQuery): SummaryRow[] {
  const dayChanges: Record<string, string> = {};
  for (const field in userMetric) {
    if (field.startsWith('d:')) dayChanges[field.slice(2)] = userMetric[field];
  }
  const days = Object.keys(dayChanges).sort();
  const unit = UNIT[q.aggregation];
  const rows: SummaryRow[] = [];
  let i = 0;
  let total = 0;
  let period = q.start.startOf(unit);
  const first = period.toISODate() as string;
  while (i < days.length && days[i] < first) total += Number(dayChanges[days[i++]]);
  while (period <= q.end) {
    const next = period.plus({ [unit + 's']: 1 });
    const nextDate = next.toISODate() as string;
    let change = 0;
    while (i < days.length && days[i] < nextDate) change += Number(dayChanges[days[i++]]);
    total += change;
    rows.push({ date: period.toISODate() as string, total: clean(total), change: clean(change) });
    period = next;
  }
  return rows;
}
