/**
 * Achievements: the plans the scripts evaluate, compiled once per configuration version, and the
 * wire shapes of an achievement.
 *
 * An achievement completes at most once per user: the script writes `c:<id>` into the user hash
 * with HSETNX, so concurrent events cannot complete it twice. Kinds:
 *   metric       the user's total of the metric reaches `metricValue`; with event-attribute
 *                filters, only matching events count (a progress field `p:<id>` in the
 *                user-metric hash). Evaluated when an event crosses the threshold.
 *   api          completed only through POST achievements/{key}/complete.
 *   achievement  completes when all `achievementIds` are completed (cascades in the same script).
 *   streak       completes when the streak reaches `streakLength` (with streaks).
 * Statuses: active (completable, shown), inactive (neither), locked (not completable, shown to
 * users who have it), archived (gone). User-attribute filters must all match the user.
 */
import { nameUuid } from './ids.js';
import { eventFilterOf, userFilterOf } from './filters.js';
import { compilePoints, type PointsDetails, type TimeTrigger } from './points.js';
import { hasWindow, metricBoards } from './leaderboards.js';
import { createHash } from 'node:crypto';
import { Packr } from 'msgpackr';
import type { Achievement, AttributeFilter, Snapshot } from '../store/config.js';
import { totalField } from './users.js';
import { completionField, progressField } from './fields.js';
import { aloneThreshold, streakAchievements, streakRule } from './streaks.js';

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
  /** What every event reads: the thresholds, the streak rule and the points triggers (recordEventPlan <hot>); '' when none. */
  hot: string;
  /** Event filters of the plan's filtered achievements, in plan order, as [key, value] pairs. */
  eventFilters: [string, string][][];
  /** An event of at least this value meets the streak rule by itself (aloneThreshold); null: never. */
  streakAlone: number | null;
  /** Whether an event of the metric may award points (then boosts and points boards concern it). */
  awardsPoints: boolean;
  /** Whether an event of the metric may extend the streak (the metric is in the rule). */
  extendsStreak: boolean;
}

/** Entries of the Lua plan (field names are short: they are decoded on every event). */
export interface LuaAchievement {
  id: string;
  /** The completion field in the user hash. */
  cf: string;
  /** metric: the threshold. */
  v?: number;
  /** User-attribute filter: flat [field, value, ...] of the user hash. */
  ua?: string[];
  /** metric with event filters: 1-based position in the request's match flags, and progress field. */
  f?: number;
  pf?: string;
  /** achievement: completion fields of the prerequisites. */
  r?: string[];
  /** backfill of an unfiltered metric achievement: the total field in the user hash. */
  tf?: string;
  /** streak: the length that completes it. */
  l?: number;
}

export { completionField, progressField };

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
} {
  const composites = compositeEntries(snapshot);
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
    if (m.length > 0 || rule !== '' || pts.hot !== '' || boards) {
      const parts: { m: LuaAchievement[]; c?: LuaAchievement[]; sa?: LuaAchievement[]; p?: PointsDetails } = { m };
      if (composites.length > 0) parts.c = composites;
      if (forStreaks.length > 0) parts.sa = forStreaks;
      if (pts.details !== null) parts.p = pts.details;
      details = JSON.stringify(parts);
      hot = m.map((e) => (e.f === undefined ? `${e.v}` : `${e.v}:${e.f}`)).join(',') + '#' + rule + '#' + pts.hot;
    }
    const full = hot === '' ? '' : `${totalField(metric.id)}\n${hot}\n${details}`;
    plans.set(metric.id, {
      arg: { id: full === '' ? '' : createHash('sha1').update(full).digest('hex').slice(0, 16), full }, hot, eventFilters, streakAlone: aloneThreshold(snapshot.streak, metric.id),
      // The rule's second character is 2 when this metric is in it (streakRule).
      awardsPoints: pts.hot !== '', extendsStreak: rule.charAt(1) === '2',
    });
  }
  return { plans, composites, points: points.common, timeTriggers: points.time };
}

/**
 * The plan of completing one achievement outside the event path (the API, a backfill): its own
 * entry and the composites. Null when the achievement cannot be completed (a filter's attribute
 * is gone).
 */
export function singlePlan(a: Achievement, snapshot: Snapshot): Buffer | null {
  const ua = userFilterOf(a.userAttributes, snapshot);
  if (ua === null) return null;
  const entry: LuaAchievement = { id: a.id, cf: completionField(a.id) };
  if (ua.length > 0) entry.ua = ua;
  if (a.trigger === 'achievement') entry.r = a.achievementIds.map(completionField);
  if (a.trigger === 'streak' && a.streakLength !== null) entry.l = a.streakLength;
  if (a.trigger === 'metric' && a.metricId !== null) {
    entry.v = a.metricValue ?? 0;
    if (a.eventAttributes.length > 0) entry.pf = progressField(a.id);
    else entry.tf = totalField(a.metricId);
  }
  const composites = snapshot.composites.filter((c) => c.id !== a.id);
  const plan: { a: LuaAchievement; c?: LuaAchievement[]; p?: PointsDetails } = { a: entry };
  if (composites.length > 0) plan.c = composites;
  if (snapshot.points !== null) plan.p = snapshot.points;
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

/** A stable completion id per tenant, user and achievement (the same on every answer). */
export function completionId(tenant: string, userId: string, achievementId: string): string {
  return nameUuid(`${tenant}\u0000${userId}\u0000${achievementId}`);
}

export interface AchievementView {
  id: string;
  key: string;
  name: string;
  trigger: string;
  description: string | null;
  badgeUrl: string | null;
  userAttributes: { key: string; value: string }[];
  metricId?: string;
  metricValue?: number;
  metricName?: string;
  eventAttributes?: { key: string; value: string }[];
  eventAttribute?: { key: string; value: string };
  streakLength?: number;
  achievementIds?: string[];
}

function filterView(filters: AttributeFilter[], snapshot: Snapshot): { key: string; value: string }[] {
  return filters.map((f) => ({ key: snapshot.attributes.get(f.attributeId)?.key ?? f.attributeId, value: f.attributeValue }));
}

/** The Application API shape of an achievement (trophy AchievementResponse, 1.21.1). */
export function achievementView(a: Achievement, snapshot: Snapshot): AchievementView {
  const view: AchievementView = {
    id: a.id,
    key: a.key,
    name: a.name,
    trigger: a.trigger,
    description: a.description,
    badgeUrl: a.badgeUrl,
    userAttributes: filterView(a.userAttributes, snapshot),
  };
  if (a.trigger === 'metric') {
    view.metricId = a.metricId ?? undefined;
    view.metricValue = a.metricValue ?? undefined;
    view.metricName = (a.metricId && snapshot.metrics.get(a.metricId)?.name) || undefined;
    const events = filterView(a.eventAttributes, snapshot);
    view.eventAttributes = events;
    if (events.length > 0) view.eventAttribute = events[0];
  } else if (a.trigger === 'streak') {
    view.streakLength = a.streakLength ?? undefined;
  } else if (a.trigger === 'achievement') {
    view.achievementIds = a.achievementIds;
  }
  return view;
}

/** The stored completion value: the ISO time it was completed. */
export function userAchievementView(a: Achievement, snapshot: Snapshot, achievedAt: string | null) {
  return { ...achievementView(a, snapshot), achievedAt };
}

/** Achievements shown to a user: active ones, and locked ones the user has. */
export function visibleTo(a: Achievement, completed: boolean): boolean {
  return a.status === 'active' || (a.status === 'locked' && completed);
}
