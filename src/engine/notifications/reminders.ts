/**
 * `streak_reminder` (API.md, "Notifications"): an extension the log drainer meets (workers/log-drain.ts)
 * schedules the reminder of the period after it, at the hour of the streak's frequency in the zone
 * the streak is judged in (src/domain/notification-timing.ts reminderDue), written in the archive's
 * transaction as the achievements' are. At send time the user's streak is read again: one extended
 * in the reminder's period, or lost, cancels it (src/engine/notifications/send.ts).
 */
import { DEFAULT_TIME_ZONE } from '../../domain/notifications.js';
import { reminderDue } from '../../domain/notification-timing.js';
import { currentPeriod, dayIndexOf, periodOfDay } from '../../domain/periods.js';
import { stateFromHash, streakView, streakZone, type StreakView } from '../../domain/streaks.js';
import { PAUSES_FIELD, STREAK_FIELD } from '../../model/fields.js';
import type { LogBody } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import { channelsOf, type Planned } from './schedule.js';

/** Whether reminders are scheduled: a streak rule, and a streak_reminder template (active or not). */
export function remindersWanted(snapshot: Snapshot): boolean {
  return snapshot.streak !== null && channelsOf(snapshot, 'streak_reminder').length > 0;
}

/** The reminders of the extensions among parsed event entries: each for the period after the one it extended. */
export function plannedReminders(snapshot: Snapshot, extensions: LogBody[], now: number): Planned[] {
  const rule = snapshot.streak;
  if (rule === null) return [];
  const fallback = snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE;
  const out: Planned[] = [];
  for (const e of extensions) {
    if (typeof e.sx !== 'string' || e.t === undefined || e.u === undefined || e.d === undefined) continue;
    const h: Record<string, string> = e.sp ? { [STREAK_FIELD]: e.sx, [PAUSES_FIELD]: e.sp } : { [STREAK_FIELD]: e.sx };
    const state = stateFromHash(h, rule, dayIndexOf(e.d), 0);
    if (state.last === null || state.length === 0) continue;
    const tz = streakZone(e.sx) || fallback;
    const due = reminderDue(rule.frequency, tz, state.last + 1);
    // A reminder already past when the drain meets its extension (held up for a day) is not sent late.
    if (due.at <= now) continue;
    for (const channel of channelsOf(snapshot, 'streak_reminder')) {
      out.push({
        tz, occasion: { tenant: e.t, userId: e.u, type: 'streak_reminder', channel, occasion: due.day, at: due.at, items: { length: state.length } },
      });
    }
  }
  return out;
}

/**
 * The streak a reminder speaks of, read again at send time; or why it is not sent: `extended` (the
 * user extended it in the reminder's period), `lost` (nothing left to save: lost, or disabled by
 * the user's preferences), `no_streak` (no streak configured any more).
 */
export function reminderStreak(snapshot: Snapshot, h: Record<string, string>, occasion: string, now: number): StreakView | string {
  const rule = snapshot.streak;
  if (rule === null) return 'no_streak';
  const reminded = periodOfDay(rule.frequency, dayIndexOf(occasion.slice('streak:'.length)));
  // The period now in the user's zone, as the streak's own reads judge it (src/routes/app/streaks.ts).
  const { day, period } = currentPeriod(rule.frequency, h.tz ?? '', now);
  const state = stateFromHash(h, rule, day, period);
  if (state.last !== null && state.last >= reminded) return 'extended';
  const view = streakView(rule, state, period);
  return view.length === 0 ? 'lost' : view;
}

/** The user's streak now (its head, as GET /users/{id}/streak answers it), or null without a streak rule. */
export function currentStreak(snapshot: Snapshot, h: Record<string, string>, now: number): StreakView | null {
  const rule = snapshot.streak;
  if (rule === null) return null;
  const { day, period } = currentPeriod(rule.frequency, h.tz ?? '', now);
  return streakView(rule, stateFromHash(h, rule, day, period), period);
}
