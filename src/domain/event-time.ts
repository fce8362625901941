/**
 * Event time (docs/api.md, "Event time"): when an event happened, `occurredAt`, as an event or a
 * batch item sends it: an ISO 8601 date and time with an offset or `Z`, accepted from
 * LAUREL_EVENT_TIME_WINDOW before the event arrives to five minutes after. The event counts at that
 * time on the user's clock (src/domain/clock.ts), which only moves forward: an event older than the
 * user's latest counts in the latest period reached. A board's run that was final when the event
 * arrived is left as it is (src/domain/leaderboards/runs.ts finalThrough).
 */
import { fail } from '../lib/errors.js';

/** An event's `occurredAt` (and a batch item's) in the request schemas; occurredAtOf checks the rest. */
export const OCCURRED_AT_SCHEMA = {
  type: 'string', maxLength: 64,
  description: 'When the interaction happened (ISO 8601 with an offset or Z): the event counts then. From LAUREL_EVENT_TIME_WINDOW ' +
    '(default 7 days) before its arrival to 5 minutes after; absent, when it arrives',
};

/** How far after its arrival an event may say it happened: the sender's clock may run ahead. */
export const AHEAD_MS = 5 * 60_000;

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** The instant an ISO 8601 date and time names (ms); null when it is not one (a 31st of April, an hour 24). */
export function instantOf(text: string): number | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? '0'));
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetHours = Number(m[9] ?? '0');
  const offsetMinutes = Number(m[10] ?? '0');
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC carries a day past the month's end into the next month: such a date names none.
  if (new Date(local).getUTCDate() !== day || year < 1) return null;
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return local - offset;
}

/** Whole days, hours or minutes of a window, as the error says it. */
function spoken(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} days`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hours`;
  return `${Math.round(ms / 60_000)} minutes`;
}

/**
 * The instant an event's `occurredAt` names, checked against the window around its arrival
 * (`arrival`, ms). Refuses a text that is no ISO 8601 date and time (invalid_body) and an instant
 * outside the window (occurred_at_out_of_window); a batch names the item before the message.
 */
export function occurredAtOf(text: string, arrival: number, windowMs: number): number {
  const at = instantOf(text);
  if (at === null) {
    throw fail('invalid_body', `occurredAt must be an ISO 8601 date and time with an offset or Z, such as 2026-11-30T09:15:00Z; got ${JSON.stringify(text)}`);
  }
  // Laurel's calendars (days, weeks, months as numbers since 1970-01-01) begin there.
  if (at < 0) throw fail('occurred_at_out_of_window', `${JSON.stringify(text)} is before 1970-01-01, where laurel's calendars begin`);
  if (at < arrival - windowMs) {
    throw fail('occurred_at_out_of_window', `${JSON.stringify(text)} is more than ${spoken(windowMs)} before the event arrived (LAUREL_EVENT_TIME_WINDOW)`);
  }
  if (at > arrival + AHEAD_MS) {
    throw fail('occurred_at_out_of_window', `${JSON.stringify(text)} is more than ${spoken(AHEAD_MS)} after the event arrived`);
  }
  return at;
}
