/**
 * Streaks: the part of a metric's plan the event script evaluates (lua/includes/streak.lua), and
 * the wire shape of a streak computed from the stored state.
 *
 * The state is brought up to date lazily: a streak whose next period passed without an extension
 * is still stored with its length until the user's next extension, and every read works out
 * whether freezes bridge the missed periods or the streak is lost.
 */
import type { Achievement, Snapshot, StreakSettings } from '../store/config.js';
import type { LuaAchievement } from './achievements.js';
import { accumulatorField, completionField } from './fields.js';
import { periodEnd, periodEndsAt, periodStart, type Frequency } from './periods.js';

export const FREQUENCY_LETTER: Record<Frequency, string> = { daily: 'd', weekly: 'w', monthly: 'm' };


/** The plan's `s` part (see lua/includes/streak.lua). */
export interface LuaStreak {
  f: string;
  mode: 1 | 2;
  acc?: string;
  t?: number;
  ev?: 'all' | 'any';
  all?: (string | number)[];
  fz?: { i: number; x: number; n: number; a: number };
  sa?: LuaAchievement[];
}

export function streakPlan(snapshot: Snapshot, metricId: string, achievements: LuaAchievement[]): LuaStreak | undefined {
  const rule = snapshot.streak;
  if (rule === null || rule.metrics.length === 0) return undefined;
  const own = rule.metrics.find((m) => m.metricId === metricId);
  const s: LuaStreak = { f: FREQUENCY_LETTER[rule.frequency], mode: own ? 2 : 1 };
  if (rule.freezes) {
    s.fz = { i: rule.freezes.initial, x: rule.freezes.max, n: rule.freezes.autoEarnInterval, a: rule.freezes.autoEarnAmount };
  }
  if (own) {
    s.acc = accumulatorField(metricId);
    s.t = own.threshold;
    s.ev = rule.evaluation;
    const others = rule.metrics.filter((m) => m.metricId !== metricId);
    if (others.length > 0) s.all = others.flatMap((m) => [accumulatorField(m.metricId), m.threshold]);
    if (achievements.length > 0) s.sa = achievements;
  }
  return s;
}

/** What the event script returns of the streak: {length, start, last, freezes, extended, longest, paused}. */
export interface StreakState {
  length: number;
  start: number | null;
  last: number | null;
  freezes: number;
  extended: boolean;
  longest: number;
  /** Periods between `last` and now that a pause covers (neither missed nor counted). */
  paused: number;
}

export function streakStateOf(reply: unknown): StreakState | null {
  if (!Array.isArray(reply)) return null;
  const [length, start, last, freezes, extended, longest, paused] = reply.map(Number);
  return {
    length, start: start < 0 ? null : start, last: last < 0 ? null : last, freezes, extended: extended === 1, longest,
    paused: paused || 0,
  };
}

/** A pause as the user hash keeps it (`s:pz`): [frequency letter, first period, last period, id]. */
export type StoredPause = [string, number, number, string];

export function pausesOf(h: Record<string, string>): StoredPause[] {
  return h['s:pz'] ? (JSON.parse(h['s:pz']) as StoredPause[]) : [];
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

export interface StreakView {
  length: number;
  frequency: Frequency;
  started: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  expires: string | null;
  freezes?: number;
  maxFreezes?: number;
  freezeAutoEarnInterval?: number;
  freezeAutoEarnAmount?: number;
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
      view.expires = periodEnd(frequency, Math.max(now, state.last + 1) + freezes);
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

/** Active streak achievements, shortest first, with their user filters (`filterOf` null: unusable). */
export function streakAchievements(snapshot: Snapshot, filterOf: (a: Achievement) => string[] | null): LuaAchievement[] {
  const out: LuaAchievement[] = [];
  for (const a of snapshot.achievements.values()) {
    if (a.trigger !== 'streak' || a.status !== 'active' || a.streakLength === null) continue;
    const ua = filterOf(a);
    if (ua === null) continue;
    const entry: LuaAchievement = { id: a.id, cf: completionField(a.id), l: a.streakLength };
    if (ua.length > 0) entry.ua = ua;
    out.push(entry);
  }
  return out.sort((x, y) => (x.l ?? 0) - (y.l ?? 0));
}

/** The state from the user hash as of period `now`, as the script reads it (lua/includes/streak.lua streakState). */
export function stateFromHash(h: Record<string, string>, rule: StreakSettings, day: number, now: number): StreakState {
  const num = (field: string): number | null => (h[field] === undefined ? null : Number(h[field]));
  const state: StreakState = {
    length: 0, start: null, last: null, freezes: 0, extended: false, longest: num('s:long') ?? 0, paused: 0,
  };
  if (h['s:f'] === FREQUENCY_LETTER[rule.frequency]) {
    state.length = num('s:len') ?? 0;
    state.start = num('s:start');
    state.last = num('s:last');
    if (state.last !== null) state.paused = pausedBetween(pausesOf(h), FREQUENCY_LETTER[rule.frequency], state.last + 1, now - 1);
  }
  if (rule.freezes) {
    const { initial, max, autoEarnInterval, autoEarnAmount } = rule.freezes;
    let freezes = num('s:frz');
    let earn = num('s:earn');
    if (freezes === null) {
      freezes = initial;
      earn = day;
    }
    if (autoEarnInterval > 0 && autoEarnAmount > 0 && earn !== null) {
      const k = Math.floor((day - earn) / autoEarnInterval);
      if (k > 0) freezes = Math.min(max, freezes + k * autoEarnAmount);
    }
    state.freezes = freezes;
  }
  return state;
}

/** When a streak shown as `view` in period `now` is lost if nothing happens, in ms (null: no streak). */
export function expiresAt(rule: StreakSettings, state: StreakState, now: number, tz: string): number | null {
  if (state.last === null || state.length === 0) return null;
  const missed = Math.max(0, now - state.last - 1 - state.paused);
  if (missed > state.freezes) return null;
  return periodEndsAt(rule.frequency, Math.max(now, state.last + 1) + state.freezes - missed, tz);
}
