/**
 * Streak periods as integers: a period is a local calendar day, an ISO week (Monday to Sunday) or
 * a calendar month of the user's time zone, numbered from the epoch. Integers make the script's
 * work a comparison and a subtraction ("is this the period after the last one?"), and the dates of
 * any period follow from its number without a time zone.
 *
 *   day index    days since 1970-01-01 of the local date
 *   week index   floor((day index + 3) / 7): 1970-01-01 was a Thursday, so week 0 starts on
 *                Monday 1969-12-29
 *   month index  (year - 1970) * 12 + month - 1
 */
import { memoize } from '../lib/memo.js';
import { DateTime } from 'luxon';

export type Frequency = 'daily' | 'weekly' | 'monthly';

const DAY_MS = 86_400_000;

/** Day index of a `YYYY-MM-DD` date. */
export function dayIndexOf(date: string): number {
  return Math.floor(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS);
}

/** The `YYYY-MM-DD` date of a day index. */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function periodOfDay(frequency: Frequency, day: number): number {
  if (frequency === 'daily') return day;
  if (frequency === 'weekly') return Math.floor((day + 3) / 7);
  const d = new Date(day * DAY_MS);
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
}

/** The day index of the first day of a period. */
export function firstDayOf(frequency: Frequency, period: number): number {
  if (frequency === 'daily') return period;
  if (frequency === 'weekly') return period * 7 - 3;
  const year = 1970 + Math.floor(period / 12);
  const month = ((period % 12) + 12) % 12;
  return Math.floor(Date.UTC(year, month, 1) / DAY_MS);
}

const startDates = memoize(4096, (key: string) => {
  const [frequency, period] = key.split(':');
  return dateOfDay(firstDayOf(frequency as Frequency, Number(period)));
});

export function periodStart(frequency: Frequency, period: number): string {
  return startDates(`${frequency}:${period}`);
}

export function periodEnd(frequency: Frequency, period: number): string {
  return endDates(`${frequency}:${period}`);
}

const endDates = memoize(4096, (key: string) => {
  const [frequency, period] = key.split(':');
  return dateOfDay(firstDayOf(frequency as Frequency, Number(period) + 1) - 1);
});

/** The user's day and period at the time `t` of their clock (src/domain/clock.ts userTime). */
export function currentPeriod(frequency: Frequency, t: { day: number }): { day: number; period: number } {
  return { day: t.day, period: periodOfDay(frequency, t.day) };
}

/** How far back restoring a streak looks, in days: 90 for daily, a year weekly, two monthly. */
export const RESTORE_WINDOW_DAYS: Record<Frequency, number> = { daily: 90, weekly: 365, monthly: 730 };

/** The instant period `period` ends (the next one starts) in zone `tz`, ms since the epoch. */
export function periodEndsAt(frequency: Frequency, period: number, tz: string): number {
  return endInstants(`${frequency}:${period}:${tz}`);
}

// luxon is dear: one call per zone and period is plenty.
const endInstants = memoize(16384, (key: string) => {
  const [frequency, period, tz] = key.split(':');
  return DateTime.fromISO(dateOfDay(firstDayOf(frequency as Frequency, Number(period) + 1)), { zone: tz || 'UTC' }).toMillis();
});
