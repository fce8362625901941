/**
 * Points systems: what the phase-1 scripts need of the triggers (lua/includes/points.lua),
 * compiled once per configuration version, and the wire shapes of points.
 *
 * Triggers (each awards `points`, negative ones consume; a total never goes below 0 nor above the
 * system's `maxPoints`, or MAX_POINTS without one):
 *   metric         every `metricThreshold` units the user's total of the metric passes (or the
 *                  sum of the events matching its event filters). A total that falls and rises
 *                  again does not pay twice: the highest total reached is remembered.
 *   achievement    when the achievement completes (an event, the API, a composite).
 *   streak         when the streak reaches `streakLength` and each multiple of it.
 *   user_creation  once, when the user is first identified.
 *   time           every `timeInterval` hours or days since the user was created (accrued lazily).
 * Only active triggers of active systems count; user-attribute filters must all match.
 */
import { quickNameUuid } from './ids.js';
import type { AttributeFilter, PointsBoost, PointsLevel, PointsSystem, PointsTrigger, Snapshot } from '../store/config.js';
import { eventFilterOf, userFilterOf } from './filters.js';

/**
 * The highest total of any points system: 2^53 - 1, the largest integer a JSON number (and the
 * scripts' arithmetic) carries exactly. A system without maxPoints is capped there; an award
 * beyond it is cut, as maxPoints cuts awards.
 */
export const MAX_POINTS = Number.MAX_SAFE_INTEGER;

/** A trigger as the scripts read it (short names: it travels with every event that needs it). */
export interface LuaTrigger {
  /** trigger id */
  i: string;
  /** system id */
  s: string;
  /** points */
  p: number;
  /** user-attribute filter: flat [field, value, ...] of the user hash */
  ua?: string[];
  /** streak: the length (and its multiples) that awards */
  l?: number;
}

/** The points part of a plan's details (recordEventPlan ARGV[5] `p`). */
export interface PointsDetails {
  /** Caps: system id -> maxPoints, or MAX_POINTS for a system without. */
  s: Record<string, number>;
  /** The metric's triggers, in the order of the plan's hot part (which carries the rest). */
  m?: LuaTrigger[];
  /** Achievement id -> its triggers. */
  a?: Record<string, LuaTrigger[]>;
  /** Streak triggers. */
  k?: LuaTrigger[];
  /** User-creation triggers. */
  c?: LuaTrigger[];
}

/** A user's total of a points system (user hash). */
export const pointsTotalField = (systemId: string): string => 'pt:' + systemId;

/** How many awards a user ever had in a system (user hash). */
export const pointsCountField = (systemId: string): string => 'pn:' + systemId;

/** The n-th award of a user in a system (the user's points hash of the system). */
export const awardField = (n: number): string => 'a:' + n;

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

function lua(t: PointsTrigger, ua: string[]): LuaTrigger {
  const entry: LuaTrigger = { i: t.id, s: t.systemId, p: t.points };
  if (ua.length > 0) entry.ua = ua;
  return entry;
}

/** The points part of every metric's plan, and what does not depend on the metric. */
interface CompiledPoints {
  /** Metric id -> its triggers' hot part, details and event filters (positions follow `offset`). */
  forMetric(metricId: string, offset: number): { hot: string; details: PointsDetails | null; eventFilters: [string, string][][] };
  /** The details without metric triggers: for completions outside the event path. */
  common: PointsDetails | null;
  /** The active time triggers. */
  time: TimeTrigger[];
}

/** A time trigger as the api accrues it (src/points-time.ts). */
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

/** Whether `ms` falls in one of the periods [from, to). */
export function isOff(off: [number, number][], ms: number): boolean {
  for (const [from, to] of off) if (ms >= from && ms < to) return true;
  return false;
}

export function compilePoints(snapshot: Snapshot): CompiledPoints {
  // Every system has a cap: its maxPoints, or the largest integer a JSON number carries exactly.
  const caps: Record<string, number> = {};
  for (const s of snapshot.pointsSystems.values()) caps[s.id] = s.maxPoints ?? MAX_POINTS;
  const active = activeTriggers(snapshot);
  const byAchievement: Record<string, LuaTrigger[]> = {};
  const streak: LuaTrigger[] = [];
  const creation: LuaTrigger[] = [];
  const metric = new Map<string, { trigger: PointsTrigger; ua: string[]; ev: [string, string][] }[]>();
  for (const x of active) {
    const t = x.trigger;
    if (t.type === 'achievement' && t.achievementId !== null) (byAchievement[t.achievementId] ??= []).push(lua(t, x.ua));
    else if (t.type === 'streak' && t.streakLength !== null) streak.push({ ...lua(t, x.ua), l: t.streakLength });
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
      if (mine.length === 0 && flags === '0000') return { hot: '', details: null, eventFilters: [] };
      const m: LuaTrigger[] = [];
      const eventFilters: [string, string][][] = [];
      const hot: string[] = [];
      for (const { trigger: t, ua, ev } of mine) {
        m.push(lua(t, ua));
        let f = '';
        if (ev.length > 0) {
          eventFilters.push(ev);
          f = String(offset + eventFilters.length);
        }
        const block = t.points < 0 && t.blockIfOutOfPoints ? '1' : '';
        const cap = caps[t.systemId] ?? '';
        hot.push(`${t.metricThreshold},${f},${t.points},${block},${ua.length > 0 ? '1' : ''},${cap},${t.id},${t.systemId}`);
      }
      const details = base();
      if (m.length > 0) details.m = m;
      return { hot: `${flags}|${hot.join(';')}|${timeHot}`, details, eventFilters };
    },
  };
}

/** The highest level whose threshold `total` reached, or null. */
export function levelOf(snapshot: Snapshot, systemId: string, total: number): PointsLevel | null {
  let reached: PointsLevel | null = null;
  for (const level of snapshot.levelsBySystem.get(systemId) ?? []) {
    if (level.points <= total) reached = level;
    else break;
  }
  return reached;
}

export function levelView(level: PointsLevel) {
  return {
    id: level.id, key: level.key, name: level.name, description: level.description, badgeUrl: level.badgeUrl,
    points: level.points,
  };
}

/** The application API's trigger shape (PointsTriggerResponse; `hour|day`, `streakLengthThreshold`). */
export function triggerView(t: PointsTrigger, snapshot: Snapshot) {
  const attr = (f: AttributeFilter) => ({ key: snapshot.attributes.get(f.attributeId)?.key ?? f.attributeId, value: f.attributeValue });
  const view: Record<string, unknown> = {
    id: t.id, type: t.type, points: t.points, status: t.status, userAttributes: t.userAttributes.map(attr),
    created: t.created, updated: t.updated,
  };
  if (t.type === 'metric') {
    view.metricId = t.metricId;
    view.metricThreshold = t.metricThreshold;
    view.metricName = (t.metricId && snapshot.metrics.get(t.metricId)?.name) || null;
    const events = t.eventAttributes.map(attr);
    view.eventAttributes = events;
    if (events.length > 0) view.eventAttribute = events[0];
  } else if (t.type === 'achievement') {
    view.achievementId = t.achievementId;
    view.achievementName = (t.achievementId && snapshot.achievements.get(t.achievementId)?.name) || null;
  } else if (t.type === 'streak') {
    view.streakLengthThreshold = t.streakLength;
  } else if (t.type === 'time') {
    view.timeUnit = t.timeUnit === 'hours' ? 'hour' : 'day';
    view.timeInterval = t.timeInterval;
  }
  return view;
}

/** The system's own fields, as every application shape of points starts. */
export function systemView(s: PointsSystem) {
  return { id: s.id, key: s.key, name: s.name, description: s.description, badgeUrl: s.badgeUrl, maxPoints: s.maxPoints };
}

/**
 * An award as a script stores it (lua/includes/points.lua: '<ms>|<awarded>|<total>|<trigger id>'
 * in field a:<n>), with its place in the user's awards of the system.
 */
export interface StoredAward {
  ms: number;
  awarded: number;
  total: number;
  triggerId: string;
  n: number;
  /** The boosts that multiplied it. */
  boostIds: string[];
}

export function parseAward(raw: string, n: number): StoredAward {
  const [ms, awarded, total, triggerId, boosts] = raw.split('|');
  return { ms: Number(ms), awarded: Number(awarded), total: Number(total), triggerId, n, boostIds: boosts ? boosts.split(',') : [] };
}

/** A stable award id: the n-th award of a user in a system. */
export function awardId(tenant: string, userId: string, systemId: string, n: number): string {
  return quickNameUuid(`${tenant}\u0000${userId}\u0000${systemId}\u0000${n}`);
}

/** The Award shape (PointsAward): the trigger as the application API shows it. */
export function awardView(a: StoredAward, id: string, snapshot: Snapshot) {
  const trigger = snapshot.pointsTriggers.get(a.triggerId);
  const date = new Date(a.ms).toISOString();
  const boosts = [];
  for (const boostId of a.boostIds) {
    const b = snapshot.pointsBoosts.get(boostId);
    if (b) boosts.push(boostView(b, date.slice(0, 10)));
  }
  return {
    id,
    awarded: a.awarded,
    date,
    total: a.total,
    trigger: trigger ? triggerView(trigger, snapshot) : { id: a.triggerId },
    boosts,
  };
}

/** An award as the event script answers and logs it: [system id, trigger id, awarded, total after, n, boost ids]. */
export type EventAward = [string, string, number, number, number, string];

/** JSON of a snapshot's systems, triggers and levels as responses show them, made once per version. */
const pieces = new WeakMap<Snapshot, { systems: Map<string, string>; triggers: Map<string, string>; levels: Map<string, string> }>();

function piecesOf(snapshot: Snapshot) {
  let p = pieces.get(snapshot);
  if (p === undefined) {
    p = { systems: new Map(), triggers: new Map(), levels: new Map() };
    pieces.set(snapshot, p);
  }
  return p;
}

function cached<T>(map: Map<string, string>, id: string, entity: T | undefined, json: (e: T) => string): string {
  let s = map.get(id);
  if (s === undefined) {
    s = entity === undefined ? JSON.stringify({ id }) : json(entity);
    map.set(id, s);
  }
  return s;
}

/**
 * The `points` of a response, as JSON, from a script's awards ([[system id, trigger id, awarded,
 * total, n, ms, day, boost ids], ...], or the event's [[system id, trigger id, awarded, total, n,
 * boost ids], ...] as parsed from its answer, in the order made), keyed by system key: each system the
 * request changed, with what it added, its total, the awards and `level` when the level changed.
 * Written out as a string (the systems', triggers' and levels' JSON made once per configuration):
 * an event that awards points pays a few hundred nanoseconds for it.
 */
export function pointsJson(snapshot: Snapshot, awards: unknown, tenant: string, userId: string, iso: string): string {
  if (!Array.isArray(awards) || awards.length === 0) return '{}';
  const p = piecesOf(snapshot);
  const bySystem = new Map<string, { added: number; total: number; awards: string[] }>();
  for (const x of awards as unknown[][]) {
    const systemId = String(x[0]);
    if (!snapshot.pointsSystems.has(systemId)) continue;
    const triggerId = String(x[1]);
    const awarded = Number(x[2]);
    const total = Number(x[3]);
    let entry = bySystem.get(systemId);
    if (entry === undefined) {
      entry = { added: 0, total, awards: [] };
      bySystem.set(systemId, entry);
    }
    entry.added += awarded;
    entry.total = total;
    const boostIds = String((x.length === 6 ? x[5] : x[7]) ?? '');
    const boosts = boostIds === '' ? '[]' : JSON.stringify(boostIds.split(',').flatMap((id) => {
      const b = snapshot.pointsBoosts.get(id);
      return b ? [boostView(b, iso.slice(0, 10))] : [];
    }));
    const trigger = cached(p.triggers, triggerId, snapshot.pointsTriggers.get(triggerId), (t) => JSON.stringify(triggerView(t, snapshot)));
    entry.awards.push(`{"id":"${awardId(tenant, userId, systemId, Number(x[4]))}","awarded":${awarded},"date":"${iso}",` +
      `"total":${total},"trigger":${trigger},"boosts":${boosts}}`);
  }
  const parts: string[] = [];
  for (const [systemId, { added, total, awards: list }] of bySystem) {
    const system = snapshot.pointsSystems.get(systemId)!;
    const head = cached(p.systems, systemId, system, (x) => JSON.stringify(systemView(x)).slice(0, -1));
    let s = `${JSON.stringify(system.key)}:${head},"total":${total},"added":${added},"awards":[${list.join(',')}]`;
    const before = levelOf(snapshot, systemId, total - added);
    const after = levelOf(snapshot, systemId, total);
    if (before !== after) s += `,"level":${after === null ? 'null' : cached(p.levels, after.id, after, (l) => JSON.stringify(levelView(l)))}`;
    parts.push(s + '}');
  }
  return `{${parts.join(',')}}`;
}

/** pointsJson, parsed: for responses built as objects (the API completion). */
export function pointsChanges(snapshot: Snapshot, awards: unknown, tenant: string, userId: string, ms: number): Record<string, unknown> {
  return JSON.parse(pointsJson(snapshot, awards, tenant, userId, new Date(ms).toISOString())) as Record<string, unknown>;
}

/** A boost's status on a date (YYYY-MM-DD): scheduled before its start, finished after its end. */
export function boostStatus(b: PointsBoost, date: string): 'active' | 'scheduled' | 'finished' {
  if (date < b.start) return 'scheduled';
  if (b.end !== null && date > b.end) return 'finished';
  return 'active';
}

/** The application API's boost (PointsBoost, 1.21.1). */
export function boostView(b: PointsBoost, date: string) {
  return { id: b.id, name: b.name, status: boostStatus(b, date), start: b.start, end: b.end, multiplier: b.multiplier, rounding: b.rounding };
}

/** A boost as the scripts read it (lua/includes/points.lua). */
export interface LuaBoost {
  i: string;
  s: string;
  m: number;
  /** rounding: d(own), u(p), n(earest) */
  r: string;
  /** first and last day field ('d:YYYY-MM-DD'; no last: open) */
  a: string;
  b?: string;
  ua?: string[];
}

/**
 * The boosts that may apply to a user's awards from `fromDate` (YYYY-MM-DD) on: the global ones, the user's own, and those whose user filter the script
 * checks. Ordered by creation: each multiplies, and rounds, in turn.
 */
export function boostsFor(snapshot: Snapshot, userId: string, fromDate: string): LuaBoost[] {
  if (snapshot.pointsBoosts.size === 0) return [];
  const out: LuaBoost[] = [];
  for (const b of snapshot.pointsBoosts.values()) {
    if (b.userId !== null && b.userId !== userId) continue;
    if (b.end !== null && b.end < fromDate) continue;
    if (snapshot.pointsSystems.get(b.systemId)?.status !== 'active') continue;
    const ua = b.userId === null ? userFilterOf(b.userAttributes, snapshot) : [];
    if (ua === null) continue;
    const entry: LuaBoost = { i: b.id, s: b.systemId, m: b.multiplier, r: b.rounding[0], a: 'd:' + b.start };
    if (b.end !== null) entry.b = 'd:' + b.end;
    if (ua.length > 0) entry.ua = ua;
    out.push(entry);
  }
  return out;
}

/** boostsFor as a script argument: JSON, or '' when none. */
export function boostsArg(snapshot: Snapshot, userId: string, fromDate: string): string {
  const boosts = boostsFor(snapshot, userId, fromDate);
  return boosts.length === 0 ? '' : JSON.stringify(boosts);
}

/** A range of the points summary (PointsRange): both ends included. */
export interface PointsRange {
  from: number;
  to: number;
  users: number;
}

/**
 * The 11 ranges of a points summary (trophy-api.md §6.4): exactly 0, then ten equal ranges from 1
 * up to the highest total rounded up to a power of 10 (at least 10): 600 gives 1-100, ..., 901-1000.
 */
function summaryRanges(highest: number): { from: number; to: number }[] {
  let top = 10;
  while (top < highest) top *= 10;
  const width = top / 10;
  const ranges = [{ from: 0, to: 0 }];
  for (let i = 0; i < 10; i++) ranges.push({ from: i * width + 1, to: (i + 1) * width });
  return ranges;
}

/** Users per range, from the totals of the users who have points above 0 and how many have none. */
export function summarise(positive: number[], zero: number): PointsRange[] {
  const highest = positive.reduce((m, x) => Math.max(m, x), 0);
  const ranges = summaryRanges(highest).map((r) => ({ ...r, users: 0 }));
  ranges[0].users = zero;
  const width = ranges[1].to;
  for (const total of positive) {
    const i = Math.min(10, Math.ceil(total / width));
    ranges[i].users++;
  }
  return ranges;
}
