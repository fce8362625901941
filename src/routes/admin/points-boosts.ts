/**
 * Admin API for the boosts of a points system: `/admin/v1/points/:systemId/boosts`, in the batch
 * shapes of the other resources (src/domain/points/boosts.ts). A boost's status follows the clock.
 * A boost for one user is for that user of the tenant the creating request acts for; a key bound
 * to a tenant reads the boosts for everyone and its own users' ones.
 */
import type { Deps } from '../../engine/deps.js';
import { applyBoost, boostSchemas, buildBoost, pointsBoostAdminView, type BoostChanges, type BoostInput } from '../../domain/points/boosts.js';
import { pointsSystemParent } from '../../domain/points/systems.js';
import { boostTenant } from '../../config/plans/points.js';
import type { Route } from '../../http/server.js';
import { resourceRoutes } from './resource.js';

export function adminPointsBoostRoutes(deps: Deps): Route[] {
  return resourceRoutes<'pboosts', BoostInput, BoostChanges>(deps, {
    kind: 'pboosts',
    path: '/points/:systemId/boosts',
    label: 'Boost',
    parent: pointsSystemParent,
    createSchema: boostSchemas.create,
    updateSchema: boostSchemas.update,
    build: buildBoost,
    apply: applyBoost,
    view: (b) => pointsBoostAdminView(b, deps.clock.now()),
    aboutTenant: boostTenant,
  });
}
