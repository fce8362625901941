/**
 * Admin API: erasing a user (laurel's own; docs/api.md, "Erasing a user"). `DELETE
 * /admin/v1/users/{id}` removes the user from Redis at once and answers 202 with the erasure's id;
 * the workers then remove them from what is shared with others and from Postgres
 * (src/engine/erasure/erase.ts), and `GET /admin/v1/erasures/{erasureId}` says how far they are. A key
 * bound to a tenant erases its own tenant's users only (the route's data is the tenant's). A deleted
 * tenant's erasure (src/engine/erasure/tenant.ts) is read with an account's key, no tenant named.
 */
import type { Deps } from '../../engine/deps.js';
import { readErasure, requestErasure } from '../../engine/erasure/erase.js';
import { checkUserId, USER_ID_PARAM } from '../../domain/users.js';
import { principalOf } from '../../http/auth.js';
import { json, ok } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';
import { refuseBody } from '../../http/validate.js';
import { fail } from '../../lib/errors.js';

/** An erasure's id: a UUID, as uuidv7 makes them. */
const ERASURE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ERASURE_SCHEMA = {
  type: 'object', required: ['id', 'status', 'requestedAt', 'finishedAt', 'redisKeys', 'redisMembers', 'archivedEntries', 'postgresRows'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['pending', 'done'], description: 'pending until the workers have removed the user from every store' },
    requestedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    redisKeys: { type: 'integer', description: 'Redis keys deleted' },
    redisMembers: { type: 'integer', description: 'Members, fields and entries taken out of Redis keys shared with other users' },
    archivedEntries: { type: 'integer', description: 'Entries of the archived event log redacted' },
    postgresRows: { type: 'integer', description: 'Other Postgres rows deleted or rewritten' },
  },
};

export function adminErasureRoutes(deps: Deps): Route[] {
  async function erase(req: Request) {
    // An erasure cannot be undone: a body it would ignore (a mistaken call) is refused first.
    refuseBody(req.body);
    const { tenant } = principalOf(req);
    const userId = req.params[0];
    checkUserId(userId);
    const erasureId = await requestErasure(deps, tenant, userId);
    if (erasureId === null) throw fail('user_not_found', userId);
    return json(202, { erasureId });
  }

  async function progress(req: Request) {
    const { tenant } = principalOf(req);
    const id = req.params[0];
    const found = ERASURE_ID.test(id) ? await readErasure(deps, tenant, id) : null;
    if (found === null) throw fail('not_found', `Erasure "${id}"`);
    return ok(found);
  }

  return [
    {
      method: 'del', path: '/users/:id', family: 'admin', reach: 'tenant', handler: erase,
      doc: {
        summary: 'Erase a user from every store',
        description: 'The user\'s state leaves Redis before the answer (an event of theirs runs wholly before or wholly after; '
          + 'a later one makes a new user); the workers then remove them from leaderboards, rankings, queues and live topics, '
          + 'and from Postgres (the archived log redacted, their rows deleted), usually within seconds. '
          + 'GET /erasures/{erasureId} tells how far they are.',
        params: { id: USER_ID_PARAM },
        success: [202], refusals: [404], tenant: true,
        response: { type: 'object', required: ['erasureId'], properties: { erasureId: { type: 'string' } } },
      },
    },
    {
      method: 'get', path: '/erasures/:erasureId', family: 'admin', reach: 'tenant', handler: progress,
      doc: {
        summary: 'How far an erasure is',
        params: { erasureId: { schema: { type: 'string' }, description: 'The erasureId DELETE /users/{id} answered, or an item of DELETE /tenants (read without Tenant-ID)' } },
        success: [200], refusals: [404], tenant: true,
        response: ERASURE_SCHEMA,
      },
    },
  ];
}
