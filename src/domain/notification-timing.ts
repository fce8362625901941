/**
 * When a notification is due, in the user's zone (API.md, "Notifications": "When"). An
 * `achievement_completed` message goes out between 17:00 and 21:00 local on the day of the
 * completion (at 17:00 for one before it, at once for one within), or at 17:00 the next day for
 * one after 21:00; its occasion is the local day it goes out on, so a day's completions make one
 * message.
 */
import { DateTime } from 'luxon';

export const ACHIEVEMENT_FROM_HOUR = 17;
export const ACHIEVEMENT_UNTIL_HOUR = 21;

export interface Due {
  /** The local day the message goes out on (YYYY-MM-DD): its occasion. */
  day: string;
  /** When it is due (ms). */
  at: number;
}

/**
 * When the message of a completion at `ms` is due, for a user in zone `tz`, seen at `now`: one
 * seen only after its day's window closed (the drain was held up) goes out the next day at 17:00.
 */
export function achievementDue(tz: string, ms: number, now = ms): Due {
  const due = dueAt(tz, ms);
  return now > ms && dueAt(tz, now).day !== due.day ? dueAt(tz, now) : due;
}

function dueAt(tz: string, ms: number): Due {
  const local = DateTime.fromMillis(ms, { zone: tz });
  const from = local.set({ hour: ACHIEVEMENT_FROM_HOUR, minute: 0, second: 0, millisecond: 0 });
  const until = local.set({ hour: ACHIEVEMENT_UNTIL_HOUR, minute: 0, second: 0, millisecond: 0 });
  if (local < from) return { day: local.toISODate() as string, at: from.toMillis() };
  if (local < until) return { day: local.toISODate() as string, at: ms };
  return nextDay(tz, local.toISODate() as string);
}

/** 17:00 on the day after `day` (a day's message already gone: what comes later waits for the next). */
export function nextDay(tz: string, day: string): Due {
  const next = DateTime.fromISO(day, { zone: tz }).plus({ days: 1 }).set({ hour: ACHIEVEMENT_FROM_HOUR });
  return { day: next.toISODate() as string, at: next.toMillis() };
}
