/**
 * Admin API for the triggers of a points system: `/admin/v1/points/:systemId/triggers`, in the
 * batch shapes of the other resources (src/domain/points/triggers.ts). Writing an active time
 * trigger queues the search for the users it pays.
 */
import type { Deps } from '../../engine/deps.js';
import { pointsSystemParent } from '../../domain/points/systems.js';
import { applyTrigger, buildTrigger, isActiveTimeTrigger, pointsTriggerAdminView, triggerSchemas, type TriggerChanges, type TriggerInput } from '../../domain/points/triggers.js';
import type { Route } from '../../http/server.js';
import { resourceRoutes } from './resource.js';

export function adminPointsTriggerRoutes(deps: Deps): Route[] {
  return resourceRoutes<'ptriggers', TriggerInput, TriggerChanges>(deps, {
    kind: 'ptriggers',
    path: '/points/:systemId/triggers',
    label: 'Trigger',
    parent: pointsSystemParent,
    createSchema: triggerSchemas.create,
    updateSchema: triggerSchemas.update,
    build: buildTrigger,
    apply: applyTrigger,
    view: pointsTriggerAdminView,
    afterWrite: async (t, _previous, version) => {
      if (isActiveTimeTrigger(t)) await deps.jobs.timeBackfill(version);
    },
  });
}
