/**
 * Admin API: `/admin/v1/achievements` (docs/api.md), in the batch shapes of the other resources.
 * Activating or changing a metric, composite or streak achievement queues a backfill: a worker
 * completes it, silently, for the users who already qualify. Activating or changing an anniversary
 * achievement puts every user in the anniversary due sets (workers/anniversaries.ts): the workers
 * complete it for those whose anniversary came, silently where it came before.
 *
 * `status` defaults to `active`, laurel's earlier form's default, where Admin API 1.26.0 says
 * `inactive` (docs/api.md, "Differences from the specs"): clients written against laurel create
 * achievements that complete at once.
 */
import type { Deps } from '../../engine/deps.js';
import { checkFilters } from '../../domain/filters.js';
import { stillUsed, unknownReference, usesOfAchievement } from '../../domain/references.js';
import type { Route } from '../../http/server.js';
import { resourceRoutes } from './resource.js';
import { BADGE } from '../../domain/points/systems.js';
import type { Achievement, AchievementStatus, AchievementTrigger, AttributeFilter } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { AdminAchievementView } from '../../model/views.js';

const KEY = { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1, maxLength: 100 };
const filters = {
  type: 'array',
  maxItems: 20,
  items: {
    type: 'object',
    required: ['attributeId', 'attributeValue'],
    properties: { attributeId: { type: 'string' }, attributeValue: { type: 'string', maxLength: 1024 } },
  },
};
const fields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  key: KEY,
  description: { type: ['string', 'null'], maxLength: 2000 },
  badge: BADGE,
  metricId: { type: 'string' },
  metricKey: { type: 'string' },
  metricValue: { type: 'number', exclusiveMinimum: 0 },
  streakLength: { type: 'integer', minimum: 1 },
  anniversaryYears: { type: 'integer', minimum: 1, maximum: 1000, description: 'anniversary: the years since the user\'s creation, on their calendar' },
  achievementIds: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string' } },
  userAttributes: filters,
  eventAttributes: filters,
  status: {
    enum: ['active', 'inactive', 'locked', 'archived'],
    description: 'active (the default: laurel\'s earlier form; Admin API 1.26.0 says inactive), inactive, locked or archived',
  },
};
const TRIGGER = {
  enum: ['metric', 'streak', 'api', 'achievement', 'anniversary'],
  description: 'metric: the metric\'s total reaches metricValue; streak: the streak reaches streakLength; api: POST achievements/{key}/complete; ' +
    'achievement: every one of achievementIds is completed; anniversary: the user\'s anniversaryYears-th anniversary comes on their calendar ' +
    '(at their next event or the workers\' pass each second, whichever comes first)',
};

interface AchievementInput {
  name: string;
  /** Required for `api` achievements (Admin API 1.26.0); the others get one made from the name. */
  key?: string;
  trigger: AchievementTrigger;
  description?: string | null;
  badge?: { url: string } | null;
  metricId?: string;
  /** laurel's convenience: the metric by key instead of id. */
  metricKey?: string;
  metricValue?: number;
  streakLength?: number;
  anniversaryYears?: number;
  achievementIds?: string[];
  userAttributes?: AttributeFilter[];
  eventAttributes?: AttributeFilter[];
  status?: AchievementStatus;
}

type AchievementChanges = Partial<Omit<AchievementInput, 'trigger'>> & { id: string; trigger?: AchievementTrigger };

/**
 * A key for an achievement created without one (Admin API 1.26.0 asks for it only with `api`):
 * the name in lower case, each run of other characters than letters, digits, `_` and `-` a `-`,
 * with `-2`, `-3`, … while the key is taken.
 */
function keyFromName(name: string, snapshot: Snapshot): string {
  const base = name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 90) || 'achievement';
  const taken = new Set([...snapshot.achievements.values()].map((a) => a.key));
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
  return key;
}

/** Whether `from` reaches `target` through composite prerequisites. */
function reaches(snapshot: Snapshot, from: string, target: string, seen = new Set<string>()): boolean {
  if (from === target) return true;
  if (seen.has(from)) return false;
  seen.add(from);
  const a = snapshot.achievements.get(from);
  return a !== undefined && a.achievementIds.some((id) => reaches(snapshot, id, target, seen));
}

/** Which trigger each trigger-specific field belongs to: sent with another trigger, it would be kept and never used. */
const FIELD_OWNER: ['metricId' | 'metricValue' | 'streakLength' | 'anniversaryYears', Achievement['trigger']][] = [
  ['metricId', 'metric'], ['metricValue', 'metric'], ['streakLength', 'streak'], ['anniversaryYears', 'anniversary'],
];

/** The semantic checks the schema cannot make; a message, or null when the achievement is sound. */
function check(a: Achievement, snapshot: Snapshot): string | null {
  switch (a.trigger) {
    case 'metric':
      if (a.metricId === null || !snapshot.metrics.has(a.metricId)) return unknownReference('metricId', 'a metric', a.metricId);
      if (a.metricValue === null) return 'metricValue is required for a metric achievement';
      break;
    case 'streak':
      if (a.streakLength === null) return 'streakLength is required for a streak achievement';
      break;
    case 'achievement': {
      if (a.achievementIds.length === 0) return 'achievementIds is required for an achievement (composite) achievement';
      const twice = a.achievementIds.find((id, i) => a.achievementIds.indexOf(id) !== i);
      if (twice !== undefined) return `achievementIds lists "${twice}" twice`;
      const missing = a.achievementIds.filter((id) => !snapshot.achievements.has(id));
      if (missing.length > 0) return `achievementIds refer to unknown achievements: ${missing.join(', ')}`;
      if (a.achievementIds.some((id) => reaches(snapshot, id, a.id))) return 'achievementIds would make a cycle of composite achievements';
      break;
    }
    case 'anniversary':
      if (a.anniversaryYears == null) return 'anniversaryYears is required for an anniversary achievement';
      break;
    case 'api':
      break;
  }
  for (const [field, owner] of FIELD_OWNER) {
    if (a[field] != null && a.trigger !== owner) return `${field} applies to ${owner} achievements only`;
  }
  if (a.trigger !== 'metric' && a.eventAttributes.length > 0) return 'eventAttributes apply to metric achievements only';
  if (a.trigger !== 'achievement' && a.achievementIds.length > 0) return 'achievementIds apply to achievement (composite) achievements only';
  return checkFilters(a.userAttributes, 'user', 'userAttributes', snapshot)
    ?? checkFilters(a.eventAttributes, 'event', 'eventAttributes', snapshot);
}

/** `metricId`, or the id of the metric named by `metricKey` (an unknown key fails the check). */
/**
 * Whether a write made `next` active, or changed what completes it while it stays active: from then
 * on its completions are loud (`activated`), and an anniversary achievement's users are looked at
 * again. Not by comparing `activated`: a create and an edit in the same millisecond (or under the
 * manual clock) stamp the same time.
 */
function activatedBy(next: Achievement, previous: Achievement | null): boolean {
  if (next.status !== 'active') return false;
  if (previous === null || previous.status !== 'active') return true;
  return next.anniversaryYears !== previous.anniversaryYears
    || JSON.stringify(next.userAttributes) !== JSON.stringify(previous.userAttributes);
}

function metricIdOf(item: { metricId?: string; metricKey?: string }, snapshot: Snapshot): string | undefined {
  if (item.metricId !== undefined || item.metricKey === undefined) return item.metricId;
  return snapshot.metricsByKey.get(item.metricKey)?.id ?? `key:${item.metricKey}`;
}

/**
 * An achievement as the Admin API answers it: Admin API 1.26.0's AdminAchievement (a trigger's own
 * fields only where the trigger has them: `metricId`, `metricValue` for `metric`, `streakLength`
 * for `streak`, `anniversaryYears` for `anniversary`), with laurel's `key` (every trigger has one),
 * `achievementIds` and `eventAttributes` (empty where the trigger takes none), `created` and
 * `updated` beside them.
 */
export function achievementAdminView(a: Achievement): AdminAchievementView {
  return {
    id: a.id, name: a.name, key: a.key, trigger: a.trigger, description: a.description,
    badge: a.badgeUrl === null ? null : { url: a.badgeUrl },
    ...(a.metricId === null ? {} : { metricId: a.metricId }),
    ...(a.metricValue === null ? {} : { metricValue: a.metricValue }),
    ...(a.streakLength === null ? {} : { streakLength: a.streakLength }),
    ...(a.anniversaryYears == null ? {} : { anniversaryYears: a.anniversaryYears }),
    achievementIds: a.achievementIds,
    userAttributes: a.userAttributes, eventAttributes: a.eventAttributes, status: a.status,
    created: a.created, updated: a.updated,
  };
}

export function adminAchievementRoutes(deps: Deps): Route[] {
  const { jobs } = deps;
  return resourceRoutes<'achievements', AchievementInput, AchievementChanges>(deps, {
    kind: 'achievements',
    path: '/achievements',
    label: 'Achievement',
    createSchema: {
      type: 'object',
      required: ['name', 'trigger'],
      properties: { ...fields, trigger: TRIGGER },
    },
    updateSchema: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, ...fields, trigger: TRIGGER },
    },
    build: (item, { id, now, snapshot }) => {
      if (item.key === undefined && item.trigger === 'api') return 'key is required for an api achievement';
      const a: Achievement = {
        id, key: item.key ?? keyFromName(item.name, snapshot), name: item.name, trigger: item.trigger,
        description: item.description ?? null, badgeUrl: item.badge?.url ?? null,
        metricId: metricIdOf(item, snapshot) ?? null, metricValue: item.metricValue ?? null, streakLength: item.streakLength ?? null,
        ...(item.anniversaryYears === undefined ? {} : { anniversaryYears: item.anniversaryYears }),
        achievementIds: item.achievementIds ?? [], userAttributes: item.userAttributes ?? [], eventAttributes: item.eventAttributes ?? [],
        status: item.status ?? 'active', created: now, updated: now,
      };
      if (a.status === 'active') a.activated = now;
      return check(a, snapshot) ?? a;
    },
    apply: (a, c, { now, snapshot }) => {
      if (c.trigger !== undefined && c.trigger !== a.trigger) return 'trigger cannot change; create another achievement';
      const next: Achievement = {
        ...a,
        key: c.key ?? a.key,
        name: c.name ?? a.name,
        description: c.description === undefined ? a.description : c.description,
        badgeUrl: c.badge === undefined ? a.badgeUrl : c.badge?.url ?? null,
        metricId: metricIdOf(c, snapshot) ?? a.metricId,
        metricValue: c.metricValue ?? a.metricValue,
        streakLength: c.streakLength ?? a.streakLength,
        ...(c.anniversaryYears === undefined ? {} : { anniversaryYears: c.anniversaryYears }),
        achievementIds: c.achievementIds ?? a.achievementIds,
        userAttributes: c.userAttributes ?? a.userAttributes,
        eventAttributes: c.eventAttributes ?? a.eventAttributes,
        status: c.status ?? a.status,
        updated: now,
      };
      // What came before is a backfill's.
      if (activatedBy(next, a)) next.activated = now;
      // Archived, it could never complete: a composite that needs it would be out of reach.
      if (next.status === 'archived' && a.status !== 'archived') {
        const needing = [...snapshot.achievements.values()].filter((x) => x.status !== 'archived' && x.achievementIds.includes(a.id));
        if (needing.length > 0) {
          return `Achievement "${a.key}" is a prerequisite of ${needing.map((x) => `achievement "${x.key}"`).join(', ')}; archive or change those first`;
        }
      }
      return check(next, snapshot) ?? next;
    },
    view: achievementAdminView,
    afterWrite: async (a, previous, version) => {
      if (a.trigger === 'anniversary') {
        if (activatedBy(a, previous)) await jobs.anniversaryBackfill(version);
      } else if (a.status === 'active' && a.trigger !== 'api') await jobs.backfill(a.id, version);
    },
    refuseDelete: (a, snapshot) => stillUsed(`Achievement "${a.key}"`, usesOfAchievement(snapshot, a.id)),
  });
}
