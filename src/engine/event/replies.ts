/**
 * What the event script answers of the streak and the points, as the response and phase 2 need
 * them. Events answer the same few values over and over (every new user's first day is one
 * streak state; a trigger's award and the first totals repeat across users), so each is worked
 * out once and found again; what is shared is frozen or read only.
 */
import { PAUSES_FIELD, STREAK_FIELD } from '../../model/fields.js';
import { BoundedMap, perObject } from '../../lib/memo.js';
import type { EventAward } from '../../model/log.js';
import type { StreakSettings } from '../../model/entities.js';
import { stateFromHash, streakJson, streakView, type StreakState } from '../../domain/streaks/state.js';

/** An event that awards nothing. */
export const NO_AWARDS: readonly EventAward[] = [];

/** A streak response for users without a streak. */
export function noStreak(frequency: string): string {
  return `{"length":0,"frequency":"${frequency}","started":null,"periodStart":null,"periodEnd":null,"expires":null,"extended":false}`;
}

export interface EventStreak {
  state: Readonly<StreakState>;
  /** The response's currentStreak (extended only when this event did). */
  json: string;
}

export class EventReplies {
  private readonly streaks = perObject((_: StreakSettings) => new BoundedMap<string, EventStreak>(10_000));
  private readonly awards = new BoundedMap<string, readonly EventAward[]>(10_000);

  /** The awards the script answers (JSON, as the log carries them), parsed. */
  awardsOf(text: string): readonly EventAward[] {
    if (text === '') return NO_AWARDS;
    let awards = this.awards.get(text);
    if (awards === undefined) {
      awards = JSON.parse(text) as EventAward[];
      this.awards.set(text, awards);
    }
    return awards;
  }

  /**
   * The streak the script answers ({stored state, pauses, extended}) as of `period` (on day `day`,
   * the days `jumped` the user's clock jumped over resting: src/domain/clock.ts), worked out
   * here rather than in Lua (the api is cheaper at it than the contended Redis), per rule.
   */
  streakOf(rule: StreakSettings, reply: unknown, day: number, period: number, jumped: readonly [number, number] | null): EventStreak {
    const [packed, pauses, extended] = Array.isArray(reply) ? reply : ['', '', 0];
    const key = `${packed}\n${pauses}\n${extended}\n${day}\n${period}${jumped === null ? '' : `\n${jumped[0]}-${jumped[1]}`}`;
    const known = this.streaks(rule);
    let streak = known.get(key);
    if (streak === undefined) {
      const state = stateFromHash({ [STREAK_FIELD]: String(packed), [PAUSES_FIELD]: String(pauses) }, rule, day, period, jumped);
      state.extended = String(extended) === '1';
      streak = { state: Object.freeze(state), json: streakJson(streakView(rule, state, period), state.extended) };
      known.set(key, streak);
    }
    return streak;
  }
}
