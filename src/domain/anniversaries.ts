/**
 * Anniversaries (the `anniversary` achievement trigger of Admin API 1.26.0), on the user's
 * calendar: a user's anniversaries are counted from the local day of their creation (the anchor),
 * in their zone; the N-th is the same month and day N years later (February 29th on February 28th
 * in a year without one), and it comes at the start of that day in the user's zone.
 *
 * The workers look at a user when the day can have begun somewhere (at its start in UTC+14, the
 * zone where days begin first), and again at its start in the user's zone, so that a user who
 * moved zone meanwhile is looked at when the day begins in the zone they have then
 * (src/engine/achievements/anniversaries.ts).
 */
import { DateTime } from 'luxon';

/** UTC+14 (Pacific/Kiritimati): the zone whose days begin first. */
const EARLIEST_OFFSET_MS = 14 * 3_600_000;

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** The `years`-th anniversary of `anchor` (YYYY-MM-DD): February 29th falls on the 28th when the year has none. */
export function anniversaryDate(anchor: string, years: number): string {
  const year = Number(anchor.slice(0, 4)) + years;
  let monthDay = anchor.slice(5);
  if (monthDay === '02-29' && !isLeap(year)) monthDay = '02-28';
  return `${String(year).padStart(4, '0')}-${monthDay}`;
}

/** When the calendar day `date` begins in UTC+14, the first zone to reach it (ms). */
export function earliestStart(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) - EARLIEST_OFFSET_MS;
}

/** When the calendar day `date` begins in zone `tz` ('' is UTC), ms. */
export function dayStart(date: string, tz: string): number {
  return DateTime.fromISO(date, { zone: tz || 'UTC' }).startOf('day').toMillis();
}

/**
 * When the workers next look at a user whose next anniversary is `date` in zone `tz`: when the day
 * can have begun somewhere, then when it begins in the user's zone.
 */
export function nextLook(date: string, tz: string, now: number): number {
  const earliest = earliestStart(date);
  return now < earliest ? earliest : Math.max(dayStart(date, tz), now);
}
