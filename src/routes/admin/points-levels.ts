/**
 * Admin API for the levels of a points system: `/admin/v1/points/:systemId/levels`, in the batch
 * shapes of the other resources (src/domain/points/levels.ts).
 */
import type { Deps } from '../../engine/deps.js';
import { applyLevel, buildLevel, levelSchemas, pointsLevelAdminView, type LevelChanges, type LevelInput } from '../../domain/points/levels.js';
import { pointsSystemParent } from '../../domain/points/systems.js';
import type { Route } from '../../http/server.js';
import { resourceRoutes } from './resource.js';

export function adminPointsLevelRoutes(deps: Deps): Route[] {
  return resourceRoutes<'plevels', LevelInput, LevelChanges>(deps, {
    kind: 'plevels',
    path: '/points/:systemId/levels',
    label: 'Level',
    parent: pointsSystemParent,
    createSchema: levelSchemas.create,
    updateSchema: levelSchemas.update,
    build: buildLevel,
    apply: (l, c, { now }) => applyLevel(l, c, now),
    view: pointsLevelAdminView,
  });
}
