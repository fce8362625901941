/**
 * Streaks: the state as stored (lua/includes/streak.lua), brought up to a period, and the wire
 * shape of a streak computed from it (the rule as the script reads it: src/config/plans/streaks.ts).
 *
 * The state is brought up to date lazily: a streak whose next period passed without an extension
 * is still stored with its length until the user's next extension, and every read works out
 * whether freezes bridge the missed periods or the streak is lost.
 */
import { PAUSES_FIELD, STREAK_FIELD } from '../../model/fields.js';
import { firstDayOf, periodEnd, periodEndsAt, periodStart, type Frequency } from '../periods.js';
import type { StreakSettings } from '../../model/entities.js';
import type { StreakView } from '../../model/views.js';

export const FREQUENCY_LETTER: Record<Frequency, string> = { daily: 'd', weekly: 'w', monthly: 'm' };

/** A streak's state as of a period (stateFromHash), and whether the event extended it. */
export interface StreakState {
  length: number;
  start: number | null;
  last: number | null;
  freezes: number;
  extended: boolean;
  longest: number;
  /** Periods between `last` and now that a pause covers (neither missed nor counted). */
  paused: number;
  /**
   * The first period of the run that ends at `last` (null: none): periods extended one after the
   * other, whose lengths the history hash does not hold (lua/includes/streak.lua). Period q of the
   * run had length `length - (last - q)`.
   */
  run: number | null;
  /**
   * What the freezes of a later day are worked out from (lua/includes/streak.lua earnFreezes):
   * `frz` freezes held as of day `earn` (auto-earning counts from it; null: none). Absent: no
   * freezes configured.
   */
  freezeBase?: { frz: number; earn: number | null };
  /** The pauses of the rule's frequency, as [first period, last period], past and upcoming. */
  pauses?: [number, number][];
  /** A daily rule's days the user's clock jumped over (src/domain/clock.ts): [first, last]. */
  jumped?: readonly [number, number];
}

/** A pause as the user hash keeps it (`s:pz`): [frequency letter, first period, last period, id]. */
export type StoredPause = [string, number, number, string];

export function pausesOf(h: Record<string, string>): StoredPause[] {
  return h[PAUSES_FIELD] ? (JSON.parse(h[PAUSES_FIELD]) as StoredPause[]) : [];
}

/** The weekdays off of a rule (0 Sunday .. 6 Saturday), sorted: daily rules only. */
export function daysOffOf(rule: Pick<StreakSettings, 'frequency' | 'daysOff'> | null): number[] {
  if (rule === null || rule.frequency !== 'daily' || rule.daysOff === undefined) return [];
  return [...rule.daysOff].sort((a, b) => a - b);
}

/** Whether day index `day` (days since 1970-01-01, a Thursday) is a weekday off. */
export function isDayOff(off: readonly number[], day: number): boolean {
  return off.length > 0 && off.includes((((day + 4) % 7) + 7) % 7);
}

/** How many days from..to are days off (lua/includes/streak.lua daysOffBetween). */
export function daysOffBetween(off: readonly number[], from: number, to: number): number {
  if (to < from || off.length === 0) return 0;
  const weeks = Math.floor((to - from + 1) / 7);
  let count = weeks * off.length;
  for (let d = from + weeks * 7; d <= to; d++) if (isDayOff(off, d)) count++;
  return count;
}

/**
 * How many periods from..to rest, neither missed nor counted: covered by a pause (`pauses`: first
 * and last period, of the rule's frequency) or a day off, each period once.
 */
export function restingBetween(pauses: readonly [number, number][], off: readonly number[], from: number, to: number): number {
  if (to < from) return 0;
  let count = daysOffBetween(off, from, to);
  for (const [first, last] of pauses) {
    const a = Math.max(from, first);
    const b = Math.min(to, last);
    if (b >= a) count += b - a + 1 - daysOffBetween(off, a, b);
  }
  return Math.min(count, to - from + 1);
}

/**
 * How many periods from..to rest (restingBetween), and the days the user's clock jumped over
 * (`jumped`, a daily rule's: src/domain/clock.ts), each period once (lua/includes/streak.lua
 * restingBetween).
 */
export function restingPeriods(
  pauses: readonly [number, number][], off: readonly number[], jumped: readonly [number, number] | null | undefined, from: number, to: number,
): number {
  if (to < from) return 0;
  let count = restingBetween(pauses, off, from, to);
  if (jumped != null) {
    for (let d = Math.max(from, jumped[0]); d <= Math.min(to, jumped[1]); d++) if (restingBetween(pauses, off, d, d) === 0) count++;
  }
  return Math.min(count, to - from + 1);
}

/** How many periods from..to the pauses of this frequency cover (lua/includes/streak.lua pausedBetween). */
export function pausedBetween(pauses: StoredPause[], letter: string, from: number, to: number): number {
  if (to < from) return 0;
  let count = 0;
  for (const [f, first, last] of pauses) {
    if (f !== letter) continue;
    const a = Math.max(from, first);
    const b = Math.min(to, last);
    if (b >= a) count += b - a + 1;
  }
  return Math.min(count, to - from + 1);
}

export type { StreakView };

/**
 * When the streak of `length` (as streakView shows it now) was last extended, from the user's hash;
 * null while it is not active. 's:at' is absent while the only extension is the one of the event
 * that created the user.
 */
export function lastExtended(h: Record<string, string>, length: number): string | null {
  return length > 0 ? h['s:at'] ?? h.created ?? null : null;
}

/**
 * The streak as it stands in period `now`: alive while the periods missed since the last covered
 * one can be bridged by freezes (which it then shows as spent), lost (length 0) otherwise.
 */
export function streakView(rule: StreakSettings | null, state: StreakState | null, now: number): StreakView {
  const frequency = rule?.frequency ?? 'daily';
  const view: StreakView = { length: 0, frequency, started: null, periodStart: null, periodEnd: null, expires: null };
  let freezes = state?.freezes ?? 0;
  if (state && state.length > 0 && state.last !== null && state.start !== null) {
    const missed = Math.max(0, now - state.last - 1 - state.paused);
    if (missed <= freezes) {
      freezes -= missed;
      view.length = state.length;
      view.started = periodStart(frequency, state.start);
      view.periodStart = periodStart(frequency, now);
      view.periodEnd = periodEnd(frequency, now);
      view.expires = periodEnd(frequency, rule === null ? Math.max(now, state.last + 1) + freezes : lastAlivePeriod(rule, state, now) ?? now);
    } else {
      freezes = 0;
    }
  }
  if (rule?.freezes) {
    view.freezes = freezes;
    view.maxFreezes = rule.freezes.max;
    if (rule.freezes.autoEarnAmount > 0 && rule.freezes.autoEarnInterval > 0) {
      view.freezeAutoEarnInterval = rule.freezes.autoEarnInterval;
      view.freezeAutoEarnAmount = rule.freezes.autoEarnAmount;
    }
  }
  return view;
}

const jsonDate = (d: string | null): string => (d === null ? 'null' : `"${d}"`);

/**
 * `JSON.stringify({ ...view, extended })` written out by hand for the event response: the same
 * text (dates are `YYYY-MM-DD`, nothing to escape) for a third of the cost on the hot path.
 */
export function streakJson(view: StreakView, extended: boolean): string {
  let s = `{"length":${view.length},"frequency":"${view.frequency}","started":${jsonDate(view.started)},` +
    `"periodStart":${jsonDate(view.periodStart)},"periodEnd":${jsonDate(view.periodEnd)},"expires":${jsonDate(view.expires)}`;
  if (view.freezes !== undefined) s += `,"freezes":${view.freezes},"maxFreezes":${view.maxFreezes}`;
  if (view.freezeAutoEarnInterval !== undefined) {
    s += `,"freezeAutoEarnInterval":${view.freezeAutoEarnInterval},"freezeAutoEarnAmount":${view.freezeAutoEarnAmount}`;
  }
  return s + `,"extended":${extended}}`;
}

/** The user hash's packed streak field `s` (lua/includes/streak.lua parseStreak). */
function parseStreak(packed: string | undefined) {
  const parts = (packed ?? '').split('|');
  const num = (i: number): number | null => (parts[i] === undefined || parts[i] === '' ? null : Number(parts[i]));
  return {
    f: parts[0] ?? '', len: num(1) ?? 0, last: num(2), start: num(3), frz: num(4), earn: num(5), long: num(6) ?? 0,
    tz: parts[8] ?? '', run: num(10),
  };
}

/**
 * The last period the stored streak was extended in, when it runs at `frequency` and is under way
 * (length above 0); else null. As stateFromHash's `last` where its `length` is above 0.
 */
export function streakLast(packed: string, frequency: Frequency): number | null {
  const st = parseStreak(packed);
  return st.f === FREQUENCY_LETTER[frequency] && st.len > 0 ? st.last : null;
}

/** The zone the stored state's last period was judged in ('' is UTC). */
export function streakZone(packed: string): string {
  return parseStreak(packed).tz;
}

/**
 * The state from the user hash as of period `now` (on day `day`, with the days `jumped` the user's
 * clock jumped over since their last event: src/domain/clock.ts), as the script reads it
 * (lua/includes/streak.lua).
 */
export function stateFromHash(
  h: Record<string, string>, rule: StreakSettings, day: number, now: number, jumped: readonly [number, number] | null = null,
): StreakState {
  const st = parseStreak(h[STREAK_FIELD]);
  const letter = FREQUENCY_LETTER[rule.frequency];
  const state: StreakState = { length: 0, start: null, last: null, freezes: 0, extended: false, longest: st.long, paused: 0, run: null };
  if (st.f === letter) {
    state.length = st.len;
    state.start = st.start;
    state.last = st.last;
    state.run = st.run;
    const off = daysOffOf(rule);
    const jumps = rule.frequency === 'daily' ? jumped : null;
    if (state.last !== null && (h[PAUSES_FIELD] || off.length > 0 || jumps !== null)) {
      const pauses = pausesOf(h);
      state.pauses = pauses.filter(([f]) => f === letter).map(([, first, last]): [number, number] => [first, last]);
      if (jumps !== null) state.jumped = jumps;
      state.paused = restingPeriods(state.pauses, off, jumps, state.last + 1, now - 1);
    }
  }
  if (rule.freezes) {
    const { initial, max, autoEarnInterval, autoEarnAmount } = rule.freezes;
    let freezes = st.frz;
    let earn = st.earn;
    if (freezes === null) {
      // The initial grant, untouched yet; auto-earning counts from the streak's first day.
      freezes = initial;
      earn ??= day;
    }
    state.freezeBase = { frz: freezes, earn };
    if (autoEarnInterval > 0 && autoEarnAmount > 0 && earn !== null) {
      const k = Math.floor((day - earn) / autoEarnInterval);
      if (k > 0) freezes = Math.min(max, freezes + k * autoEarnAmount);
    }
    state.freezes = freezes;
  }
  return state;
}

/**
 * The last period, from period `now` on, in which the user can still act to keep the streak, or
 * null when it is lost in `now`. A period is lost when more periods were missed since `last` than
 * the freezes held on its first day cover: the freezes auto-earned by then count (a freeze earned
 * during a gap bridges it, as lua/includes/streak.lua earns them when the user acts), and periods
 * a pause covers, also an upcoming one, are not missed.
 */
export function lastAlivePeriod(rule: StreakSettings, state: StreakState, now: number): number | null {
  if (state.last === null || state.length === 0) return null;
  const last = state.last;
  const pauses = state.pauses ?? [];
  const fz = rule.freezes;
  const base = state.freezeBase;
  const earns = fz !== null && base !== undefined && base.earn !== null && fz.autoEarnInterval > 0 && fz.autoEarnAmount > 0;
  const freezesOn = (period: number): number => {
    if (!earns) return state.freezes;
    const k = Math.floor((firstDayOf(rule.frequency, period) - base!.earn!) / fz!.autoEarnInterval);
    return k > 0 ? Math.min(fz!.max, base!.frz + k * fz!.autoEarnAmount) : base!.frz;
  };
  const off = daysOffOf(rule);
  // Periods last + 1 .. p - 1 that rest: a pause, a day off, a day the clock jumped over.
  const paused = (p: number): number => restingPeriods(pauses, off, state.jumped, last + 1, p - 1);
  const alive = (p: number): boolean => p - last - 1 - paused(p) <= (p <= now ? state.freezes : freezesOn(p));
  let p = Math.max(now, last + 1);
  if (!alive(p)) return null;
  // Each step misses one more period; freezes top out at their maximum: the end comes within
  // that many periods, and the pauses' (bounded for safety).
  for (let n = 0; n < 10_000 && alive(p + 1); n++) p++;
  return p;
}

/** When a streak shown as `view` in period `now` is lost if nothing happens, in ms (null: no streak). */
export function expiresAt(rule: StreakSettings, state: StreakState, now: number, tz: string): number | null {
  const end = lastAlivePeriod(rule, state, now);
  return end === null ? null : periodEndsAt(rule.frequency, end, tz);
}
