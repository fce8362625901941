/**
 * Admin API: `GET /admin/v1/users` (laurel's own, for the dashboard's user list: docs/dashboard.md,
 * "Users"): the tenant's users, a page at a time in id order, found by id prefix, email prefix
 * (letter case aside) and user attribute values, from the user directory the log drain keeps in
 * Postgres (src/postgres/analytics/directory.ts): a second or so behind the events, and nothing
 * on their path. A key bound to a tenant lists its own tenant's users only (the route's data is
 * the tenant's: src/http/authorize.ts).
 */
import type { Deps } from '../../engine/deps.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { parseUserAttributes, USER_ATTRIBUTES_QUERY, USER_ID_MAX } from '../../domain/users.js';
import { findUsers } from '../../engine/analytics/reports.js';
import type { UserListView } from '../../model/views.js';

const MAX_LIMIT = 100;

const USER_LIST_SCHEMA = {
  type: 'object', required: ['users', 'next'],
  properties: {
    users: {
      type: 'array',
      items: {
        type: 'object', required: ['id', 'email', 'name', 'attributes', 'firstSeen', 'lastActive'],
        properties: {
          id: { type: 'string' }, email: { type: ['string', 'null'] }, name: { type: ['string', 'null'] },
          attributes: { type: 'object', additionalProperties: { type: 'string' } },
          firstSeen: { type: 'string', format: 'date-time' }, lastActive: { type: ['string', 'null'], format: 'date' },
        },
      },
    },
    next: { type: ['string', 'null'], description: 'The `after` of the next page; null on the last page' },
  },
};

export function adminUserRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/users', family: 'admin',
    doc: {
      summary: 'The tenant\'s users, found by id prefix, email prefix and user attributes, a page at a time in id order',
      description: 'From the user directory the log drain keeps: a user shows a second or so after their first entry (an event, '
        + 'an identification), with what identifications set of their email, name and attributes.',
      query: [
        { name: 'idPrefix', schema: { type: 'string', maxLength: USER_ID_MAX }, description: 'Users whose id starts with it' },
        { name: 'email', schema: { type: 'string', maxLength: 320 }, description: 'Users whose email starts with it, letter case aside' },
        USER_ATTRIBUTES_QUERY,
        { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 50 } },
        { name: 'after', schema: { type: 'string', maxLength: USER_ID_MAX }, description: 'The `next` of the page before: this page starts after that id' },
      ],
      success: [200], response: USER_LIST_SCHEMA, refusals: [422, 503], tenant: true,
    },
    handler: async (req) => {
      const q = queryOf(req);
      // Each checked against its schema by queryOf (src/http/query.ts): lengths, no NUL (no stored text has one).
      const search = {
        idPrefix: q.get('idPrefix'),
        emailPrefix: q.get('email'),
        attributes: parseUserAttributes(q.get('userAttributes'), deps.store.current),
        limit: q.int('limit'),
        after: q.get('after'),
      };
      // Postgres away or busy: 503 with Retry-After (src/http/server.ts).
      const view: UserListView = await findUsers(deps, principalOf(req).tenant, search);
      return ok(view);
    },
  }];
}
