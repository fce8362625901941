/**
 * Admin API for points systems (trophy-admin 1.21.1): `/admin/v1/points` with, below each system,
 * its triggers, levels and boosts, all in the batch shapes of the other resources. A system may be
 * created with its children in one item: every child is checked first, and one bad child refuses
 * the whole system (nothing of it is stored). Deleting a system deletes its children.
 */
import type { Deps } from '../../engine/deps.js';
import { uuidv7 } from '../../domain/ids.js';
import { boostStatus } from '../../domain/points.js';
import { checkFilters } from '../../domain/filters.js';
import { idOf, stillUsed, unknownReference, usesOfPointsSystem } from '../../domain/references.js';
import { checkDateSpan } from '../../domain/time.js';
import type { Route } from '../../http/server.js';
import { compileCheck } from '../../http/validate.js';
import { buildEach, createEach, MAX_BATCH, resourceRoutes } from './resource.js';
import { offPeriodsAfter, type AttributeFilter, type PointsBoost, type PointsLevel, type PointsSystem, type PointsTrigger, type PointsTriggerType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';

// ---------------------------------------------------------------------------------------------
// Schemas

const KEY = { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 100 };
const NAME = { type: 'string', minLength: 1, maxLength: 255 };
const DESCRIPTION = { type: ['string', 'null'], maxLength: 2000 };
const BADGE = { type: ['object', 'null'], required: ['url'], properties: { url: { type: 'string', maxLength: 2048 } } };
const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
/** Integers stay exact in JSON, Lua and Redis. */
const int = (minimum: number) => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER });
const FILTERS = {
  type: ['array', 'null'],
  maxItems: 20,
  items: {
    type: 'object',
    required: ['attributeId', 'attributeValue'],
    properties: { attributeId: { type: 'string' }, attributeValue: { type: 'string', maxLength: 1024 } },
  },
};
const TRIGGER_TYPES: PointsTriggerType[] = ['metric', 'achievement', 'streak', 'time', 'user_creation'];

const systemFields = {
  name: NAME,
  description: DESCRIPTION,
  badge: BADGE,
  maxPoints: { ...int(1), type: ['integer', 'null'] },
};

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
};

const levelFields = { name: NAME, key: KEY, points: int(0), description: DESCRIPTION, badge: BADGE };

const boostFields = {
  name: NAME,
  start: DATE,
  end: { ...DATE, type: ['string', 'null'] },
  multiplier: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 100 },
  rounding: { enum: ['down', 'up', 'nearest'] },
  userAttributes: FILTERS,
};

const SCHEMAS = {
  systemCreate: {
    type: 'object',
    required: ['name', 'key'],
    properties: {
      ...systemFields, key: KEY,
      // Children are checked one by one (with the sub-resources' schemas) to name the bad one.
      levels: { type: 'array', maxItems: MAX_BATCH },
      boosts: { type: 'array', maxItems: MAX_BATCH },
      triggers: { type: 'array', maxItems: MAX_BATCH },
    },
  },
  systemUpdate: {
    type: 'object', required: ['id'],
    properties: { id: { type: 'string' }, ...systemFields, status: { enum: ['active', 'archived'] } },
  },
  triggerCreate: { type: 'object', required: ['type', 'points'], properties: { type: { enum: TRIGGER_TYPES }, ...triggerFields } },
  triggerUpdate: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, type: { enum: TRIGGER_TYPES }, ...triggerFields } },
  levelCreate: { type: 'object', required: ['name', 'key', 'points'], properties: levelFields },
  levelUpdate: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, ...levelFields } },
  boostCreate: {
    type: 'object', required: ['name', 'start', 'multiplier'],
    properties: { ...boostFields, userId: { type: ['string', 'null'], minLength: 1, maxLength: 255 } },
  },
  boostUpdate: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, ...boostFields } },
};

// ---------------------------------------------------------------------------------------------
// Inputs

type Badge = { url: string } | null;

interface SystemInput {
  name: string;
  key: string;
  description?: string | null;
  badge?: Badge;
  maxPoints?: number | null;
  levels?: unknown[];
  boosts?: unknown[];
  triggers?: unknown[];
}

interface SystemChanges {
  id: string;
  name?: string;
  description?: string | null;
  badge?: Badge;
  maxPoints?: number | null;
  status?: 'active' | 'archived';
}

interface TriggerInput {
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
}

type TriggerChanges = Partial<TriggerInput> & { id: string };

interface LevelInput {
  name: string;
  key: string;
  points: number;
  description?: string | null;
  badge?: Badge;
}

type LevelChanges = Partial<LevelInput> & { id: string };

interface BoostInput {
  name: string;
  start: string;
  end?: string | null;
  multiplier: number;
  rounding?: 'down' | 'up' | 'nearest';
  userId?: string | null;
  userAttributes?: AttributeFilter[] | null;
}

type BoostChanges = Partial<Omit<BoostInput, 'userId'>> & { id: string };

interface BuildContext {
  id: string;
  now: string;
  snapshot: Snapshot;
  parentId: string;
}

// ---------------------------------------------------------------------------------------------
// Views

const badgeOf = (url: string | null): Badge => (url === null ? null : { url });

function pointsSystemAdminView(p: PointsSystem) {
  return {
    id: p.id, name: p.name, key: p.key, description: p.description, status: p.status,
    badge: badgeOf(p.badgeUrl), maxPoints: p.maxPoints,
  };
}

function pointsTriggerAdminView(t: PointsTrigger) {
  const view: Record<string, unknown> = { id: t.id, type: t.type, points: t.points, status: t.status, userAttributes: t.userAttributes };
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
  view.blockIfOutOfPoints = t.blockIfOutOfPoints;
  return view;
}

function pointsLevelAdminView(l: PointsLevel) {
  return { id: l.id, name: l.name, key: l.key, points: l.points, description: l.description, badge: badgeOf(l.badgeUrl) };
}

/** `scheduled` before the start day, `finished` after the end day, else `active` (UTC days). */
function pointsBoostStatus(b: PointsBoost, nowMs: number): 'active' | 'scheduled' | 'finished' {
  return boostStatus(b, new Date(nowMs).toISOString().slice(0, 10));
}

function pointsBoostAdminView(b: PointsBoost, nowMs: number) {
  const view: Record<string, unknown> = {
    id: b.id, name: b.name, status: pointsBoostStatus(b, nowMs), start: b.start, end: b.end,
    multiplier: b.multiplier, rounding: b.rounding, userId: b.userId,
  };
  if (b.userId === null) view.userAttributes = b.userAttributes;
  return view;
}

// ---------------------------------------------------------------------------------------------
// Checks the schemas cannot make

/** Which trigger type each type-specific field belongs to. */
const FIELD_OWNER: [keyof PointsTrigger, PointsTriggerType][] = [
  ['metricId', 'metric'], ['metricThreshold', 'metric'], ['achievementId', 'achievement'],
  ['streakLength', 'streak'], ['timeUnit', 'time'], ['timeInterval', 'time'],
];

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
  return checkFilters(t.userAttributes, 'user', 'userAttributes', snapshot)
    ?? checkFilters(t.eventAttributes, 'event', 'eventAttributes', snapshot);
}

function checkBoost(b: PointsBoost, snapshot: Snapshot): string | null {
  const span = checkDateSpan(b.start, b.end);
  if (span !== null) return span;
  if (b.multiplier === 1) return 'multiplier must not be 1';
  if (b.userId !== null && b.userAttributes.length > 0) return 'userAttributes cannot be set on a boost for one user (userId)';
  return checkFilters(b.userAttributes, 'user', 'userAttributes', snapshot);
}

// ---------------------------------------------------------------------------------------------
// Builders, shared by the sub-resources and the nested children of POST /points

function buildTrigger(item: TriggerInput, { id, now, snapshot, parentId }: BuildContext): PointsTrigger | string {
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
  if (t.status === 'inactive') t.offPeriods = [[now, null]];
  return checkTrigger(t, snapshot) ?? t;
}

/**
 * A trigger's type changes only while it is inactive (1.21.1 admin spec); the old type's fields go,
 * and the new type's required fields must come with the change.
 */
function applyTrigger(
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
  return checkTrigger(next, snapshot) ?? next;
}

function buildLevel(item: LevelInput, { id, now, parentId }: BuildContext): PointsLevel {
  return {
    id, systemId: parentId, key: item.key, scopedKey: `${parentId}:${item.key}`, name: item.name,
    description: item.description ?? null, badgeUrl: item.badge?.url ?? null, points: item.points,
    created: now, updated: now,
  };
}

function applyLevel(l: PointsLevel, c: LevelChanges, now: string): PointsLevel {
  const key = c.key ?? l.key;
  return {
    ...l,
    key, scopedKey: `${l.systemId}:${key}`,
    name: c.name ?? l.name,
    points: c.points ?? l.points,
    description: c.description === undefined ? l.description : c.description,
    badgeUrl: c.badge === undefined ? l.badgeUrl : c.badge?.url ?? null,
    updated: now,
  };
}

function buildBoost(item: BoostInput, { id, now, snapshot, parentId }: BuildContext): PointsBoost | string {
  const b: PointsBoost = {
    id, systemId: parentId, name: item.name, start: item.start, end: item.end ?? null, multiplier: item.multiplier,
    rounding: item.rounding ?? 'down', userId: item.userId ?? null, userAttributes: item.userAttributes ?? [],
    created: now, updated: now,
  };
  return checkBoost(b, snapshot) ?? b;
}

function applyBoost(b: PointsBoost, c: BoostChanges, { now, snapshot }: { now: string; snapshot: Snapshot }): PointsBoost | string {
  const next: PointsBoost = {
    ...b,
    name: c.name ?? b.name,
    start: c.start ?? b.start,
    end: c.end === undefined ? b.end : c.end,
    multiplier: c.multiplier ?? b.multiplier,
    rounding: c.rounding ?? b.rounding,
    userAttributes: c.userAttributes === undefined ? b.userAttributes : c.userAttributes ?? [],
    updated: now,
  };
  return checkBoost(next, snapshot) ?? next;
}

function buildSystem(item: SystemInput, { id, now }: { id: string; now: string }): PointsSystem {
  return {
    id, key: item.key, name: item.name, description: item.description ?? null, badgeUrl: item.badge?.url ?? null,
    maxPoints: item.maxPoints ?? null, status: 'active', created: now, updated: now,
  };
}

const checks = {
  systemCreate: compileCheck<SystemInput>(SCHEMAS.systemCreate),
  triggerCreate: compileCheck<TriggerInput>(SCHEMAS.triggerCreate),
  levelCreate: compileCheck<LevelInput>(SCHEMAS.levelCreate),
  boostCreate: compileCheck<BoostInput>(SCHEMAS.boostCreate),
};

// ---------------------------------------------------------------------------------------------
// Routes

export function adminPointsRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;
  const nowIso = () => new Date(clock.now()).toISOString();
  const parent = {
    label: 'Points system',
    exists: (snapshot: Snapshot, id: string) => snapshot.pointsSystems.has(id),
    of: (e: { systemId: string }) => e.systemId,
  };

  /** Whether a system has an active time trigger (whose users the workers must then find). */
  const hasTimeTriggers = (systemId: string) =>
    store.current.list('ptriggers').some((t) => t.systemId === systemId && t.type === 'time' && t.status === 'active');

  /** POST /points: systems, each with its optional levels, boosts and triggers. */
  const createSystems: Route = {
    method: 'post', path: '/points', family: 'admin',
    handler: (req) => createEach(req, checks.systemCreate, async (item) => {
      const now = nowIso();
      const system = buildSystem(item, { id: uuidv7(), now });
      const ctx = { now, snapshot: store.current, parentId: system.id };
      const levels = buildEach('levels', item.levels, checks.levelCreate, buildLevel, ctx);
      const boosts = buildEach('boosts', item.boosts, checks.boostCreate, buildBoost, ctx);
      const triggers = buildEach('triggers', item.triggers, checks.triggerCreate, buildTrigger, ctx);
      if (typeof levels === 'string') return levels;
      if (typeof boosts === 'string') return boosts;
      if (typeof triggers === 'string') return triggers;
      const duplicate = levels.findIndex((l, j) => levels.findIndex((o) => o.key === l.key) !== j);
      if (duplicate >= 0) return `levels[${duplicate}]: A level with key "${levels[duplicate].key}" already exists`;
      // Nothing should refuse the children (new ids, level keys checked above); if something does, undo.
      const refused = await store.createAll([
        { kind: 'points', entity: system },
        ...levels.map((entity) => ({ kind: 'plevels' as const, entity })),
        ...boosts.map((entity) => ({ kind: 'pboosts' as const, entity })),
        ...triggers.map((entity) => ({ kind: 'ptriggers' as const, entity })),
      ]);
      if (refused !== null) {
        return refused.index === 0
          ? `A points system with key "${system.key}" already exists`
          : 'The points system could not be stored with its children; nothing was created';
      }
      if (hasTimeTriggers(system.id)) await deps.jobs.timeBackfill(store.current.version);
      const nowMs = clock.now();
      return {
        view: {
          ...pointsSystemAdminView(system),
          ...(item.levels !== undefined && { levels: levels.map(pointsLevelAdminView) }),
          ...(item.boosts !== undefined && { boosts: boosts.map((b) => pointsBoostAdminView(b, nowMs)) }),
          ...(item.triggers !== undefined && { triggers: triggers.map(pointsTriggerAdminView) }),
        },
      };
    }),
  };

  const systems = resourceRoutes<'points', SystemInput, SystemChanges>(deps, {
    kind: 'points',
    path: '/points',
    label: 'Points system',
    createSchema: SCHEMAS.systemCreate,
    updateSchema: SCHEMAS.systemUpdate,
    // Unused: POST /points is createSystems above (its generic route is dropped below).
    build: (item, { id, now }) => buildSystem(item, { id, now }),
    apply: (p, c, { now }) => ({
      ...p,
      name: c.name ?? p.name,
      description: c.description === undefined ? p.description : c.description,
      badgeUrl: c.badge === undefined ? p.badgeUrl : c.badge?.url ?? null,
      maxPoints: c.maxPoints === undefined ? p.maxPoints : c.maxPoints,
      status: c.status ?? p.status,
      offPeriods: offPeriodsAfter(p.offPeriods, p.status === 'archived', (c.status ?? p.status) === 'archived', now),
      updated: now,
    }),
    view: pointsSystemAdminView,
    refuseDelete: (p, snapshot) => stillUsed(`Points system "${p.key}"`, usesOfPointsSystem(snapshot, p.id)),
    afterWrite: async (p, _previous, version) => {
      if (p.status === 'active' && hasTimeTriggers(p.id)) await deps.jobs.timeBackfill(version);
    },
    afterDelete: async (p) => {
      const snapshot = store.current;
      for (const t of snapshot.list('ptriggers')) if (t.systemId === p.id) await store.delete('ptriggers', t.id);
      for (const l of snapshot.list('plevels')) if (l.systemId === p.id) await store.delete('plevels', l.id);
      for (const b of snapshot.list('pboosts')) if (b.systemId === p.id) await store.delete('pboosts', b.id);
    },
  }).filter((r) => !(r.method === 'post' && r.path === '/points'));

  const triggers = resourceRoutes<'ptriggers', TriggerInput, TriggerChanges>(deps, {
    kind: 'ptriggers',
    path: '/points/:systemId/triggers',
    label: 'Trigger',
    parent,
    createSchema: SCHEMAS.triggerCreate,
    updateSchema: SCHEMAS.triggerUpdate,
    build: buildTrigger,
    apply: applyTrigger,
    view: pointsTriggerAdminView,
    afterWrite: async (t, _previous, version) => {
      if (t.type === 'time' && t.status === 'active') await deps.jobs.timeBackfill(version);
    },
  });

  const levels = resourceRoutes<'plevels', LevelInput, LevelChanges>(deps, {
    kind: 'plevels',
    path: '/points/:systemId/levels',
    label: 'Level',
    parent,
    createSchema: SCHEMAS.levelCreate,
    updateSchema: SCHEMAS.levelUpdate,
    build: buildLevel,
    apply: (l, c, { now }) => applyLevel(l, c, now),
    view: pointsLevelAdminView,
  });

  const boosts = resourceRoutes<'pboosts', BoostInput, BoostChanges>(deps, {
    kind: 'pboosts',
    path: '/points/:systemId/boosts',
    label: 'Boost',
    parent,
    createSchema: SCHEMAS.boostCreate,
    updateSchema: SCHEMAS.boostUpdate,
    build: buildBoost,
    apply: applyBoost,
    view: (b) => pointsBoostAdminView(b, clock.now()),
  });

  return [createSystems, ...systems, ...triggers, ...levels, ...boosts];
}
