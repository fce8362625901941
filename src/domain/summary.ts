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
import { DAY_PREFIX } from '../model/fields.js';
import type { DateTime } from 'luxon';
import { fail } from '../lib/errors.js';
import { CALENDAR_FIRST, CALENDAR_LAST, DATE_SCHEMA, parseDate } from './time.js';

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

const AGGREGATIONS: readonly Aggregation[] = ['daily', 'weekly', 'monthly'];

/** The query parameters parseSummaryQuery reads, as a route's description lists them. */
export const SUMMARY_QUERY = [
  { name: 'aggregation', required: true, schema: { enum: AGGREGATIONS }, description: 'Rows per day, week (Monday first) or month' },
  { name: 'startDate', schema: DATE_SCHEMA, description: 'First day, YYYY-MM-DD (required, or start_date)' },
  { name: 'endDate', schema: DATE_SCHEMA, description: `Last day, YYYY-MM-DD, at most ${MAX_SUMMARY_DAYS} days after startDate (required, or end_date)` },
  { name: 'start_date', schema: DATE_SCHEMA, deprecated: true, description: 'startDate, as the spec spells it' },
  { name: 'end_date', schema: DATE_SCHEMA, deprecated: true, description: 'endDate, as the spec spells it' },
];

/** Reads `aggregation`, `startDate`/`endDate` (or the spec's `start_date`/`end_date`). */
export function parseSummaryQuery(q: { get(name: string): string | null }): SummaryQuery {
  const aggregation = q.get('aggregation');
  if (aggregation === null) throw fail('invalid_query', 'aggregation is required (daily, weekly or monthly)');
  if (!(AGGREGATIONS as readonly string[]).includes(aggregation)) {
    throw fail('invalid_query', `aggregation must be daily, weekly or monthly, got "${aggregation}"`);
  }
  const date = (camel: string, snake: string): DateTime => {
    const raw = q.get(camel) ?? q.get(snake);
    if (raw === null) throw fail('invalid_query', `${camel} is required (YYYY-MM-DD)`);
    const d = parseDate(raw);
    if (d === null) throw fail('invalid_query', `${camel} must be a date as YYYY-MM-DD from ${CALENDAR_FIRST} to ${CALENDAR_LAST}, got "${raw}"`);
    return d;
  };
  const start = date('startDate', 'start_date');
  const end = date('endDate', 'end_date');
  if (end < start) throw fail('unprocessable', 'startDate must not be after endDate');
  if (end.diff(start, 'days').days + 1 > MAX_SUMMARY_DAYS) {
    throw fail('unprocessable', `The date range may span at most ${MAX_SUMMARY_DAYS} days`);
  }
  return { aggregation: aggregation as Aggregation, start, end };
}

/**
 * Removes binary floating-point noise from sums and differences of decimal values. An integer has
 * none (sums of integers are exact): it stays as it is, 16 or 17 digits too.
 */
export function clean(n: number): number {
  if (Number.isInteger(n)) return n;
  return Number(n.toPrecision(15));
}

/**
 * The `d:<day>` fields of a hash, by day, in day order: sums then run as the total did (a hash's
 * fields come in no set order, and with doubles near their range the order of a sum matters).
 */
export function dayValues(fields: Record<string, string>): Map<string, number> {
  const days: [string, number][] = [];
  for (const field in fields) if (field.startsWith(DAY_PREFIX)) days.push([field.slice(DAY_PREFIX.length), Number(fields[field])]);
  return new Map(days.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/** The `d:<day>` fields of a hash, by day, and the days in order. */
function daysOf(fields: Record<string, string>): { values: Map<string, number>; days: string[] } {
  const values = dayValues(fields);
  return { values, days: [...values.keys()] };
}

/**
 * Walks the periods of a query over days in order: `take` sees each day before the first period
 * (`during` false) and within the periods (true), `close` makes each period's row.
 */
function walk(q: SummaryQuery, days: string[], take: (day: string, during: boolean) => void, close: (date: string) => SummaryRow): SummaryRow[] {
  const unit = UNIT[q.aggregation];
  const rows: SummaryRow[] = [];
  let i = 0;
  let period = q.start.startOf(unit);
  const first = period.toISODate() as string;
  while (i < days.length && days[i] < first) take(days[i++], false);
  while (period <= q.end) {
    const next = period.plus({ [unit + 's']: 1 });
    const nextDate = next.toISODate() as string;
    while (i < days.length && days[i] < nextDate) take(days[i++], true);
    rows.push(close(period.toISODate() as string));
    period = next;
  }
  return rows;
}

/** Rows from the change of each day (`d:<day> -> change`, as metrics keep it). */
export function eventSummary(userMetric: Record<string, string>, q: SummaryQuery): SummaryRow[] {
  const { values, days } = daysOf(userMetric);
  let total = 0;
  let change = 0;
  return walk(q, days, (day, during) => {
    if (during) change += values.get(day)!;
    else total += values.get(day)!;
  }, (date) => {
    total += change;
    const row = { date, total: clean(total), change: clean(change) };
    change = 0;
    return row;
  });
}

/**
 * Rows from days that record the total at their end (`d:<day> -> total`, as points do: one write
 * per award, no read), carrying a total forward over days without one.
 */
export function totalsSummary(fields: Record<string, string>, q: SummaryQuery): SummaryRow[] {
  const { values, days } = daysOf(fields);
  let total = 0;
  let before = 0;
  return walk(q, days, (day, during) => {
    total = values.get(day)!;
    if (!during) before = total;
  }, (date) => {
    const row = { date, total: clean(total), change: clean(total - before) };
    before = total;
    return row;
  });
}
