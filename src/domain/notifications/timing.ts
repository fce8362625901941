/**
 * When a notification is due, in the user's zone (docs/notifications.md: "When"). An
 * `achievement_completed` message goes out between 17:00 and 21:00 local on the day of the
 * completion (at 17:00 for one before it, at once for one within), or at 17:00 the next day for
 * one after 21:00; its occasion is the local day it goes out on, so a day's completions make one
 * message. A `streak_reminder` goes out in the period after the one a streak was extended in, at
 * the hour of its frequency (reminderDue).
 */
import { DateTime } from 'luxon';
import { dayIndexOf, periodEnd, periodOfDay, periodStart } from '../periods.js';
import type { Frequency } from '../periods.js';

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

/** The local hour of a streak reminder by the streak's frequency, and the day of its period (0: the first). */
export const REMINDER: Record<Frequency, { hour: number; dayOfPeriod: number }> = {
  daily: { hour: 20, dayOfPeriod: 0 },
  // Friday of a week starting on Monday; the 25th of a month.
  weekly: { hour: 9, dayOfPeriod: 4 },
  monthly: { hour: 9, dayOfPeriod: 24 },
};

/**
 * When the `streak_reminder` of period `period` is due, for a user in `tz`: daily at 20:00, weekly
 * on Friday at 09:00, monthly on the 25th at 09:00, local time (a DST day keeps the local hour: it
 * is neither skipped nor repeated). Its occasion names the period.
 */
export function reminderDue(frequency: Frequency, tz: string, period: number): Due {
  const { hour, dayOfPeriod } = REMINDER[frequency];
  const local = DateTime.fromISO(periodStart(frequency, period), { zone: tz }).plus({ days: dayOfPeriod }).set({ hour });
  return { day: `streak:${periodStart(frequency, period)}`, at: local.toMillis() };
}

/** Days without an event after which each reactivation message goes out (the first to the fifth). */
export const REACTIVATION_DAYS = [3, 5, 7, 14, 30];
export const REACTIVATION_HOUR = 17;

/**
 * When reactivation message `n` (1 to 5) is due for a user last active on local day `lastDay` in
 * `tz`: 17:00 local, REACTIVATION_DAYS[n - 1] days later. Its occasion names the last active day
 * and the message, so a user's messages of one absence are one each.
 */
export function reactivationDue(tz: string, lastDay: string, n: number): Due {
  const local = DateTime.fromISO(lastDay, { zone: tz }).plus({ days: REACTIVATION_DAYS[n - 1] }).set({ hour: REACTIVATION_HOUR });
  return { day: `reactivation:${lastDay}:${n}`, at: local.toMillis() };
}

export const RECAP_HOUR = 9;

/**
 * The recap of the period (a week from Monday, or a month) that local day `day` is in, for a user
 * in `tz`: due at 09:00 local the day after the period ends (Monday, or the 1st); its occasion
 * names the period.
 */
export function recapDue(aggregation: 'weekly' | 'monthly', tz: string, day: string): Due & { start: string; end: string } {
  const period = periodOfDay(aggregation, dayIndexOf(day));
  const start = periodStart(aggregation, period);
  const end = periodEnd(aggregation, period);
  const local = DateTime.fromISO(end, { zone: tz }).plus({ days: 1 }).set({ hour: RECAP_HOUR });
  return { day: `recap:${start}`, at: local.toMillis(), start, end };
}

/**
 * When a scheduled delivery of `type` and `occasion` is due for a user in zone `tz` (a zone change
 * moves what is still pending): the same occasion, timed in the new zone. Null for an occasion
 * whose form is unknown.
 */
export function dueIn(
  type: string, occasion: string, tz: string, frequency: Frequency | null, aggregation: 'weekly' | 'monthly',
): number | null {
  if (type === 'achievement_completed' && /^\d{4}-\d{2}-\d{2}$/.test(occasion)) {
    return DateTime.fromISO(occasion, { zone: tz }).set({ hour: ACHIEVEMENT_FROM_HOUR }).toMillis();
  }
  const [kind, date, n] = occasion.split(':');
  if (type === 'streak_reminder' && kind === 'streak' && frequency !== null) {
    return reminderDue(frequency, tz, periodOfDay(frequency, dayIndexOf(date))).at;
  }
  if (type === 'reactivation' && kind === 'reactivation') return reactivationDue(tz, date, Number(n)).at;
  if (type === 'recap' && kind === 'recap') return recapDue(aggregation, tz, date).at;
  return null;
}
