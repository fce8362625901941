/**
 * A streak as the tenant's streak rankings and the streak boards take it (src/engine/streaks/rankings.ts),
 * and the one an event's log entry carries.
 */
import { dayIndexOf } from '../periods.js';
import { PAUSES_FIELD, STREAK_FIELD } from '../../model/fields.js';
import type { StreakSettings } from '../../model/entities.js';
import type { LoggedEvent } from '../../model/log.js';
import { expiresAt, stateFromHash, streakZone } from './state.js';

/** A streak as its rankings take it. */
export interface StreakStanding {
  length: number;
  longest: number;
  /** When it is lost if nothing happens (ms). */
  expiry: number;
}

/** The streak an event's log entry carries (its `sx` when it extended the streak), as the rankings take it. */
export function loggedStreak(e: LoggedEvent, rule: StreakSettings | null): StreakStanding | null {
  if (rule === null || typeof e.sx !== 'string') return null;
  const state = stateFromHash(e.sp ? { [STREAK_FIELD]: e.sx, [PAUSES_FIELD]: e.sp } : { [STREAK_FIELD]: e.sx }, rule, dayIndexOf(e.d), 0);
  if (state.last === null) return null;
  return { length: state.length, longest: state.longest, expiry: expiresAt(rule, state, state.last, streakZone(e.sx)) ?? e.ts };
}
