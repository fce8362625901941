/**
 * Admin API for points systems (trophy-admin 1.21.1): `/admin/v1/points`, in the batch shapes of
 * the other resources; their triggers, levels and boosts are resources below each system
 * (src/routes/admin/points-triggers.ts, points-levels.ts, points-boosts.ts). A system may be
 * created with its children in one item: every child is checked first, and one bad child refuses
 * the whole system (nothing of it is stored). Deleting a system deletes its children.
 */
import type { Deps } from '../../engine/deps.js';
import { uuidv7 } from '../../domain/ids.js';
import { boostSchemas, buildBoost, pointsBoostAdminView, type BoostInput } from '../../domain/points/boosts.js';
import { buildLevel, checkLevelKeys, levelSchemas, pointsLevelAdminView, type LevelInput } from '../../domain/points/levels.js';
import { applySystem, BADGE, buildSystem, DESCRIPTION, int, KEY, NAME, pointsSystemAdminView, type SystemChanges, type SystemInput } from '../../domain/points/systems.js';
import { buildTrigger, hasTimeTriggers, pointsTriggerAdminView, triggerSchemas, type TriggerInput } from '../../domain/points/triggers.js';
import { stillUsed, usesOfPointsSystem } from '../../domain/references.js';
import { principalOf } from '../../http/auth.js';
import type { Route } from '../../http/server.js';
import { compileCheck } from '../../http/validate.js';
import { batchAnswer, buildEach, createEach, MAX_BATCH, resourceRoutes } from './resource.js';

const systemFields = {
  name: NAME,
  description: DESCRIPTION,
  badge: BADGE,
  maxPoints: { ...int(1), type: ['integer', 'null'] },
};

const SCHEMAS = {
  create: {
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
  update: {
    type: 'object', required: ['id'],
    properties: { id: { type: 'string' }, ...systemFields, status: { enum: ['active', 'archived'] } },
  },
};

const checks = {
  systemCreate: compileCheck<SystemInput>(SCHEMAS.create),
  triggerCreate: compileCheck<TriggerInput>(triggerSchemas.create),
  levelCreate: compileCheck<LevelInput>(levelSchemas.create),
  boostCreate: compileCheck<BoostInput>(boostSchemas.create),
};

export function adminPointsSystemRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;
  const nowIso = () => new Date(clock.now()).toISOString();

  /** POST /points: systems, each with its optional levels, boosts and triggers. */
  const createSystems: Route = {
    method: 'post', path: '/points', family: 'admin', reach: 'configuration',
    doc: {
      summary: 'Create points systems, each with its levels, boosts and triggers',
      description: 'A child is checked as POST /admin/v1/points/{systemId}/levels (boosts, triggers) checks it; one bad child refuses its system.',
      body: { check: checks.systemCreate, batch: MAX_BATCH }, success: [201, 200], response: batchAnswer('created'),
    },
    handler: (req) => createEach(req, checks.systemCreate, async (item) => {
      const now = nowIso();
      const system = buildSystem(item, { id: uuidv7(), now });
      const ctx = { now, snapshot: store.current, parentId: system.id, tenant: principalOf(req).tenant };
      const levels = buildEach('levels', item.levels, checks.levelCreate, buildLevel, ctx);
      const boosts = buildEach('boosts', item.boosts, checks.boostCreate, buildBoost, ctx);
      const triggers = buildEach('triggers', item.triggers, checks.triggerCreate, buildTrigger, ctx);
      if (typeof levels === 'string') return levels;
      if (typeof boosts === 'string') return boosts;
      if (typeof triggers === 'string') return triggers;
      const sameKey = checkLevelKeys(levels);
      if (sameKey !== null) return sameKey;
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
      if (hasTimeTriggers(store.current, system.id)) await deps.jobs.timeBackfill(store.current.version);
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
    createSchema: SCHEMAS.create,
    updateSchema: SCHEMAS.update,
    // Unused: POST /points is createSystems above (its generic route is dropped below).
    build: (item, { id, now }) => buildSystem(item, { id, now }),
    apply: (p, c, { now }) => applySystem(p, c, now),
    view: pointsSystemAdminView,
    refuseDelete: (p, snapshot) => stillUsed(`Points system "${p.key}"`, usesOfPointsSystem(snapshot, p.id)),
    afterWrite: async (p, _previous, version) => {
      if (p.status === 'active' && hasTimeTriggers(store.current, p.id)) await deps.jobs.timeBackfill(version);
    },
    afterDelete: async (p) => {
      const snapshot = store.current;
      for (const t of snapshot.list('ptriggers')) if (t.systemId === p.id) await store.delete('ptriggers', t.id);
      for (const l of snapshot.list('plevels')) if (l.systemId === p.id) await store.delete('plevels', l.id);
      for (const b of snapshot.list('pboosts')) if (b.systemId === p.id) await store.delete('pboosts', b.id);
    },
  }).filter((r) => !(r.method === 'post' && r.path === '/points'));

  return [createSystems, ...systems];
}
