/**
 * A streak's history as the API shows it: the last periods, oldest first, ending with the current one.
 */
import { periodEnd, periodStart } from '../periods.js';
import { daysOffOf, FREQUENCY_LETTER, isDayOff, pausedBetween, type StoredPause, type StreakState } from './state.js';
import type { StreakSettings } from '../../model/entities.js';
import type { StreakPeriodView } from '../../model/views.js';


/** Period p's length as the run says it (undefined: p is not in the run). */
function runEntry(state: StreakState, p: number): string | undefined {
  const { run, last, length } = state;
  if (run === null || last === null || p < run || p > last) return undefined;
  return String(length - (last - p));
}

/** The most periods of history a read shows (`historyPeriods`; a user's export shows this many). */
export const MAX_HISTORY = 365;

/**
 * The last `count` periods, oldest first, ending with the current one. Stored entries say what
 * happened, then the streak's run (the periods extended one after the other up to `last`, which
 * the hash does not hold: lua/includes/streak.lua); periods since the last covered one are
 * projected as the streak stands now (bridged by freezes while it is alive; the current period
 * carries the live length).
 */
export function streakHistory(
  rule: StreakSettings, state: StreakState, history: Record<string, string>, now: number, count: number, pauses: StoredPause[],
): StreakPeriodView[] {
  const items: StreakPeriodView[] = [];
  const letter = FREQUENCY_LETTER[rule.frequency];
  // Days off show as paused days: neither missed nor counted.
  const off = daysOffOf(rule);
  const alive = state.last !== null && state.length > 0 && Math.max(0, now - state.last - 1 - state.paused) <= state.freezes;
  for (let p = now - count + 1; p <= now; p++) {
    const item: StreakPeriodView = { periodStart: periodStart(rule.frequency, p), periodEnd: periodEnd(rule.frequency, p), length: 0, usedPause: false };
    const entry = history[String(p)] ?? runEntry(state, p);
    if (entry !== undefined) {
      const mark = entry[0];
      item.length = Number(mark === 'f' || mark === 'p' ? entry.slice(1) : entry);
      if (mark === 'f') item.usedFreeze = true;
      if (mark === 'p') item.usedPause = true;
    } else if (alive && state.last !== null && p > state.last) {
      item.length = state.length;
      if (p < now && (pausedBetween(pauses, letter, p, p) > 0 || isDayOff(off, p))) item.usedPause = true;
      else if (p < now) item.usedFreeze = true;
    }
    if (rule.freezes && item.usedFreeze === undefined) item.usedFreeze = false;
    items.push(item);
  }
  return items;
}
