/**
 * Leaderboards: their status as the clock moves it, and their runs.
 *
 * Status (the spec's state table): a board is created `inactive` (invisible, nobody joins). Made
 * active, it is `scheduled` while its start date is ahead and `active` from then on; with an end
 * date it is `finished` once the last time zone has finished that day (UTC-12: 36 hours after the
 * end date began in UTC, so about 12 hours after it ended there). An admin may also finish it.
 *
 * Runs: a perpetual board has one run, keyed by its start date. A repeating board starts a new run
 * every `runInterval` days, months or years from its start (a weekly board: 7 days from a Monday);
 * each run is keyed by its first day (YYYY-MM-DD) and kept after it ends. A user's activity counts
 * in the run of the user's local date, so each run ends at local midnight for every user.
 */
import { perObject } from '../../lib/memo.js';
import { capOf } from './cap.js';
import { dateOfDay, dayIndexOf } from '../periods.js';
import type { Leaderboard, LeaderboardStatus } from '../../model/entities.js';
import { arrivalInMs } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { LeaderboardView } from '../../model/views.js';

const DAY_MS = 86_400_000;
/** From the start of the end date in UTC to when UTC-12 has finished it. */
const LAST_ZONE_MS = 36 * 3_600_000;

/** When a run that ends on `end` (YYYY-MM-DD) is final: every zone has finished its last day (ms). */
export function finalAt(end: string): number {
  return dayIndexOf(end) * DAY_MS + LAST_ZONE_MS;
}

/**
 * The last day a run may end on and be final at `nowMs` (YYYY-MM-DD): a run ending on or before it
 * is final, or about to be made so by the workers' next pass (src/engine/leaderboards/finalise.ts).
 */
export function finalThrough(nowMs: number): string {
  return dateOfDay(Math.floor((nowMs - LAST_ZONE_MS) / DAY_MS));
}

/** Whether a run was final by `final` (finalThrough of a time; '': no time, none was). */
export function finalBy(run: { end: string | null }, final: string): boolean {
  return final !== '' && run.end !== null && run.end <= final;
}

/**
 * Whether an event sent with `occurredAt` leaves `lb`'s run as it was: the run was final by
 * `final` (finalBy). An imported event (docs/api.md, "History import") fills it all the same, and
 * the run is finalised again once its import is applied (src/engine/batches/import-runs.ts),
 * but on a league's board, whose runs' moves were decided once.
 */
export function leftAsItWas(lb: { league?: unknown }, run: { end: string | null }, final: string, imported: boolean): boolean {
  return finalBy(run, final) && (!imported || Boolean(lb.league));
}

/** The UTC date of the last day asked for (every event's response asks, for its boards' status). */
let lastDay = { index: -1, date: '' };

/** The status users see at `nowMs`. */
export function leaderboardStatus(lb: Leaderboard, nowMs: number): LeaderboardStatus {
  if (lb.status === 'inactive' || lb.status === 'finished') return lb.status;
  const index = Math.floor(nowMs / DAY_MS);
  if (lastDay.index !== index) lastDay = { index, date: dateOfDay(index) };
  const today = lastDay.date;
  if (today < lb.start) return 'scheduled';
  if (lb.end !== null && nowMs >= finalAt(lb.end)) return 'finished';
  return 'active';
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** The last day a date names (YYYY-MM-DD has four digits of year); runs end there at the latest. */
const LAST_DAY = dayIndexOf('9999-12-31');
/**
 * The start of a run after 9999-12-31: sorts after every date, and its day index is the day after
 * it, so the run before it ends on 9999-12-31 (a `runInterval` as large as the admin likes).
 */
const BEYOND = '9999-12-32';

/** The first day of run `k` (0 is the first run), YYYY-MM-DD; BEYOND after 9999-12-31. */
export function runStart(lb: Leaderboard, k: number): string {
  if (lb.runUnit === null || lb.runInterval === null || k === 0) return lb.start;
  if (lb.runUnit === 'day') {
    const day = dayIndexOf(lb.start) + k * lb.runInterval;
    return day > LAST_DAY ? BEYOND : dateOfDay(day);
  }
  const y = Number(lb.start.slice(0, 4));
  const m = Number(lb.start.slice(5, 7)) - 1;
  const d = Number(lb.start.slice(8, 10));
  const months = lb.runUnit === 'month' ? k * lb.runInterval : k * lb.runInterval * 12;
  const year = y + Math.floor((m + months) / 12);
  if (year > 9999) return BEYOND;
  const month = (m + months) % 12;
  const day = Math.min(d, daysInMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The day (UTC) an admin finished the board on, or null: it ranks nothing after it, and its runs up
 * to that day's are final at once.
 */
export function finishedOn(lb: Leaderboard): string | null {
  return lb.status === 'finished' ? (lb.finishedAt ?? lb.updated).slice(0, 10) : null;
}

/** The last day the board ranks on: its end, or the day an admin finished it if earlier; null: open. */
export function lastDayOf(lb: Leaderboard): string | null {
  const finished = finishedOn(lb);
  if (finished === null) return lb.end;
  return lb.end !== null && lb.end < finished ? lb.end : finished;
}

/**
 * The run a local date belongs to: its number, first and last day; null before the start, after the
 * end, or past the calendar (BEYOND, the start of a run after 9999-12-31: there is none).
 */
export function runOf(lb: Leaderboard, date: string): { k: number; start: string; end: string | null } | null {
  if (date < lb.start || (lb.end !== null && date > lb.end) || date >= BEYOND) return null;
  if (lb.runUnit === null || lb.runInterval === null) return { k: 0, start: lb.start, end: lb.end };
  let k: number;
  if (lb.runUnit === 'day') {
    k = Math.floor((dayIndexOf(date) - dayIndexOf(lb.start)) / lb.runInterval);
  } else {
    const months = (Number(date.slice(0, 4)) - Number(lb.start.slice(0, 4))) * 12 + Number(date.slice(5, 7)) - Number(lb.start.slice(5, 7));
    k = Math.max(0, Math.floor(months / (lb.runUnit === 'month' ? lb.runInterval : lb.runInterval * 12)));
    while (k > 0 && runStart(lb, k) > date) k--;
    while (runStart(lb, k + 1) <= date) k++;
  }
  const next = runStart(lb, k + 1);
  let end = dateOfDay(dayIndexOf(next) - 1);
  if (lb.end !== null && lb.end < end) end = lb.end;
  return { k, start: runStart(lb, k), end };
}

/** Minutes of an 'HH:mm' or 'HH:mm:ss' time of day. */
function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** Whether a board has a daily ranking window (`startTime`, `endTime`). */
export function hasWindow(lb: Leaderboard): boolean {
  return lb.startTime !== null || lb.endTime !== null;
}

/**
 * Whether the user's local minute of the day falls in a board's daily window: from `startTime`
 * (default 00:00) up to, not including, `endTime` (default the day's end). A window whose end
 * comes before its start runs over midnight (22:00 to 02:00). Boards without one always match.
 */
export function inWindow(lb: Leaderboard, minute: number): boolean {
  if (!hasWindow(lb)) return true;
  const from = lb.startTime === null ? 0 : minutesOf(lb.startTime);
  const to = lb.endTime === null ? 1440 : minutesOf(lb.endTime);
  return from <= to ? minute >= from && minute < to : minute >= from || minute < to;
}

/** The next Monday on or after a date (a weekly board's default start). */
export function mondayFrom(date: string): string {
  const day = dayIndexOf(date);
  // 1970-01-01 was a Thursday: day index 4 is a Monday.
  return dateOfDay(day + ((4 - (day % 7) + 7) % 7));
}

/**
 * A ranking member's order, compared as text: larger the earlier a value was reached (the ranking
 * lists equal values by descending member). From the log entry id of the event or awards that
 * reached it, which Redis's clock gives to the microsecond (lua/includes/logAdd.lua): ties go by
 * arrival, whatever the service's clock says (it stands still under the manual clock); two
 * partitions' entries of one microsecond tie. Without one, from the service time `ms`, after every
 * id of that millisecond. 21 digits: the complement of the ms (15), then of the microsecond (6).
 */
export function orderOf(ms: number, seq = ''): string {
  const dash = seq.indexOf('-');
  if (dash < 0) return `${String(1e15 - ms).padStart(15, '0')}000000`;
  const n = Math.min(arrivalInMs(seq.slice(dash + 1)), 999_999);
  return String(1e15 - Number(seq.slice(0, dash))).padStart(15, '0') + String(999_999 - n).padStart(6, '0');
}

/**
 * The application API's leaderboard (LeaderboardResponse) with its status as users see it
 * (leaderboardStatus); given a run (the event response's board), `start` and `end` are that run's,
 * as the spec has them for a repeating board.
 */
export function boardView(lb: Leaderboard, snapshot: Snapshot, status: LeaderboardStatus, run?: { start: string; end: string | null }): LeaderboardView {
  const breakdown = lb.breakdownAttributes.map((id) => snapshot.attributes.get(id)?.key ?? id);
  const view: LeaderboardView = {
    id: lb.id, name: lb.name, key: lb.key, status, rankBy: lb.rankBy, description: lb.description,
    breakdownAttribute: breakdown[0] ?? null, breakdownAttributes: breakdown,
    start: run === undefined ? lb.start : run.start, end: run === undefined ? lb.end : run.end, startTime: lb.startTime, endTime: lb.endTime,
    maxParticipants: capOf(lb), runUnit: lb.runUnit, runInterval: lb.runInterval,
  };
  if (lb.maxParticipants === null) view.uncapped = true;
  if (lb.rankBy === 'metric') {
    const m = lb.metricId === null ? undefined : snapshot.metrics.get(lb.metricId);
    view.metricKey = m?.key ?? null;
    view.metricName = m?.name ?? null;
  } else if (lb.rankBy === 'points') {
    const p = lb.pointsSystemId === null ? undefined : snapshot.pointsSystems.get(lb.pointsSystemId);
    view.pointsSystemKey = p?.key ?? null;
    view.pointsSystemName = p?.name ?? null;
  }
  return view;
}

/** The live boards (neither inactive nor finished by an admin) by what they rank, per snapshot. */
interface LiveBoards {
  byMetric: Map<string, Leaderboard[]>;
  points: Leaderboard[];
  streak: Leaderboard[];
}

const liveBoards = perObject((snapshot: Snapshot): LiveBoards => {
  const boards: LiveBoards = { byMetric: new Map(), points: [], streak: [] };
  for (const lb of snapshot.leaderboards.values()) {
    if (lb.status === 'inactive' || lb.status === 'finished') continue;
    if (lb.rankBy === 'metric' && lb.metricId !== null) {
      const list = boards.byMetric.get(lb.metricId) ?? [];
      list.push(lb);
      boards.byMetric.set(lb.metricId, list);
    } else if (lb.rankBy === 'points' && lb.pointsSystemId !== null) {
      boards.points.push(lb);
    } else if (lb.rankBy === 'streak') {
      boards.streak.push(lb);
    }
  }
  return boards;
});

/** The live boards that rank a metric's totals. */
export function metricBoards(snapshot: Snapshot, metricId: string): Leaderboard[] {
  return liveBoards(snapshot).byMetric.get(metricId) ?? [];
}

/** The live boards that rank points. */
export function pointsBoards(snapshot: Snapshot): Leaderboard[] {
  return liveBoards(snapshot).points;
}

/** The live boards that rank streaks. */
export function streakBoards(snapshot: Snapshot): Leaderboard[] {
  return liveBoards(snapshot).streak;
}

/** The attribute keys of a board's breakdown, in its order. */
export function breakdownKeys(lb: Leaderboard, snapshot: Snapshot): string[] {
  return lb.breakdownAttributes.map((id) => snapshot.attributes.get(id)?.key ?? id);
}

/**
 * A user's breakdown group on a board: their values of the board's attributes, in its order ([]
 * for a board without breakdown), or null when one is missing. An empty value is no value: a
 * user without a value for one of a board's attributes ranks in none of its groups.
 */
export function breakdownGroup(lb: Leaderboard, snapshot: Snapshot, valueOf: (key: string) => string | null | undefined): string[] | null {
  const keys = breakdownKeys(lb, snapshot);
  const group: string[] = [];
  for (const key of keys) {
    const value = valueOf(key);
    if (value === undefined || value === null || value === '') return null;
    group.push(value);
  }
  return group;
}

/** A group's name in its keys and in a run's groups index: its values joined by U+0000, which no value holds. */
export function groupName(group: readonly string[]): string {
  return group.join('\u0000');
}

