/**
 * Points systems: their rules and wire shapes (what the scripts read of the triggers, compiled
 * once per configuration version: src/config/plans/points.ts).
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
import { perObject } from '../../lib/memo.js';
import { quickNameUuid } from '../ids.js';
import type { AttributeFilter, PointsBoost, PointsLevel, PointsSystem, PointsTrigger } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { PointsAwardView, PointsBoostView, PointsLevelView, PointsRange, PointsSystemView, PointsTriggerView } from '../../model/views.js';

/**
 * The highest total of any points system: 2^53 - 1, the largest integer a JSON number (and the
 * scripts' arithmetic) carries exactly. A system without maxPoints is capped there; an award
 * beyond it is cut, as maxPoints cuts awards.
 */
export const MAX_POINTS = Number.MAX_SAFE_INTEGER;

/** Whether `ms` falls in one of the periods [from, to). */
export function isOff(off: [number, number][], ms: number): boolean {
  for (const [from, to] of off) if (ms >= from && ms < to) return true;
  return false;
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

/** The application API's level (PointsLevel: `description` a string, '' when none was given). */
export function levelView(level: PointsLevel): PointsLevelView {
  return {
    id: level.id, key: level.key, name: level.name, description: level.description ?? '', badgeUrl: level.badgeUrl,
    points: level.points,
  };
}

/** The application API's trigger shape (PointsTriggerResponse; `hour|day`, `streakLengthThreshold`). */
export function triggerView(t: PointsTrigger, snapshot: Snapshot): PointsTriggerView {
  const attr = (f: AttributeFilter) => ({ key: snapshot.attributes.get(f.attributeId)?.key ?? f.attributeId, value: f.attributeValue });
  const view: PointsTriggerView = {
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
export function systemView(s: PointsSystem): PointsSystemView {
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

/** The trigger id and type of the awards that take back a voided event's points (lua/voidEvent-4.lua). */
export const VOID_TRIGGER = 'void';
const VOID_TRIGGER_VIEW = { id: VOID_TRIGGER, type: VOID_TRIGGER } as const;

/** A stable award id: the n-th award of a user in a system. */
export function awardId(tenant: string, userId: string, systemId: string, n: number): string {
  return quickNameUuid(`${tenant}\u0000${userId}\u0000${systemId}\u0000${n}`);
}

/** The Award shape (PointsAward): the trigger as the application API shows it. */
export function awardView(a: StoredAward, id: string, snapshot: Snapshot): PointsAwardView {
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
    trigger: trigger ? triggerView(trigger, snapshot) : a.triggerId === VOID_TRIGGER ? VOID_TRIGGER_VIEW : { id: a.triggerId },
    boosts,
  };
}

/** JSON of a snapshot's systems, triggers and levels as responses show them, made once per version. */
const piecesOf = perObject((_: Snapshot) => ({ systems: new Map<string, string>(), triggers: new Map<string, string>(), levels: new Map<string, string>() }));

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
    const trigger = triggerId === VOID_TRIGGER ? JSON.stringify(VOID_TRIGGER_VIEW)
      : cached(p.triggers, triggerId, snapshot.pointsTriggers.get(triggerId), (t) => JSON.stringify(triggerView(t, snapshot)));
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
export function boostView(b: PointsBoost, date: string): PointsBoostView {
  return { id: b.id, name: b.name, status: boostStatus(b, date), start: b.start, end: b.end, multiplier: b.multiplier, rounding: b.rounding };
}

/** A range of the points summary (PointsRange): both ends included. */
export type { PointsRange };

/**
 * The 11 ranges of a points summary (Trophy's points summary; docs/api.md, "Points"): exactly 0, then ten equal ranges from 1
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
