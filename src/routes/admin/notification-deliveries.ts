/**
 * Admin API: `GET /admin/v1/notifications/deliveries` (API.md, "Notifications"): the tenant's
 * deliveries, newest first, from Postgres (src/postgres/notifications/deliveries.ts), filtered by
 * user, type, channel and status.
 */
import type { Deps } from '../../engine/deps.js';
import { isUserId } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import { principalOf } from '../../http/auth.js';
import { ok, queryOf, type Query } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { CHANNELS, NOTIFICATION_TYPES } from '../../model/entities.js';
import { listDeliveries, type Delivery } from '../../postgres/notifications/deliveries.js';
import { PAGE_QUERY, pageOf } from './resource.js';
import type { NotificationDeliveryView } from '../../model/views.js';

const STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'suppressed', 'cancelled'];

/** A filter of the query: absent, or one of `allowed`. */
function oneOf(q: Query, name: string, allowed: readonly string[]): string | undefined {
  const value = q.get(name);
  if (value === null || value === '') return undefined;
  if (!allowed.includes(value)) throw fail('invalid_query', `${name} must be one of ${allowed.join(', ')}`);
  return value;
}

export function deliveryView(d: Delivery): NotificationDeliveryView {
  return {
    id: d.id, type: d.type, channel: d.channel, userId: d.userId, status: d.status,
    ...(d.reason === null ? {} : { reason: d.reason }),
    scheduledFor: new Date(d.scheduledFor).toISOString(), sentAt: d.sentAt === null ? null : new Date(d.sentAt).toISOString(),
    attempts: d.attempts,
    ...(d.error === null ? {} : { error: d.error }),
  };
}

export function adminNotificationDeliveryRoutes(deps: Deps): Route[] {
  return [{
    method: 'get', path: '/notifications/deliveries', family: 'admin',
    doc: {
      summary: 'The tenant\'s notification deliveries, newest first',
      query: [
        { name: 'userId', schema: { type: 'string', minLength: 1, maxLength: 255 } },
        { name: 'type', schema: { type: 'string', enum: [...NOTIFICATION_TYPES] } },
        { name: 'channel', schema: { type: 'string', enum: [...CHANNELS] } },
        { name: 'status', schema: { type: 'string', enum: STATUSES } },
        ...PAGE_QUERY,
      ],
      success: [200], response: { type: 'array' }, refusals: [503], tenant: true,
    },
    handler: async (req) => {
      const q = queryOf(req);
      const userId = q.get('userId') || undefined;
      if (userId !== undefined && !isUserId(userId)) throw fail('invalid_query', 'userId must have 1 to 255 characters');
      const filter = {
        tenant: principalOf(req).tenant, userId, ...pageOf(q),
        type: oneOf(q, 'type', NOTIFICATION_TYPES), channel: oneOf(q, 'channel', CHANNELS), status: oneOf(q, 'status', STATUSES),
      };
      // Postgres away or busy: 503 with Retry-After (src/http/server.ts).
      return ok((await listDeliveries(await deps.postgres(), deps.settings.prefix, filter)).map(deliveryView));
    },
  }];
}
