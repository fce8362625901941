/**
 * The Admin API's views of deliveries, shared by the routes that list them
 * (src/routes/admin/notification-deliveries.ts, src/routes/admin/webhooks.ts) and a user's export
 * (src/routes/admin/user-export.ts), so that each shows a delivery alike.
 */
import type { NotificationDeliveryView, WebhookDeliveryView } from '../../model/views.js';
import type { Delivery } from '../../engine/notifications/deliveries.js';
import type { WebhookDelivery } from '../../engine/webhooks/history.js';

export function notificationDeliveryView(d: Delivery): NotificationDeliveryView {
  return {
    id: d.id, type: d.type, channel: d.channel, userId: d.userId, status: d.status,
    ...(d.reason === null ? {} : { reason: d.reason }),
    scheduledFor: new Date(d.scheduledFor).toISOString(), sentAt: d.sentAt === null ? null : new Date(d.sentAt).toISOString(),
    attempts: d.attempts,
    ...(d.error === null ? {} : { error: d.error }),
  };
}

export function webhookDeliveryView(d: WebhookDelivery): WebhookDeliveryView {
  return {
    id: d.id, webhookId: d.eventId, type: d.type, tenant: d.tenant, userId: d.userId, status: d.status,
    dueAt: new Date(d.dueAt).toISOString(), attempts: d.attempts, lastStatus: d.lastStatus, error: d.error,
    created: new Date(d.createdAt).toISOString(), deliveredAt: d.deliveredAt === null ? null : new Date(d.deliveredAt).toISOString(),
    payload: JSON.parse(d.body) as unknown,
  };
}
