/** The notification deliveries read for the Admin API (docs/notifications.md): newest first, from Postgres. */
import type { Context } from '../context.js';
import { listDeliveries, type Delivery, type DeliveryFilter } from '../../postgres/notifications/deliveries.js';

export type { Delivery };

/** The deliveries matching `filter`, newest first. */
export async function notificationDeliveries(deps: Pick<Context, 'postgres' | 'settings'>, filter: DeliveryFilter): Promise<Delivery[]> {
  return listDeliveries(await deps.postgres(), deps.settings.prefix, filter);
}
