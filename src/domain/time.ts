/**
 * Calendar arithmetic for a user's time zone, in TypeScript (never in Lua).
 *
 * A luxon zone conversion costs about half a request's budget, so the current local day of each
 * zone is cached with its bounds and recomputed only when an instant falls outside them.
 */
import { BoundedMap } from '../lib/memo.js';
import { DateTime, IANAZone } from 'luxon';

const UTC = 'UTC';
const zoneNames = new BoundedMap<string, string | null>(10_000);

/**
 * `tz` as stored: its IANA spelling when it differs only in case (ICU matches names
 * case-insensitively, so `europe/paris` would be a second spelling of `Europe/Paris`: compared as
 * strings, a user's events would look like a zone move), else as sent (ICU names an alias by its
 * target, `Asia/Kolkata` as `Asia/Calcutta`: another name, not a spelling); null when it is not a
 * zone luxon (ICU) knows. Cached.
 */
export function zoneName(tz: string): string | null {
  let name = zoneNames.get(tz);
  if (name === undefined) {
    name = null;
    if (tz.length <= 64 && IANAZone.isValidZone(tz)) {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
      name = resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
    }
    zoneNames.set(tz, name);
  }
  return name;
}

/** A local calendar day: its date and the instants it starts and ends at (a DST day has 23 or 25 hours). */
export interface DayBounds {
  start: number;
  end: number;
  date: string;
}

/** The local day of instant `ms` in zone `tz` ('' is UTC), with its bounds; not cached. */
export function dayBounds(tz: string, ms: number): DayBounds {
  const start = DateTime.fromMillis(ms, { zone: tz || UTC }).startOf('day');
  return { start: start.toMillis(), end: start.plus({ days: 1 }).toMillis(), date: start.toISODate() as string };
}

const dayCache = new Map<string, DayBounds>();

/** The local calendar day (YYYY-MM-DD) of instant `ms` in zone `tz` ('' is UTC). */
export function localDay(tz: string, ms: number): string {
  const cached = dayCache.get(tz);
  if (cached !== undefined && ms >= cached.start && ms < cached.end) return cached.date;
  const bounds = dayBounds(tz, ms);
  dayCache.set(tz, bounds);
  return bounds.date;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * laurel's calendar: the dates it takes. It counts days from the epoch (src/domain/periods.ts
 * dayIndexOf, where a year before 100 would read as 19xx), and writes a date as YYYY-MM-DD, four
 * digits of year (JavaScript writes the years past 9999 as +010000 and those before 0 as
 * -000001, which neither compare nor cut as dates).
 */
export const CALENDAR_FIRST = '1970-01-01';
export const CALENDAR_LAST = '9999-12-31';

/**
 * The schema of a date query parameter: a date of laurel's calendar (`format: 'date'`, which the
 * query checks read as parseDate does: src/http/query.ts).
 */
export const DATE_SCHEMA = { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

/**
 * Parses a YYYY-MM-DD calendar date (as a UTC date); null when invalid, or outside laurel's
 * calendar (CALENDAR_FIRST to CALENDAR_LAST).
 */
export function parseDate(s: string): DateTime | null {
  if (!ISO_DATE.test(s) || s < CALENDAR_FIRST || s > CALENDAR_LAST) return null;
  const d = DateTime.fromISO(s, { zone: UTC });
  return d.isValid ? d : null;
}

/**
 * An ISO-8601 date-time as laurel takes one: a date, `T`, an hour from 00 to 23, then minutes,
 * seconds and a fraction where given, and an offset, `Z` or one from -23:59 to +23:59 (`+01:00`,
 * `+0100`, `+01`), where given. luxon reads more: an hour 24 (the next day's start), an offset of
 * any two digits each (`+99:99`, read as 100 hours 39 minutes), a zone in brackets.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3])(?::?[0-5]\d(?::?[0-5]\d(?:[.,]\d{1,9})?)?)?(?:[Zz]|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?$/;

/**
 * The instant (ms) an ISO-8601 date-time names (`2026-01-31T12:00:00Z`, `...+01:00`); null when it
 * is none (a day that does not exist, `2026-02-30`, an hour or an offset out of range, `T24:00`,
 * `+24:00`, included) or falls outside laurel's calendar.
 */
export function parseInstant(text: string): number | null {
  if (!DATE_TIME.test(text)) return null;
  const at = DateTime.fromISO(text, { setZone: true });
  if (!at.isValid) return null;
  const day = at.toUTC().toISODate();
  return day === null || day < CALENDAR_FIRST || day > CALENDAR_LAST ? null : at.toMillis();
}

/**
 * The refusal of a span of days `start`..`end` (end null: open) as the Admin API takes it (a
 * boost's, a leaderboard's): both calendar dates, end not before start. Null when it is sound.
 */
export function checkDateSpan(start: string, end: string | null): string | null {
  if (parseDate(start) === null) return `start must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "${start}")`;
  if (end !== null && parseDate(end) === null) return `end must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "${end}")`;
  if (end !== null && end < start) return `end (${end}) must not be before start (${start})`;
  return null;
}

const QUARTER_MS = 900_000;
const minuteCache = new BoundedMap<string, { quarter: number; minute: number }>(10_000);

/**
 * The local wall-clock minute of the day (0 to 1439) of instant `ms` in zone `tz` ('' is UTC).
 * Every zone's offset changes at a whole UTC quarter hour, so the minute at the start of the
 * current quarter hour is cached per zone and the rest is arithmetic (luxon once per zone and
 * quarter hour).
 */
export function localMinute(tz: string, ms: number): number {
  const quarter = Math.floor(ms / QUARTER_MS);
  let cached = minuteCache.get(tz);
  if (cached === undefined || cached.quarter !== quarter) {
    const at = DateTime.fromMillis(quarter * QUARTER_MS, { zone: tz || UTC });
    cached = { quarter, minute: at.hour * 60 + at.minute };
    minuteCache.set(tz, cached);
  }
  return cached.minute + Math.floor((ms - quarter * QUARTER_MS) / 60_000);
}
