/**
 * A webhook endpoint's deliveries for the Admin API (docs/webhooks.md): listed newest first, and
 * one sent again (src/postgres/webhooks/history.ts).
 */
import type { Context } from '../context.js';
import { listDeliveries, retryDelivery } from '../../postgres/webhooks/history.js';
import type { WebhookDelivery } from '../../postgres/webhooks/deliveries.js';

export type { WebhookDelivery };

type Deps = Pick<Context, 'postgres' | 'settings'>;

/** An endpoint's deliveries, newest first, of a status and a tenant (null: every tenant's), a page of them. */
export async function webhookDeliveries(
  deps: Deps, endpointId: string, filter: { status?: string; tenant?: string | null; limit: number; skip: number },
): Promise<WebhookDelivery[]> {
  return listDeliveries(await deps.postgres(), deps.settings.prefix, endpointId, filter);
}

/** Sends a delivery again from `nowMs` (null: no such delivery, of that tenant, or it is being sent). */
export async function retryWebhookDelivery(
  deps: Deps, endpointId: string, id: string, nowMs: number, tenant: string | null,
): Promise<WebhookDelivery | null> {
  return retryDelivery(await deps.postgres(), deps.settings.prefix, endpointId, id, nowMs, tenant);
}
