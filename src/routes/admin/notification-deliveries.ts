/**
 * Admin API: `GET /admin/v1/notifications/deliveries` (docs/notifications.md): the tenant's
 * deliveries, newest first, from Postgres (src/postgres/notifications/deliveries.ts), filtered by
 * user, type, channel and status.
 */
import type { Deps } from '../../engine/deps.js';
import { userIdSchema } from '../../domain/users.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Route } from '../../http/server.js';
import { CHANNELS, NOTIFICATION_TYPES } from '../../model/entities.js';
import { notificationDeliveries } from '../../engine/notifications/deliveries.js';
import { notificationDeliveryView } from './delivery-views.js';
import { PAGE_QUERY, pageOf } from './resource.js';

const STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'suppressed', 'cancelled'];

export function adminNotificationDeliveryRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/notifications/deliveries', family: 'admin',
    doc: {
      summary: 'The tenant\'s notification deliveries, newest first',
      query: [
        { name: 'userId', schema: userIdSchema },
        { name: 'type', schema: { type: 'string', enum: [...NOTIFICATION_TYPES] } },
        { name: 'channel', schema: { type: 'string', enum: [...CHANNELS] } },
        { name: 'status', schema: { type: 'string', enum: STATUSES } },
        ...PAGE_QUERY,
      ],
      success: [200], response: { type: 'array' }, refusals: [503], tenant: true,
    },
    handler: async (req) => {
      const q = queryOf(req);
      // Each checked against its schema by queryOf (src/http/query.ts): a type, channel or status of the lists.
      const filter = {
        tenant: principalOf(req).tenant, userId: q.get('userId') ?? undefined, ...pageOf(q),
        type: q.get('type') ?? undefined, channel: q.get('channel') ?? undefined, status: q.get('status') ?? undefined,
      };
      // Postgres away or busy: 503 with Retry-After (src/http/server.ts).
      return ok((await notificationDeliveries(deps, filter)).map(notificationDeliveryView));
    },
  }];
}
