/**
 * The points part of the scripts' plans (lua/includes/points.lua), compiled once per configuration
 * version: the triggers of each metric, the triggers that do not depend on a metric, the time
 * triggers the api accrues, and the boosts an award may take.
 */
import { dayField } from '../../model/fields.js';
import { MAX_POINTS } from '../../domain/points/rules.js';
import { eventFilterOf, userFilterOf } from '../../domain/filters.js';
import type { PointsBoost, PointsTrigger } from '../../model/entities.js';
import { DEFAULT_TENANT } from '../../redis/keys.js';
import type { LuaBoost, LuaTrigger, LuaTriggerLimits, PointsDetails } from './lua.js';
import { periodLetter } from '../../domain/limits.js';
import type { Snapshot } from '../../model/snapshot.js';

/** The triggers that count: active, of an active system, whose filters name existing attributes. */
function activeTriggers(snapshot: Snapshot): { trigger: PointsTrigger; ua: string[]; ev: [string, string][] }[] {
  const out: { trigger: PointsTrigger; ua: string[]; ev: [string, string][] }[] = [];
  for (const t of snapshot.pointsTriggers.values()) {
    if (t.status !== 'active' || snapshot.pointsSystems.get(t.systemId)?.status !== 'active') continue;
    const ua = userFilterOf(t.userAttributes, snapshot);
    const ev = eventFilterOf(t.eventAttributes, snapshot);
    if (ua === null || ev === null) continue;
    out.push({ trigger: t, ua, ev });
  }
  return out;
}

/** A trigger's limits as the event script reads them, or null without. */
function limitsOf(t: PointsTrigger): LuaTriggerLimits | null {
  if (t.cooldownSeconds == null && t.maxAwards == null) return null;
  const r: LuaTriggerLimits = {};
  if (t.cooldownSeconds != null) r.c = t.cooldownSeconds * 1000;
  if (t.maxAwards != null) {
    r.x = t.maxAwards.count;
    r.p = periodLetter(t.maxAwards.period);
  }
  return r;
}

function lua(t: PointsTrigger, ua: string[]): LuaTrigger {
  const entry: LuaTrigger = { i: t.id, s: t.systemId, p: t.points };
  if (ua.length > 0) entry.ua = ua;
  return entry;
}

/** The points part of every metric's plan, and what does not depend on the metric. */
interface CompiledPoints {
  /** Metric id -> its triggers' hot part, details and event filters (positions follow `offset`). */
  forMetric(metricId: string, offset: number): {
    hot: string; details: PointsDetails | null; eventFilters: [string, string][][];
    /** Whether a trigger the metric's events may fire has limits (the event then sends the user's clock). */
    limited: boolean;
  };
  /** The details without metric triggers: for completions outside the event path. */
  common: PointsDetails | null;
  /** The active time triggers. */
  time: TimeTrigger[];
}

/** A time trigger as the api accrues it (src/engine/points/time-awards.ts). */
export interface TimeTrigger {
  trigger: PointsTrigger;
  intervalMs: number;
  /** When the trigger was created: it pays for no time before. */
  createdMs: number;
  /** When it or its system was off, [from, to) in ms: no award falls due then. */
  off: [number, number][];
  cap: number | null;
  ua: string[];
}

export function compilePoints(snapshot: Snapshot): CompiledPoints {
  // Every system has a cap: its maxPoints, or the largest integer a JSON number carries exactly.
  const caps: Record<string, number> = {};
  for (const s of snapshot.pointsSystems.values()) caps[s.id] = s.maxPoints ?? MAX_POINTS;
  const active = activeTriggers(snapshot);
  const byAchievement: Record<string, LuaTrigger[]> = {};
  const streak: LuaTrigger[] = [];
  const creation: LuaTrigger[] = [];
  // The limits of the streak triggers (every metric's events may fire them).
  const streakLimits: Record<string, LuaTriggerLimits> = {};
  const metric = new Map<string, { trigger: PointsTrigger; ua: string[]; ev: [string, string][] }[]>();
  for (const x of active) {
    const t = x.trigger;
    if (t.type === 'achievement' && t.achievementId !== null) (byAchievement[t.achievementId] ??= []).push(lua(t, x.ua));
    else if (t.type === 'streak' && t.streakLength !== null) {
      streak.push({ ...lua(t, x.ua), l: t.streakLength });
      const r = limitsOf(t);
      if (r !== null) streakLimits[t.id] = r;
    }
    else if (t.type === 'user_creation') creation.push(lua(t, x.ua));
    else if (t.type === 'metric' && t.metricId !== null && t.metricThreshold !== null) {
      const list = metric.get(t.metricId) ?? [];
      list.push(x);
      metric.set(t.metricId, list);
    }
  }
  const time: TimeTrigger[] = [];
  for (const { trigger: t, ua } of active) {
    if (t.type !== 'time' || t.timeInterval === null) continue;
    const intervalMs = t.timeInterval * (t.timeUnit === 'hours' ? 3_600_000 : 86_400_000);
    const off = [...t.offPeriods ?? [], ...snapshot.pointsSystems.get(t.systemId)?.offPeriods ?? []]
      .map(([from, to]): [number, number] => [Date.parse(from), to === null ? Infinity : Date.parse(to)]);
    time.push({ trigger: t, intervalMs, createdMs: Date.parse(t.created), off, cap: caps[t.systemId] ?? null, ua });
  }
  const timeHot = time.map((x) => `${x.intervalMs},${x.trigger.id}`).join(';');
  const hasAchievement = Object.keys(byAchievement).length > 0;
  const flags = (creation.length > 0 ? '1' : '0') + (streak.length > 0 ? '1' : '0') + (hasAchievement ? '1' : '0') +
    (time.length > 0 ? '1' : '0');
  const base = (): PointsDetails => {
    const d: PointsDetails = { s: caps };
    if (hasAchievement) d.a = byAchievement;
    if (streak.length > 0) d.k = streak;
    if (creation.length > 0) d.c = creation;
    return d;
  };
  const common = flags === '0000' ? null : base();
  return {
    common,
    time,
    forMetric(metricId, offset) {
      const mine = metric.get(metricId) ?? [];
      if (mine.length === 0 && flags === '0000') return { hot: '', details: null, eventFilters: [], limited: false };
      const m: LuaTrigger[] = [];
      const eventFilters: [string, string][][] = [];
      const hot: string[] = [];
      const limits: Record<string, LuaTriggerLimits> = { ...streakLimits };
      for (const { trigger: t, ua, ev } of mine) {
        const r = limitsOf(t);
        if (r !== null) limits[t.id] = r;
        m.push(lua(t, ua));
        let f = '';
        if (ev.length > 0) {
          eventFilters.push(ev);
          f = String(offset + eventFilters.length);
        }
        const block = t.points < 0 && t.blockIfOutOfPoints ? '1' : '';
        const cap = caps[t.systemId] ?? '';
        // u: '1' with a user filter, '2' with limits only (either keeps the trigger off the usual plan's short path).
        const u = ua.length > 0 ? '1' : r !== null ? '2' : '';
        hot.push(`${t.metricThreshold},${f},${t.points},${block},${u},${cap},${t.id},${t.systemId}`);
      }
      const details = base();
      if (m.length > 0) details.m = m;
      const limited = Object.keys(limits).length > 0;
      if (limited) details.r = limits;
      return { hot: `${flags}|${hot.join(';')}|${timeHot}`, details, eventFilters, limited };
    },
  };
}

/**
 * The tenant (storage id) of a boost's one user; null for a boost for everyone. A boost for one
 * user stored before boosts named the tenant is the default tenant's.
 */
export function boostTenant(b: PointsBoost): string | null {
  return b.userId === null ? null : b.tenant ?? DEFAULT_TENANT;
}

/**
 * The boosts that may apply to a user's awards from `fromDate` (YYYY-MM-DD) on: the global ones, the user's own (of their tenant), and those whose user filter the script
 * checks. Ordered by creation: each multiplies, and rounds, in turn.
 */
export function boostsFor(snapshot: Snapshot, tenant: string, userId: string, fromDate: string): LuaBoost[] {
  if (snapshot.pointsBoosts.size === 0) return [];
  const out: LuaBoost[] = [];
  for (const b of snapshot.pointsBoosts.values()) {
    if (b.userId !== null && (b.userId !== userId || boostTenant(b) !== tenant)) continue;
    if (b.end !== null && b.end < fromDate) continue;
    if (snapshot.pointsSystems.get(b.systemId)?.status !== 'active') continue;
    const ua = b.userId === null ? userFilterOf(b.userAttributes, snapshot) : [];
    if (ua === null) continue;
    const entry: LuaBoost = { i: b.id, s: b.systemId, m: b.multiplier, r: b.rounding[0], a: dayField(b.start) };
    if (b.end !== null) entry.b = dayField(b.end);
    if (ua.length > 0) entry.ua = ua;
    out.push(entry);
  }
  return out;
}

/** boostsFor as a script argument: JSON, or '' when none. */
export function boostsArg(snapshot: Snapshot, tenant: string, userId: string, fromDate: string): string {
  const boosts = boostsFor(snapshot, tenant, userId, fromDate);
  return boosts.length === 0 ? '' : JSON.stringify(boosts);
}
