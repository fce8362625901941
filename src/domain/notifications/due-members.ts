/**
 * The due index of the notifications that activity schedules (streak reminders, reactivations,
 * recaps): what the log drainer notes of a pass, without reading anything, and what the notifier
 * makes a delivery of once it may be due (src/engine/notifications/due-index.ts).
 *
 * A member names a user's occasion; its score is the earliest instant the message can be due in
 * any zone: its local time in UTC+14, the zone furthest ahead (`EARLIEST_ZONE`). The user's own
 * zone is read only then, when the delivery is made with its exact time. From the score the due
 * day in that zone is known again, and with it the occasion:
 * - `s`: the streak reminder of the period after the user's last extension (one per user: a later
 *   extension raises the score, ZADD GT);
 * - `r`: the first reactivation message of the user's absence since the last active day (one per
 *   user: a later active day raises the score);
 * - `c`: the recap of a period the user was active in (one per user and period, its day named).
 */
import type { Frequency } from '../periods.js';
import { dateOfDay, dayIndexOf, firstDayOf, periodOfDay, periodStart } from '../periods.js';
import { REACTIVATION_DAYS, REACTIVATION_HOUR, RECAP_HOUR, REMINDER } from './timing.js';

/**
 * UTC+14 (Etc/GMT-14 in the IANA database, whose signs are inverted): no local time comes earlier.
 * A fixed offset, so its times are worked out by arithmetic: the drainer computes one for every
 * event, and a zone's offset through Intl (luxon) cost more than the rest of the pass.
 */
export const EARLIEST_ZONE = 'Etc/GMT-14';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const EARLIEST_OFFSET_MS = 14 * HOUR_MS;

/** The instant of `hour`:00 on day index `day` in EARLIEST_ZONE. */
const earliestAt = (day: number, hour: number): number => day * DAY_MS + hour * HOUR_MS - EARLIEST_OFFSET_MS;

export type DueKind = 's' | 'r' | 'c';

export interface DueMember {
  kind: DueKind;
  tenant: string;
  userId: string;
  /** A recap's occasion day (`recap:<period start>` names its period); '' for the others. */
  occasion: string;
}

export function dueMember(m: DueMember): string {
  return JSON.stringify(m.kind === 'c' ? [m.kind, m.tenant, m.userId, m.occasion] : [m.kind, m.tenant, m.userId]);
}

/**
 * dueMember's text from the JSON of the tenant and the user id (JSON.stringify's text of each),
 * joined without building an array: the log drainer writes one for each active user of a pass.
 */
export function dueMemberText(kind: DueKind, tenantJson: string, userJson: string, occasion = ''): string {
  return kind === 'c' ? `["c",${tenantJson},${userJson},"${occasion}"]` : `["${kind}",${tenantJson},${userJson}]`;
}

/** A member as written by dueMember, or null for one of another form. */
export function parseDueMember(member: string): DueMember | null {
  try {
    const [kind, tenant, userId, occasion] = JSON.parse(member) as unknown[];
    if ((kind !== 's' && kind !== 'r' && kind !== 'c') || typeof tenant !== 'string' || typeof userId !== 'string') return null;
    if (kind === 'c' && typeof occasion !== 'string') return null;
    return { kind, tenant, userId, occasion: kind === 'c' ? occasion as string : '' };
  } catch {
    return null;
  }
}

/** The day an earliest score falls on in EARLIEST_ZONE: the due day of the occasion it stands for. */
function earliestDay(score: number): number {
  return Math.floor((score + EARLIEST_OFFSET_MS) / DAY_MS);
}

/** Reminder: the score of the reminder of period `period`, and the period of a score. */
export function reminderScore(frequency: Frequency, period: number): number {
  const { hour, dayOfPeriod } = REMINDER[frequency];
  return earliestAt(firstDayOf(frequency, period) + dayOfPeriod, hour);
}
export const reminderPeriod = (frequency: Frequency, score: number): number => periodOfDay(frequency, earliestDay(score));

/** Reactivation: the score of the first message after last active day `lastDay`, and the day of a score. */
export const reactivationScore = (lastDay: string): number => earliestAt(dayIndexOf(lastDay) + REACTIVATION_DAYS[0], REACTIVATION_HOUR);
export const reactivationLastDay = (score: number): string => dateOfDay(earliestDay(score) - REACTIVATION_DAYS[0]);

/** Recap: the occasion and score of the recap of the period local day `day` is in (src/domain/notifications/timing.ts recapDue). */
export function recapIndexed(aggregation: 'weekly' | 'monthly', day: string): { occasion: string; score: number } {
  const period = periodOfDay(aggregation, dayIndexOf(day));
  return { occasion: `recap:${periodStart(aggregation, period)}`, score: earliestAt(firstDayOf(aggregation, period + 1), RECAP_HOUR) };
}
