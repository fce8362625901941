/**
 * The plans the scripts evaluate, compiled once per configuration version: for each metric what
 * the event script needs (lua/recordEventPlan-4.lua, lua/includes/hotPlan.lua), the composites,
 * and the plan of completing one achievement outside the event path.
 */
import { createHash } from 'node:crypto';
import { Packr } from 'msgpackr';
import { eventFilterOf, userFilterOf } from '../../domain/filters.js';
import { hasWindow, metricBoards } from '../../domain/leaderboards/runs.js';
import type { Achievement } from '../../model/entities.js';
import { completionField, progressField, totalField } from '../../model/fields.js';
import type { Snapshot } from '../../model/snapshot.js';
import { compileAnniversaries, type AnniversaryPlan } from './anniversaries.js';
import { compilePoints, type TimeTrigger } from './points.js';
import { limitArg } from '../../domain/limits.js';
import { aloneThreshold, streakAchievements, streakRule } from './streaks.js';
import type { LuaAchievement, PointsDetails } from './lua.js';

/** Plain maps and arrays, as Lua's cmsgpack reads them. */
const packr = new Packr({ useRecords: false });

/** What the event script needs for one metric. */
export interface MetricPlan {
  /**
   * The plan as recordEventPlan takes it (lua/includes/hotPlan.lua): `id` (16 hex digits of the
   * SHA-1 of `full`; '' without a plan) with every event, `full` ('<total field>\n<hot>\n<details>',
   * the details as JSON) only when the script answers that it does not hold the plan. Strings,
   * not msgpack: one Buffer argument switches ioredis to its slower buffer encoding for the whole
   * command, and the script decodes the details only when something completes.
   */
  arg: { id: string; full: string };
  /**
   * What every event reads: the thresholds, the streak rule, the points triggers and, with anniversary
   * achievements, the fewest years among them (recordEventPlan <hot>); '' when none.
   */
  hot: string;
  /** Event filters of the plan's filtered achievements, in plan order, as [key, value] pairs. */
  eventFilters: [string, string][][];
  /** An event of at least this value meets the streak rule by itself (aloneThreshold); null: never. */
  streakAlone: number | null;
  /**
   * What the event script needs of the metric's limit and its triggers' limits (src/domain/limits.ts):
   * null when none apply (the event sends nothing for them); else the metric's limit as the script
   * takes it ('' when only triggers have limits), sent after the user's clock.
   */
  limits: string | null;
  /** Whether an event of the metric may award points (then boosts and points boards concern it). */
  awardsPoints: boolean;
  /** Whether an event of the metric may extend the streak (the metric is in the rule). */
  extendsStreak: boolean;
  /**
   * The plan a user with streak preferences takes, with their rule in its place
   * (src/engine/event/streak-plans.ts): `arg` itself, or for a metric without features (`hot`
   * ''), a plan with no feature but the streak achievements, which the user's rule may complete.
   */
  userBase: { id: string; full: string };
}

/** Active composites, prerequisites first, with their Lua form. */
function compositeEntries(snapshot: Snapshot): LuaAchievement[] {
  const byId = snapshot.achievements;
  const order: Achievement[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (a: Achievement) => {
    if (state.get(a.id) !== undefined) return; // done, or a cycle the admin API refuses anyway
    state.set(a.id, 'visiting');
    for (const id of a.achievementIds) {
      const pre = byId.get(id);
      if (pre && pre.trigger === 'achievement') visit(pre);
    }
    state.set(a.id, 'done');
    order.push(a);
  };
  for (const a of byId.values()) if (a.trigger === 'achievement') visit(a);
  const entries: LuaAchievement[] = [];
  for (const a of order) {
    if (a.status !== 'active') continue;
    const ua = userFilterOf(a.userAttributes, snapshot);
    if (ua === null) continue;
    const entry: LuaAchievement = { id: a.id, cf: completionField(a.id), r: a.achievementIds.map(completionField) };
    if (ua.length > 0) entry.ua = ua;
    entries.push(entry);
  }
  return entries;
}

export function compilePlans(snapshot: Snapshot): {
  plans: Map<string, MetricPlan>; composites: LuaAchievement[]; points: PointsDetails | null; timeTriggers: TimeTrigger[];
  streakAchievements: boolean; anniversaries: AnniversaryPlan[];
} {
  const composites = compositeEntries(snapshot);
  const anniversaries = compileAnniversaries(snapshot);
  // With anniversary achievements, every event looks at the user's next anniversary: the fewest
  // years among them end every plan's hot part (and a new user's first anniversary is counted
  // with them).
  const anniversary = anniversaries.length === 0 ? '' : `#${anniversaries[0].years}`;
  const points = compilePoints(snapshot);
  const forStreaks = streakAchievements(snapshot, (a) => userFilterOf(a.userAttributes, snapshot));
  const plans = new Map<string, MetricPlan>();
  for (const metric of snapshot.metrics.values()) {
    const m: LuaAchievement[] = [];
    const eventFilters: [string, string][][] = [];
    // Event-filtered ones first, then the others by threshold: the script stops at the first
    // unfiltered threshold the total has not reached.
    const achievements = [...snapshot.achievements.values()]
      .filter((a) => a.trigger === 'metric' && a.metricId === metric.id && a.status === 'active')
      .sort((a, b) => Number(b.eventAttributes.length > 0) - Number(a.eventAttributes.length > 0) ||
        (a.metricValue ?? 0) - (b.metricValue ?? 0));
    for (const a of achievements) {
      const ua = userFilterOf(a.userAttributes, snapshot);
      const ev = eventFilterOf(a.eventAttributes, snapshot);
      if (ua === null || ev === null) continue;
      const entry: LuaAchievement = { id: a.id, cf: completionField(a.id), v: a.metricValue ?? 0 };
      if (ua.length > 0) entry.ua = ua;
      if (ev.length > 0) {
        eventFilters.push(ev);
        entry.f = eventFilters.length;
        entry.pf = progressField(a.id);
      }
      m.push(entry);
    }
    const rule = streakRule(snapshot, metric.id, forStreaks.length > 0);
    const pts = points.forMetric(metric.id, eventFilters.length);
    eventFilters.push(...pts.eventFilters);
    let details = '';
    let hot = '';
    // Run sums (repeating boards, and boards with a daily window) and breakdown groups of
    // leaderboards are the event script's work too.
    const boards = metricBoards(snapshot, metric.id).some((lb) => lb.runUnit !== null || hasWindow(lb) || lb.breakdownAttributes.length > 0);
    // A limited metric's events take the script that decides limits (lua/recordEventPlan-4.lua).
    const limit = limitArg(metric.limits);
    if (m.length > 0 || rule !== '' || pts.hot !== '' || boards || anniversary !== '' || limit !== '') {
      const parts: { m: LuaAchievement[]; c?: LuaAchievement[]; sa?: LuaAchievement[]; p?: PointsDetails } = { m };
      if (composites.length > 0) parts.c = composites;
      if (forStreaks.length > 0) parts.sa = forStreaks;
      if (pts.details !== null) parts.p = pts.details;
      details = JSON.stringify(parts);
      hot = m.map((e) => (e.f === undefined ? `${e.v}` : `${e.v}:${e.f}`)).join(',') + '#' + rule + '#' + pts.hot + anniversary;
    }
    const full = hot === '' ? '' : `${totalField(metric.id)}\n${hot}\n${details}`;
    const arg = { id: full === '' ? '' : planId(full), full };
    let userBase = arg;
    if (hot === '') {
      const parts: { m: LuaAchievement[]; c?: LuaAchievement[]; sa?: LuaAchievement[] } = { m: [] };
      if (composites.length > 0) parts.c = composites;
      if (forStreaks.length > 0) parts.sa = forStreaks;
      const bare = `${totalField(metric.id)}\n##\n${JSON.stringify(parts)}`;
      userBase = { id: planId(bare), full: bare };
    }
    plans.set(metric.id, {
      arg, hot, eventFilters, streakAlone: aloneThreshold(snapshot.streak, metric.id),
      limits: limit !== '' || pts.limited ? limit : null,
      // The rule's second character is 2 when this metric is in it (streakRule).
      awardsPoints: pts.hot !== '', extendsStreak: rule.charAt(1) === '2', userBase,
    });
  }
  return {
    plans, composites, points: points.common, timeTriggers: points.time, streakAchievements: forStreaks.length > 0, anniversaries,
  };
}

/** A plan's id: 16 hex digits of the SHA-1 of the plan in full. */
function planId(full: string): string {
  return createHash('sha1').update(full).digest('hex').slice(0, 16);
}

/**
 * The plan of completing one achievement outside the event path (the API, a backfill): its own
 * entry and the composites. Null when the achievement cannot be completed (a filter's attribute
 * is gone).
 */
export function singlePlan(
  a: Achievement, snapshot: Snapshot, composites: LuaAchievement[], points: PointsDetails | null,
): Buffer | null {
  const ua = userFilterOf(a.userAttributes, snapshot);
  if (ua === null) return null;
  const entry: LuaAchievement = { id: a.id, cf: completionField(a.id) };
  if (ua.length > 0) entry.ua = ua;
  if (a.trigger === 'achievement') entry.r = a.achievementIds.map(completionField);
  if (a.trigger === 'streak' && a.streakLength !== null) entry.l = a.streakLength;
  // The worker that backfills an anniversary decided already that it came (lua/backfillAchievement-4.lua).
  if (a.trigger === 'anniversary') entry.y = 1;
  if (a.trigger === 'metric' && a.metricId !== null) {
    entry.v = a.metricValue ?? 0;
    if (a.eventAttributes.length > 0) entry.pf = progressField(a.id);
    else entry.tf = totalField(a.metricId);
  }
  const others = composites.filter((c) => c.id !== a.id);
  const plan: { a: LuaAchievement; c?: LuaAchievement[]; p?: PointsDetails } = { a: entry };
  if (others.length > 0) plan.c = others;
  if (points !== null) plan.p = points;
  return packr.pack(plan);
}

/** '1' or '0' per filtered achievement of the plan: whether the event's attributes match. */
export function eventMatches(plan: MetricPlan, attributes: Record<string, string> | null | undefined): string {
  if (plan.eventFilters.length === 0) return '';
  let flags = '';
  for (const filter of plan.eventFilters) {
    flags += attributes != null && filter.every(([k, v]) => attributes[k] === v) ? '1' : '0';
  }
  return flags;
}
