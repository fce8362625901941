/**
 * What a user's streak freezes did between two checks (src/engine/webhooks/freezes.ts): a check
 * sees the streak's last extended period, the freezes left and the periods they bridged since; the
 * next one, compared with it, says how many were consumed (periods bridged since) and earned
 * (automatically, or granted by an admin: the freezes left grew by more than were consumed).
 */
import { userTimeOf } from '../clock.js';
import { currentPeriod, dayIndexOf, periodEndsAt, periodOfDay } from '../periods.js';
import { stateFromHash, streakZone } from '../streaks/state.js';
import type { StreakSettings } from '../../model/entities.js';
import { PAUSES_FIELD, STREAK_FIELD } from '../../model/fields.js';

export interface FreezeSeen {
  /** The streak's last extended period. */
  last: number;
  /** Freezes left. */
  left: number;
  /** Periods missed since `last` that freezes bridged. */
  bridged: number;
}

export const formatSeen = (s: FreezeSeen): string => `${s.last}|${s.left}|${s.bridged}`;

export function parseSeen(raw: string | null): FreezeSeen | null {
  if (raw === null) return null;
  const [last, left, bridged] = raw.split('|').map(Number);
  return [last, left, bridged].every(Number.isFinite) ? { last, left, bridged } : null;
}

/**
 * The user's freezes at `now`, and when to look again (the end of the user's local day); null while
 * the rule has no freezes or the user has no streak alive (a lost one is `streak.lost`'s).
 */
export function freezeStanding(rule: StreakSettings | null, h: Record<string, string>, now: number): { seen: FreezeSeen; next: number } | null {
  if (rule === null || !rule.freezes) return null;
  const tz = h.tz ?? '';
  const t = userTimeOf(h, now);
  const { day, period } = currentPeriod(rule.frequency, t);
  const state = stateFromHash(h, rule, day, period, t.jumped);
  if (state.length === 0 || state.last === null) return null;
  const missed = Math.max(0, period - state.last - 1 - state.paused);
  if (missed > state.freezes) return null;
  return { seen: { last: state.last, left: state.freezes - missed, bridged: missed }, next: periodEndsAt('daily', day, tz) };
}

/**
 * The freezes an extension leaves, from its log entry's streak (`sx`, with the pauses `sp`) on its
 * local day `day`, and the end of that day in the streak's zone (when to look next); null for a
 * streak without freezes.
 */
export function extensionSeen(rule: StreakSettings, sx: string, sp: string | undefined, day: string): { seen: FreezeSeen; next: number } | null {
  const h: Record<string, string> = sp ? { [STREAK_FIELD]: sx, [PAUSES_FIELD]: sp } : { [STREAK_FIELD]: sx };
  const d = dayIndexOf(day);
  const state = stateFromHash(h, rule, d, periodOfDay(rule.frequency, d));
  if (state.last === null || state.length === 0) return null;
  return { seen: { last: state.last, left: state.freezes, bridged: 0 }, next: periodEndsAt('daily', d, streakZone(sx)) };
}

/**
 * Freezes consumed and earned between two checks. After an extension (another `last`), what the
 * extension bridged was consumed by then: only the periods bridged since count.
 */
export function freezeChanges(before: FreezeSeen | null, now: FreezeSeen): { consumed: number; earned: number } {
  if (before === null) return { consumed: 0, earned: 0 };
  const consumed = before.last === now.last ? Math.max(0, now.bridged - before.bridged) : now.bridged;
  return { consumed, earned: Math.max(0, now.left - before.left + consumed) };
}
