/**
 * The triggers of a points system as the Admin API takes, stores and shows them (trophy-admin
 * 1.21.1 AdminPointsTrigger): each type has its own fields, which the other types refuse. What
 * each type awards: src/domain/points/rules.ts.
 */
import { checkFilters } from '../filters.js';
import { FILTERS, int, type BuildContext } from './systems.js';
import { idOf, unknownReference } from '../references.js';
import { offPeriodsAfter, type AttributeFilter, type MaxAwards, type PointsTrigger, type PointsTriggerType } from '../../model/entities.js';
import { COOLDOWN_SCHEMA, MAX_AWARDS_SCHEMA } from '../limits.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { PointsTriggerAdminView } from '../../model/views.js';

const TRIGGER_TYPES: PointsTriggerType[] = ['metric', 'achievement', 'streak', 'time', 'user_creation'];

const triggerFields = {
  points: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  status: { enum: ['active', 'inactive'] },
  userAttributes: FILTERS,
  metricId: { type: 'string' },
  metricKey: { type: 'string' },
  metricThreshold: int(1),
  eventAttributes: FILTERS,
  achievementId: { type: 'string' },
  streakLength: int(1),
  timeUnit: { enum: ['hours', 'days'] },
  // At most 10^8 (274,000 years in days): the span in ms, added to a time, stays an exact integer
  // that JavaScript writes in digits (10^21 ms and more come out as 1e+21, which the accrual script
  // cannot read).
  timeInterval: { type: 'integer', minimum: 1, maximum: 100_000_000 },
  blockIfOutOfPoints: { type: 'boolean' },
  cooldownSeconds: COOLDOWN_SCHEMA,
  maxAwards: MAX_AWARDS_SCHEMA,
};

export const triggerSchemas = {
  create: { type: 'object', required: ['type', 'points'], properties: { type: { enum: TRIGGER_TYPES }, ...triggerFields } },
  update: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, type: { enum: TRIGGER_TYPES }, ...triggerFields } },
};

export interface TriggerInput {
  type: PointsTriggerType;
  points: number;
  status?: 'active' | 'inactive';
  userAttributes?: AttributeFilter[] | null;
  metricId?: string;
  /** laurel's convenience: the metric by key instead of id. */
  metricKey?: string;
  metricThreshold?: number;
  eventAttributes?: AttributeFilter[] | null;
  achievementId?: string;
  streakLength?: number;
  timeUnit?: 'hours' | 'days';
  timeInterval?: number;
  blockIfOutOfPoints?: boolean;
  cooldownSeconds?: number | null;
  maxAwards?: MaxAwards | null;
}

export type TriggerChanges = Partial<TriggerInput> & { id: string };

export function pointsTriggerAdminView(t: PointsTrigger): PointsTriggerAdminView {
  const view: PointsTriggerAdminView = {
    id: t.id, type: t.type, points: t.points, status: t.status, userAttributes: t.userAttributes, blockIfOutOfPoints: t.blockIfOutOfPoints,
  };
  switch (t.type) {
    case 'metric':
      Object.assign(view, { metricId: t.metricId, metricThreshold: t.metricThreshold, eventAttributes: t.eventAttributes });
      break;
    case 'achievement':
      view.achievementId = t.achievementId;
      break;
    case 'streak':
      view.streakLength = t.streakLength;
      break;
    case 'time':
      Object.assign(view, { timeUnit: t.timeUnit, timeInterval: t.timeInterval });
      break;
    case 'user_creation':
      break;
  }
  // blockIfOutOfPoints last, as answered before; the limits after it, only when set.
  const { blockIfOutOfPoints, ...rest } = view;
  const out: PointsTriggerAdminView = { ...rest, blockIfOutOfPoints };
  if (t.cooldownSeconds != null) out.cooldownSeconds = t.cooldownSeconds;
  if (t.maxAwards != null) out.maxAwards = { count: t.maxAwards.count, period: t.maxAwards.period };
  return out;
}

/** Which trigger type each type-specific field belongs to. */
const FIELD_OWNER: [keyof PointsTrigger, PointsTriggerType][] = [
  ['metricId', 'metric'], ['metricThreshold', 'metric'], ['achievementId', 'achievement'],
  ['streakLength', 'streak'], ['timeUnit', 'time'], ['timeInterval', 'time'],
];

/** The checks the schemas cannot make; a message, or null when the trigger is sound. */
function checkTrigger(t: PointsTrigger, snapshot: Snapshot): string | null {
  if (t.points === 0) return 'points must not be 0';
  switch (t.type) {
    case 'metric':
      if (t.metricId === null) return 'metricId is required for a metric trigger';
      if (!snapshot.metrics.has(t.metricId)) return unknownReference('metricId', 'a metric', t.metricId);
      if (t.metricThreshold === null) return 'metricThreshold is required for a metric trigger';
      break;
    case 'achievement':
      if (t.achievementId === null) return 'achievementId is required for an achievement trigger';
      if (!snapshot.achievements.has(t.achievementId)) return unknownReference('achievementId', 'an achievement', t.achievementId);
      break;
    case 'streak':
      if (t.streakLength === null) return 'streakLength is required for a streak trigger';
      break;
    case 'time':
      if (t.timeUnit === null) return 'timeUnit is required for a time trigger';
      if (t.timeInterval === null) return 'timeInterval is required for a time trigger';
      break;
    case 'user_creation':
      break;
  }
  for (const [field, owner] of FIELD_OWNER) {
    if (t[field] !== null && t.type !== owner) return `${field} applies to ${owner} triggers only`;
  }
  if (t.type !== 'metric' && t.eventAttributes.length > 0) return 'eventAttributes apply to metric triggers only';
  // Decided where the awards are made (src/domain/limits.ts): the event's script for metric and
  // streak triggers, the accrual for time triggers (maxAwards only: their interval spaces their
  // awards already). An achievement trigger pays once per completion and a user_creation trigger
  // once per user: neither has anything to limit.
  if (t.cooldownSeconds != null && t.type !== 'metric' && t.type !== 'streak') return 'cooldownSeconds applies to metric and streak triggers only';
  if (t.maxAwards != null && t.type !== 'metric' && t.type !== 'streak' && t.type !== 'time') return 'maxAwards applies to metric, streak and time triggers only';
  return checkFilters(t.userAttributes, 'user', 'userAttributes', snapshot)
    ?? checkFilters(t.eventAttributes, 'event', 'eventAttributes', snapshot);
}

export function buildTrigger(item: TriggerInput, { id, now, snapshot, parentId }: BuildContext): PointsTrigger | string {
  const metric = idOf(item.metricId, item.metricKey, snapshot.metricsByKey, 'metricKey', 'a metric');
  if (typeof metric === 'string') return metric;
  const t: PointsTrigger = {
    id, systemId: parentId, type: item.type, points: item.points, status: item.status ?? 'inactive',
    userAttributes: item.userAttributes ?? [],
    metricId: metric.id ?? null, metricThreshold: item.metricThreshold ?? null, eventAttributes: item.eventAttributes ?? [],
    achievementId: item.achievementId ?? null, streakLength: item.streakLength ?? null,
    timeUnit: item.timeUnit ?? null, timeInterval: item.timeInterval ?? null,
    blockIfOutOfPoints: item.blockIfOutOfPoints ?? false,
    created: now, updated: now,
  };
  if (item.cooldownSeconds != null) t.cooldownSeconds = item.cooldownSeconds;
  if (item.maxAwards != null) t.maxAwards = { count: item.maxAwards.count, period: item.maxAwards.period };
  if (t.status === 'inactive') t.offPeriods = [[now, null]];
  return checkTrigger(t, snapshot) ?? t;
}

/**
 * A trigger's type changes only while it is inactive (1.21.1 admin spec); the old type's fields go,
 * and the new type's required fields must come with the change.
 */
export function applyTrigger(
  current: PointsTrigger, c: TriggerChanges, { now, snapshot }: { now: string; snapshot: Snapshot },
): PointsTrigger | string {
  let t = current;
  if (c.type !== undefined && c.type !== t.type) {
    if (t.status !== 'inactive') return `type can change only while the trigger is inactive (it is ${t.status})`;
    t = {
      ...t, type: c.type, metricId: null, metricThreshold: null, eventAttributes: [], achievementId: null,
      streakLength: null, timeUnit: null, timeInterval: null,
      // As its new type it has been off since it was made (a time trigger pays from its activation).
      offPeriods: [[t.created, null]],
    };
  }
  const metric = idOf(c.metricId, c.metricKey, snapshot.metricsByKey, 'metricKey', 'a metric');
  if (typeof metric === 'string') return metric;
  const next: PointsTrigger = {
    ...t,
    points: c.points ?? t.points,
    status: c.status ?? t.status,
    userAttributes: c.userAttributes === undefined ? t.userAttributes : c.userAttributes ?? [],
    metricId: metric.id ?? t.metricId,
    metricThreshold: c.metricThreshold ?? t.metricThreshold,
    eventAttributes: c.eventAttributes === undefined ? t.eventAttributes : c.eventAttributes ?? [],
    achievementId: c.achievementId ?? t.achievementId,
    streakLength: c.streakLength ?? t.streakLength,
    timeUnit: c.timeUnit ?? t.timeUnit,
    timeInterval: c.timeInterval ?? t.timeInterval,
    blockIfOutOfPoints: c.blockIfOutOfPoints ?? t.blockIfOutOfPoints,
    offPeriods: offPeriodsAfter(t.offPeriods, t.status === 'inactive', (c.status ?? t.status) === 'inactive', now),
    updated: now,
  };
  // null takes a limit off; absent keeps it.
  if (c.cooldownSeconds === null) delete next.cooldownSeconds;
  else if (c.cooldownSeconds !== undefined) next.cooldownSeconds = c.cooldownSeconds;
  if (c.maxAwards === null) delete next.maxAwards;
  else if (c.maxAwards !== undefined) next.maxAwards = { count: c.maxAwards.count, period: c.maxAwards.period };
  return checkTrigger(next, snapshot) ?? next;
}

/** Whether writing this trigger needs the workers to find its users (an active time trigger). */
export function isActiveTimeTrigger(t: PointsTrigger): boolean {
  return t.type === 'time' && t.status === 'active';
}

/** Whether a system has an active time trigger (whose users the workers must then find). */
export function hasTimeTriggers(snapshot: Snapshot, systemId: string): boolean {
  return snapshot.list('ptriggers').some((t) => t.systemId === systemId && isActiveTimeTrigger(t));
}
