/**
 * Voiding logged events (docs/api.md, "Fair play: voiding an event and revoking an achievement").
 * `POST /admin/v1/events/void` finds each event by its id (src/engine/fairplay/find-event.ts), then
 * one script on the user's partition (lua/voidEvent-4.lua) takes back what it counted and the
 * points it awarded and appends a `voided` entry to the log, which the webhooks and live updates
 * read (`event.voided`) and a restore replays (src/engine/durability/restore.ts, with the entry's
 * own values: no lookup). Points taken back move the tenant's points totals version before the
 * answer, which the filtered points summaries' cache checks (src/engine/points/totals-version.ts).
 * Then the boards move: the user is placed again on each board run the event counted in that is
 * not finalised, ordered by the `voided` entry's id, unless the user is excluded from the rankings
 * (src/engine/fairplay/exclude.ts); a finalised run keeps its ranking and winners.
 *
 * The runs are the event's: its local day and, for a board's daily window, its minute in the zone
 * the event was counted in (the entry's `z`; the user's zone now for an entry of an earlier
 * version, which did not name it), whatever zone the user has moved to since. On a board with
 * breakdown attributes the run is moved in the group that holds the user there now (heldGroups):
 * the group of the event's attributes, or the one the user moved to since and was placed in with
 * their run sum, which holds the event's value as well; never a group the user left, even one
 * left while the void runs (heldGroups).
 */
import { runSumField, totalField } from '../../model/fields.js';
import type { VoidedView } from '../../model/views.js';
import { operationEntry, type EventAward, type LogBody } from '../../model/log.js';
import type { Issue } from '../../model/views.js';
import { breakdownKeys, hasWindow, inWindow, metricBoards, runOf } from '../../domain/leaderboards/runs.js';
import { localMinute } from '../../domain/time.js';
import { CLOCK_FIELD, parseClock, userTime, zoneHour } from '../../domain/clock.js';
import { limitPeriodOf } from '../../domain/limits.js';
import type { Leaderboard, PointsTrigger } from '../../model/entities.js';
import { isFinalised } from '../../redis/board-state.js';
import * as voidEvent from '../../redis/scripts/voidEvent.js';
import type { Context } from '../context.js';
import { place, pointsPlacements, type Placement } from '../leaderboards/rank-user.js';
import { userShard } from '../../redis/board-shards.js';
import { EVENT_ID, findEvents } from './find-event.js';
import { isExcluded } from './exclude.js';
import { pointsTotalsMoved } from '../points/totals-version.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings' | 'postgres'>;

/** One item of `POST /admin/v1/events/void`. */
export interface VoidItem {
  eventId: string;
  reason: string;
  /** The event's user, when the caller knows it: the lookup reads that user's partition only. */
  userId?: string;
}

/** What a void takes back: the event as its entry (or a `voided` entry) tells it. */
export interface VoidTarget {
  tenant: string;
  userId: string;
  eventId: string;
  metricId: string;
  /** The part of the event's value that counted. */
  counted: number;
  /** The event's local day, and its time (ms). */
  day: string;
  ts: number;
  /** The user's zone the event was counted in; null when its entry does not say (an earlier version's). */
  zone: string | null;
  /** The hour of the user's clock the event counted in, when the clock held the user there (its entry's `h`). */
  heldHour?: number;
  /**
   * The period of the metric's limit whose sum the value leaves ('<letter><index>', '' none): a
   * `voided` entry's own (a restore repeats it); undefined: the event's, by the metric's limit now.
   */
  limitPeriod?: string;
  /** Points to take back, by system id. */
  takeBack: Map<string, number>;
  reason: string;
}

/** A void made: its log entry, the metric's total after and the awards of the opposite sign. */
export interface VoidDone {
  entryId: string;
  total: number;
  awards: EventAward[];
}

/** The points awards gave, by system, but for those whose trigger `kept` names. */
export function awardedBySystem(awards: readonly EventAward[] | undefined, kept: (trigger: string) => boolean = () => false): Map<string, number> {
  const by = new Map<string, number>();
  for (const [system, trigger, awarded] of awards ?? []) if (!kept(trigger)) by.set(system, (by.get(system) ?? 0) + Number(awarded));
  return by;
}

/**
 * What an `event` entry says to take back: the points its awards gave, but for a user_creation
 * trigger's (they paid for the user, whom the void leaves, not for the event).
 */
export function targetOfEvent(body: LogBody, reason: string, triggers: ReadonlyMap<string, PointsTrigger>): VoidTarget {
  const paidForUser = (trigger: string) => triggers.get(trigger)?.type === 'user_creation';
  return {
    tenant: body.t ?? '', userId: body.u ?? '', eventId: body.e ?? '', metricId: body.m ?? '', counted: Number(body.lc ?? body.v ?? 0),
    day: body.d ?? '', ts: body.ts ?? 0, zone: body.z ?? null, heldHour: body.h, takeBack: awardedBySystem(body.pa, paidForUser), reason,
  };
}

/** What a `voided` entry took back (a restore makes it again): its awards were of the opposite sign. */
export function targetOfVoided(body: LogBody): VoidTarget {
  const takeBack = new Map([...awardedBySystem(body.pa)].map(([s, n]) => [s, -n]));
  return {
    tenant: body.t ?? '', userId: body.u ?? '', eventId: body.e ?? '', metricId: body.m ?? '', counted: Number(body.v ?? 0),
    day: body.d ?? '', ts: body.at ?? 0, zone: body.z ?? null, limitPeriod: body.lp ?? '', takeBack, reason: body.why ?? '',
  };
}

/** The metric's boards the event's value counted in: their run (null: none on its day) and whether it is final. */
async function boardsOf(deps: Deps, t: VoidTarget, tz: string): Promise<{ lb: Leaderboard; run: { start: string; end: string | null } }[]> {
  const out: { lb: Leaderboard; run: { start: string; end: string | null } }[] = [];
  for (const lb of metricBoards(deps.store.current, t.metricId)) {
    const run = runOf(lb, t.day);
    if (run === null) continue;
    if (hasWindow(lb) && !inWindow(lb, localMinute(tz, t.ts))) continue;
    if (await isFinalised(deps.redis, deps.keys.leaderboardIndex(t.tenant, lb.id).state, run.start)) continue;
    out.push({ lb, run });
  }
  return out;
}

/**
 * The placements of `placed` on boards with breakdown attributes made in the groups of their run
 * that hold the user now (each run's groups as its index lists them: src/engine/leaderboards/
 * rank-user.ts), one placement per such group; a run where no group holds the user is left as it
 * is. Placements on boards without breakdown stay as they are. The read and the placement are two
 * steps, on other slots than the user's: an attribute change may move the user out of the group
 * between them. So a group's placement moves a member only (`membersOnly`): its script
 * (lua/leaderboardRank-8.lua) places nobody the ranking no longer holds, and a departure after it
 * takes the user off, so the user ends out of a group they left in either order.
 */
export async function heldGroups(deps: Deps, tenant: string, userId: string, placed: Placement[]): Promise<Placement[]> {
  const snapshot = deps.store.current;
  const out = await Promise.all(placed.map(async (p): Promise<Placement[]> => {
    if (breakdownKeys(p.lb, snapshot).length === 0) return [p];
    const names = await deps.redis.smembers(deps.keys.leaderboardIndex(tenant, p.lb.id).groups(p.run.start));
    const holds = await Promise.all(names.map((name) => deps.redis.hexists(userShard(deps.keys, tenant, p.lb, p.run.start, name, userId).members, userId)));
    return names.filter((_, i) => holds[i] === 1).map((name) => ({ ...p, group: name.split('\u0000'), membersOnly: true }));
  }));
  return out.flat();
}

/**
 * Takes back what one event counted and awarded, and moves the boards. 'voided': it was voided
 * already; 'unknown_user': the user is gone. Neither changes anything.
 */
export async function applyVoid(deps: Deps, t: VoidTarget): Promise<VoidDone | 'voided' | 'unknown_user'> {
  const { redis, keys, clock } = deps;
  const u = keys.forUser(t.tenant, t.userId);
  const h = await redis.hmget(u.user, 'tz', CLOCK_FIELD);
  const tz = h[0] ?? '';
  // The event's zone: its window's minute and its awards' runs (today's bucket is the user's now).
  const zone = t.zone ?? tz;
  const boards = await boardsOf(deps, t, zone);
  const runs = boards.filter(({ lb }) => lb.runUnit !== null || hasWindow(lb)).map(({ lb, run }) => runSumField(lb.id, run.start));
  const now = clock.now();
  const userMetric = keys.userMetric(u, t.metricId);
  const fields: Record<string, unknown> = { e: t.eventId, m: t.metricId, v: t.counted, d: t.day, at: t.ts, why: t.reason };
  if (t.zone !== null) fields.z = t.zone;
  const limitPeriod = t.limitPeriod ?? limitPeriodOf(deps.store.current.metrics.get(t.metricId)?.limits, t.heldHour ?? zoneHour(zone, t.ts));
  if (limitPeriod !== '') fields.lp = limitPeriod;
  const done = await voidEvent.run(redis, { user: u.user, userMetric, points: u.points, log: u.log }, {
    eventId: t.eventId, totalField: totalField(t.metricId), value: -t.counted, dayField: `d:${t.day}`, runs, now,
    today: `d:${userTime(tz, parseClock(h[1]), now).date}`, takeBack: t.takeBack, entry: operationEntry(t.tenant, t.userId, now, fields), limitPeriod,
  });
  if (typeof done === 'string') return done;
  const awards = done.awards === '' ? [] : JSON.parse(done.awards) as EventAward[];
  // The points taken back, in the summaries every api process caches, before the answer.
  if (awards.length > 0) await pointsTotalsMoved(deps, t.tenant);
  // An excluded user is on no board (src/engine/fairplay/exclude.ts): read after the script, so an
  // exclusion made before it is seen, and one made after it orders these placements before its
  // departure.
  if (await isExcluded(deps, t.tenant, t.userId)) return { entryId: done.entryId, total: Number(done.total), awards };
  const sums = runs.length === 0 ? [] : await redis.hmget(userMetric, ...runs);
  const wanted: Placement[] = [];
  for (const { lb, run } of boards) {
    const summed = lb.runUnit !== null || hasWindow(lb);
    const value = summed ? sums[runs.indexOf(runSumField(lb.id, run.start))] : done.total;
    if (value !== null) wanted.push({ lb, run, group: [], value });
  }
  // The awards of the opposite sign count in the runs of the event's day, as the event's did.
  const placed = pointsPlacements(deps, awards.map(([system, , awarded, total, n]) => ({ system, awarded, total, n, day: t.day, ms: t.ts })), () => [], zone);
  for (const p of placed) {
    if (!await isFinalised(redis, keys.leaderboardIndex(t.tenant, p.lb.id).state, p.run.start)) wanted.push(p);
  }
  const placements = await heldGroups(deps, t.tenant, t.userId, wanted);
  if (placements.length > 0) await place(deps, t.tenant, t.userId, placements, now, undefined, done.entryId);
  return { entryId: done.entryId, total: Number(done.total), awards };
}

/** `POST /admin/v1/events/void`: each item voided, or an issue of its own. */
export async function voidEvents(deps: Deps, tenant: string, items: VoidItem[]): Promise<{ voided: VoidedView[]; issues: Issue[] }> {
  const snapshot = deps.store.current;
  const voided: VoidedView[] = [];
  const issues: Issue[] = [];
  const wanted = new Map<string, string | undefined>();
  for (const item of items) if (EVENT_ID.test(item.eventId)) wanted.set(item.eventId, item.userId);
  const found = await findEvents(deps, tenant, wanted);
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const issue = (severity: Issue['severity'], message: string) => issues.push({ index, id: item.eventId, severity, message });
    const entry = found.get(item.eventId);
    if (entry === undefined) {
      issue('error', `Event "${item.eventId}" not found`);
      continue;
    }
    const t = targetOfEvent(entry.body, item.reason, snapshot.pointsTriggers);
    const metric = snapshot.metrics.get(t.metricId);
    if (metric === undefined) {
      issue('error', `The metric of event "${item.eventId}" no longer exists`);
      continue;
    }
    const done = seen.has(item.eventId) ? 'voided' : await applyVoid(deps, t);
    seen.add(item.eventId);
    if (done === 'voided') issue('warning', `Event "${item.eventId}" was voided already`);
    else if (done === 'unknown_user') issue('error', `The user of event "${item.eventId}" no longer exists`);
    else {
      const points: Record<string, number> = {};
      for (const [system, , awarded] of done.awards) {
        const key = snapshot.pointsSystems.get(system)?.key ?? system;
        points[key] = (points[key] ?? 0) + awarded;
      }
      voided.push({ eventId: item.eventId, userId: t.userId, metric: metric.key, date: t.day, value: t.counted, total: done.total, points });
    }
  }
  return { voided, issues };
}
