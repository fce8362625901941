import { attributeField, PAUSES_FIELD, runSumField, STREAK_FIELD, totalField } from '../../model/fields.js';
import { breakdownKeys, finalThrough, hasWindow, leftAsItWas, inWindow, metricBoards, pointsBoards, runOf, streakBoards } from '../../domain/leaderboards/runs.js';
import { dayIndexOf } from '../../domain/periods.js';
import { expiresAt, stateFromHash, streakZone } from '../../domain/streaks/state.js';
import { localMinute } from '../../domain/time.js';
import type { LoggedEvent } from '../../model/log.js';
import type { Context } from '../context.js';
import { loggedStreak } from '../../domain/streaks/standing.js';
import { rankStreak } from '../streaks/rankings.js';
import { groupResolver, place, pointsPlacements, streakPlacements, type Placement } from '../leaderboards/rank-user.js';

/**
 * Phase 2 again, for an event whose api process died before it could run it: the streak rankings
 * it changed (src/engine/streaks/rankings.ts), and the user's current standing on the
 * boards the event concerns, from the user's state now (absolute values, so
 * placing them again where phase 2 did run changes nothing). `seq`, the event's log entry id,
 * orders the placement among the user's others (lua/leaderboardRank-8.lua): the state now is at
 * least as new as the event, and a placement of an earlier event that arrives later changes
 * nothing, nor one of an event from before an exclusion of the user that arrives after it. An
 * event of an excluded user (its entry's `ex`) is placed nowhere, nor an event sent with
 * `occurredAt` on a run that was final when it arrived (its entry's `ra`).
 */
export async function replayEvent(deps: Pick<Context, 'redis' | 'keys' | 'store'>, e: LoggedEvent, seq = ''): Promise<void> {
  // An excluded user's event was placed nowhere (src/engine/fairplay/exclude.ts).
  if (e.ex !== undefined) return;
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  // The streak rankings, from the event's own values (phase 1 wrote the points totals).
  const streak = loggedStreak(e, snapshot.streak);
  if (streak !== null) await rankStreak(deps, e.t, e.u, streak, e.ts, seq, e.ra !== undefined);
  const metricBoardsOfEvent = metricBoards(snapshot, e.m);
  const points = e.pa !== undefined ? pointsBoards(snapshot) : [];
  const streaks = typeof e.sx === 'string' ? streakBoards(snapshot) : [];
  if (metricBoardsOfEvent.length === 0 && points.length === 0 && streaks.length === 0) return;
  const u = keys.forUser(e.t, e.u);
  const attributeKeys = [...new Set([...metricBoardsOfEvent, ...points, ...streaks].flatMap((lb) => breakdownKeys(lb, snapshot)))];
  const h = await redis.hmget(u.user, totalField(e.m), 'tz', ...attributeKeys.map(attributeField));
  const groupOf = groupResolver(snapshot, new Map(attributeKeys.map((k, i) => [k, h[2 + i] ?? ''])));
  const placements: Placement[] = [];
  for (const lb of metricBoardsOfEvent) {
    const run = runOf(lb, e.d);
    const group = groupOf(lb);
    if (run === null || group === null) continue;
    // A daily window is judged in the user's zone as stored now (the event's, unless it moved).
    const windowed = hasWindow(lb);
    if (windowed && !inWindow(lb, localMinute(h[1] ?? '', e.ts))) continue;
    const value = lb.runUnit === null && !windowed ? h[0] : await redis.hget(keys.userMetric(u, e.m), runSumField(lb.id, run.start));
    if (value !== null) placements.push({ lb, run, group, value });
  }
  if (e.pa !== undefined) {
    const awards = e.pa.map(([system, , awarded, total, n]) => ({ system, awarded, total, n, day: e.d, ms: e.ts }));
    placements.push(...pointsPlacements(deps, awards, groupOf, h[1] ?? ''));
  }
  const rule = snapshot.streak;
  if (typeof e.sx === 'string' && rule !== null) {
    const state = stateFromHash(e.sp ? { [STREAK_FIELD]: e.sx, [PAUSES_FIELD]: e.sp } : { [STREAK_FIELD]: e.sx }, rule, dayIndexOf(e.d), 0);
    if (state.last !== null) {
      const expiry = expiresAt(rule, state, state.last, streakZone(e.sx)) ?? e.ts;
      placements.push(...streakPlacements(deps, state.length, expiry, e.d, groupOf));
    }
  }
  // An event sent with `occurredAt` left the runs final when it arrived as they were (but an
  // imported one: leftAsItWas).
  const final = e.ra === undefined ? '' : finalThrough(e.ra);
  const open = placements.filter((p) => !leftAsItWas(p.lb, p.run, final, e.im === 1));
  if (open.length > 0) await place(deps, e.t, e.u, open, e.ts, undefined, seq, e.ra !== undefined);
}
