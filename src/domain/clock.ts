/**
 * A user's clock (docs/api.md, "Time zones and travel"): the local calendar every per-period
 * feature counts in (limits and award caps, summaries, streaks, boards' runs, wrapped,
 * notifications, anniversaries), one rule for all of them:
 *
 * - it only moves forward: the user's hour is the one their zone gives at the time, unless they
 *   already reached a later one; then they stay in the latest hour reached until their zone's
 *   calendar catches up (no change of zone re-opens an hour, a day, a week or a month);
 * - a move east starts the new hour (and date) at once;
 * - the days the clock jumps over between two events less than 24 hours apart (a flight across
 *   the date line) are not missed: a streak rests on them, as on a day off.
 *
 * What it holds is stored with the user, the user hash's `ck`: '<hour>|<at>', the latest local
 * hour reached (hours since 1970-01-01T00:00 local time: the day is `floor(hour / 24)`) and the
 * instant (ms) of the user's last event, then '|<first>|<last>' once the clock jumped over days:
 * the latest such jump, kept until another replaces it, so that an event that extends no streak
 * (another metric's, one a limit ignored) does not use it up. The event scripts keep it
 * (lua/includes/clock.lua checks what the api worked out here and writes it); every reader works
 * out the user's time with `userTime`.
 */
import { DateTime } from 'luxon';
import { BoundedMap, memoize } from '../lib/memo.js';

/** The user hash's field of the user's clock. */
export const CLOCK_FIELD = 'ck';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const QUARTER_MS = 900_000;

/** What a user's clock holds. */
export interface StoredClock {
  /** The latest local hour reached: hours since 1970-01-01T00:00 local time. */
  hour: number;
  /** The instant of the user's last event (ms). */
  at: number;
  /** The days of the latest jump, [first, last]; null when the clock never jumped. */
  jumped: readonly [number, number] | null;
}

const CLOCK_TEXT = /^(-?\d+)\|(-?\d+)(?:\|(-?\d+)\|(-?\d+))?$/;

/** The clock as the user hash stores it ('<hour>|<at>[|<first>|<last>]'); null when absent or unreadable. */
export function parseClock(text: string | null | undefined): StoredClock | null {
  const m = text == null ? null : CLOCK_TEXT.exec(text);
  if (m === null) return null;
  return { hour: Number(m[1]), at: Number(m[2]), jumped: m[3] === undefined ? null : [Number(m[3]), Number(m[4])] };
}

/** The clock as the user hash stores it. */
export function clockText(c: StoredClock): string {
  return c.jumped === null ? `${c.hour}|${c.at}` : `${c.hour}|${c.at}|${c.jumped[0]}|${c.jumped[1]}`;
}

/**
 * Zone offsets (ms) per zone, for the quarter hour last asked: every zone's offset changes at a
 * whole UTC quarter hour, so luxon runs once per zone and quarter hour.
 */
const offsets = new BoundedMap<string, { quarter: number; offset: number }>(10_000);

/** The offset of zone `tz` ('' is UTC) from UTC at instant `ms`, in ms. */
export function zoneOffset(tz: string, ms: number): number {
  if (tz === '' || tz === 'UTC') return 0;
  const quarter = Math.floor(ms / QUARTER_MS);
  let cached = offsets.get(tz);
  if (cached === undefined || cached.quarter !== quarter) {
    cached = { quarter, offset: DateTime.fromMillis(quarter * QUARTER_MS, { zone: tz }).offset * MINUTE_MS };
    offsets.set(tz, cached);
  }
  return cached.offset;
}

/** The local hour of instant `ms` in zone `tz`, as hours since 1970-01-01T00:00 local time. */
export function zoneHour(tz: string, ms: number): number {
  return Math.floor((ms + zoneOffset(tz, ms)) / HOUR_MS);
}

/** The `YYYY-MM-DD` date of a day index (days since 1970-01-01), remembered. */
export const dateOfDayIndex = memoize(4096, (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10));

/** The user's time at an instant, on their clock. */
export interface UserTime {
  /** The hour on the user's clock (hours since 1970-01-01T00:00 local time). */
  hour: number;
  /** The day on the user's clock (days since 1970-01-01), and its date. */
  day: number;
  date: string;
  /**
   * The zone's calendar is behind the clock (the user moved west): the clock stays in `hour`, the
   * latest one reached, until the zone catches up.
   */
  held: boolean;
  /**
   * The days of the clock's latest jump, [first day, last day] (null: it never jumped): the days it
   * jumps over at this instant, when the user's last event was less than 24 hours ago (a move east
   * across one or more dates), else the stored latest jump.
   */
  jumped: readonly [number, number] | null;
}

/**
 * The user's time at instant `ms` in zone `tz` ('' is UTC), given what their clock holds (null:
 * nothing yet, a new user or one who has sent no event since laurel kept clocks).
 */
export function userTime(tz: string, clock: StoredClock | null, ms: number): UserTime {
  const own = zoneHour(tz, ms);
  if (clock === null) {
    const day = Math.floor(own / 24);
    return { hour: own, day, date: dateOfDayIndex(day), held: false, jumped: null };
  }
  const held = clock.hour > own;
  const hour = held ? clock.hour : own;
  const day = Math.floor(hour / 24);
  const first = Math.floor(clock.hour / 24) + 1;
  const jumped: readonly [number, number] | null = day - 1 >= first && ms - clock.at < DAY_MS ? [first, day - 1] : clock.jumped;
  return { hour, day, date: dateOfDayIndex(day), held, jumped };
}

/** The clock after an event at `ms` that the user's time `t` counted in. */
export function advance(clock: StoredClock | null, t: UserTime, ms: number): StoredClock {
  return { hour: t.hour, at: clock === null || ms > clock.at ? ms : clock.at, jumped: t.jumped };
}

/**
 * What an event tells the script of the user's clock (lua/includes/clock.lua): the hour it counts
 * in, 'h' after it when the api held the clock there (it assumed the stored hour), then the days
 * of the clock's latest jump as ':<first>-<last>'.
 */
export function clockArg(t: UserTime): string {
  const base = t.held ? `${t.hour}h` : String(t.hour);
  return t.jumped === null ? base : `${base}:${t.jumped[0]}-${t.jumped[1]}`;
}

/** The user's time at `ms` from their hash (its `tz` and `ck`). */
export function userTimeOf(h: Readonly<Record<string, string | undefined>>, ms: number): UserTime {
  return userTime(h.tz ?? '', parseClock(h[CLOCK_FIELD]), ms);
}

/** The user's clock as an export shows it: the date and hour reached, and the last event's time; null when none. */
export interface ClockView {
  date: string;
  hour: number;
  lastEventAt: string;
}

export function clockView(c: StoredClock | null): ClockView | null {
  if (c === null) return null;
  return { date: dateOfDayIndex(Math.floor(c.hour / 24)), hour: ((c.hour % 24) + 24) % 24, lastEventAt: new Date(c.at).toISOString() };
}
