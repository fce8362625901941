/**
 * `streak_reminder` (docs/notifications.md): an extension the log drainer meets (src/engine/log-drain/drain.ts)
 * calls for the reminder of the period after it, at the hour of the streak's frequency in the zone
 * the streak is judged in (src/domain/notifications/timing.ts reminderDue), through the due index
 * (src/engine/notifications/due-index.ts). At send time the user's streak is read again: one extended
 * in the reminder's period, or lost, cancels it (src/engine/notifications/send.ts).
 */
import { userTimeOf } from '../../domain/clock.js';
import { currentPeriod, dayIndexOf, periodOfDay } from '../../domain/periods.js';
import { stateFromHash, streakView, type StreakView } from '../../domain/streaks/state.js';
import type { Snapshot } from '../../model/snapshot.js';

/**
 * The streak a reminder speaks of, read again at send time; or why it is not sent: `extended` (the
 * user extended it in the reminder's period), `lost` (nothing left to save: lost, or disabled by
 * the user's preferences), `no_streak` (no streak configured any more).
 */
export function reminderStreak(snapshot: Snapshot, h: Record<string, string>, occasion: string, now: number): StreakView | string {
  const rule = snapshot.streak;
  if (rule === null) return 'no_streak';
  const reminded = periodOfDay(rule.frequency, dayIndexOf(occasion.slice('streak:'.length)));
  // The period now on the user's clock, as the streak's own reads judge it (src/routes/app/streaks.ts).
  const t = userTimeOf(h, now);
  const { day, period } = currentPeriod(rule.frequency, t);
  const state = stateFromHash(h, rule, day, period, t.jumped);
  if (state.last !== null && state.last >= reminded) return 'extended';
  const view = streakView(rule, state, period);
  return view.length === 0 ? 'lost' : view;
}

/** The user's streak now (its head, as GET /users/{id}/streak answers it), or null without a streak rule. */
export function currentStreak(snapshot: Snapshot, h: Record<string, string>, now: number): StreakView | null {
  const rule = snapshot.streak;
  if (rule === null) return null;
  const t = userTimeOf(h, now);
  const { day, period } = currentPeriod(rule.frequency, t);
  return streakView(rule, stateFromHash(h, rule, day, period, t.jumped), period);
}
