/**
 * Admin API: `/admin/v1/webhooks` (docs/webhooks.md): endpoints in the batch pattern of
 * src/routes/admin/resource.ts (the signing secret answered once, by the create), the secret's
 * rotation (the old one signs beside the new for 24 hours), an endpoint's deliveries from Postgres
 * (src/postgres/webhooks/deliveries.ts) and the retry of one. Account-wide configuration, as
 * metrics are; a delivery names the tenant of its event, and a key bound to a tenant lists and
 * retries its own tenant's deliveries only.
 */
import type { Deps } from '../../engine/deps.js';
import { urlProblem } from '../../engine/webhooks/addresses.js';
import { newSecret } from '../../domain/webhooks/signing.js';
import { fail } from '../../lib/errors.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import { refuseBody } from '../../http/validate.js';
import type { Request, Route } from '../../http/server.js';
import { WEBHOOK_TYPES, type Webhook, type WebhookType } from '../../model/entities.js';
import { retryWebhookDelivery, webhookDeliveries } from '../../engine/webhooks/history.js';
import { webhookDeliveryView } from './delivery-views.js';
import { ID_PARAM, PAGE_QUERY, pageOf, resourceRoutes } from './resource.js';
import type { WebhookView } from '../../model/views.js';

/** How long a rotated secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
const STATUSES = ['pending', 'sending', 'delivered', 'failed'];

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  events: { type: 'array', minItems: 1, maxItems: WEBHOOK_TYPES.length, uniqueItems: true, items: { enum: [...WEBHOOK_TYPES] } },
  status: { enum: ['active', 'inactive'] },
};

interface WebhookInput {
  name: string;
  url: string;
  events: WebhookType[];
  status?: 'active' | 'inactive';
}

type WebhookChanges = Partial<WebhookInput> & { id: string };

/**
 * The tenant whose deliveries a request may see and send again: a bound key's own, else the one its
 * `Tenant-ID` names; null (every tenant's: the endpoint receives them all) for a key of the whole
 * account without the header.
 */
function deliveriesTenant(req: Request): string | null {
  const p = principalOf(req);
  return p.bound ?? (p.tenantRecord !== null ? p.tenant : null);
}

export function webhookView(w: Webhook): WebhookView {
  return { id: w.id, name: w.name, url: w.url, events: w.events, status: w.status, created: w.created, updated: w.updated };
}

export function adminWebhookRoutes(deps: Deps): Route[] {
  const { store, clock, settings } = deps;
  const allowPrivate = settings.webhooksAllowPrivate;
  const endpointOf = (req: Request): Webhook => {
    const w = store.current.webhooks.get(req.params[0]);
    if (w === undefined) throw fail('not_found', `Webhook "${req.params[0]}"`);
    return w;
  };
  const idParam = { id: { schema: { type: 'string' }, description: 'The webhook endpoint\'s id' } };

  return [
    ...resourceRoutes<'webhooks', WebhookInput, WebhookChanges>(deps, {
      kind: 'webhooks',
      path: '/webhooks',
      label: 'Webhook',
      createSchema: { type: 'object', required: ['name', 'url', 'events'], additionalProperties: false, properties: fields },
      updateSchema: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' }, ...fields } },
      build: (item, { id, now }) => urlProblem(item.url, allowPrivate) ?? {
        id, name: item.name, url: item.url, events: item.events, status: item.status ?? 'active', secret: newSecret(),
        previousSecret: null, previousUntil: null, created: now, updated: now,
      },
      apply: (w, c, { now }) => (c.url === undefined ? null : urlProblem(c.url, allowPrivate)) ?? {
        ...w, name: c.name ?? w.name, url: c.url ?? w.url, events: c.events ?? w.events, status: c.status ?? w.status, updated: now,
      },
      view: webhookView,
      createdView: (w) => ({ ...webhookView(w), secret: w.secret }),
    }),
    {
      method: 'post', path: '/webhooks/:id/secret', family: 'admin', reach: 'account',
      doc: {
        summary: 'Rotate an endpoint\'s signing secret: answers the new one, once; the old one signs beside it for 24 hours',
        params: idParam, success: [200], refusals: [404],
      },
      handler: async (req) => {
        refuseBody(req.body);
        const w = endpointOf(req);
        const now = clock.now();
        const next: Webhook = {
          ...w, secret: newSecret(), previousSecret: w.secret, previousUntil: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
          updated: new Date(now).toISOString(),
        };
        await store.put('webhooks', 'update', next);
        return ok({ ...webhookView(next), secret: next.secret, previousSecretExpires: next.previousUntil });
      },
    },
    {
      method: 'get', path: '/webhooks/:id/deliveries', family: 'admin', reach: 'rows',
      doc: {
        summary: 'An endpoint\'s deliveries, newest first', params: idParam,
        query: [{ name: 'status', schema: { type: 'string', enum: STATUSES } }, ...PAGE_QUERY],
        success: [200], response: { type: 'array' }, refusals: [404, 503],
      },
      handler: async (req) => {
        const w = endpointOf(req);
        const q = queryOf(req);
        const status = q.get('status') ?? undefined;
        const tenant = deliveriesTenant(req);
        return ok((await webhookDeliveries(deps, w.id, { status, tenant, ...pageOf(q) })).map(webhookDeliveryView));
      },
    },
    {
      method: 'post', path: '/webhooks/:id/deliveries/:deliveryId/retry', family: 'admin', reach: 'rows',
      doc: {
        summary: 'Send one delivery again, now (its webhook-id unchanged)',
        params: { ...idParam, deliveryId: ID_PARAM }, success: [200], refusals: [404, 503],
      },
      handler: async (req) => {
        refuseBody(req.body);
        const w = endpointOf(req);
        const d = await retryWebhookDelivery(deps, w.id, req.params[1], clock.now(), deliveriesTenant(req));
        if (d === null) throw fail('not_found', `Delivery "${req.params[1]}" of webhook "${w.id}"`);
        return ok(webhookDeliveryView(d));
      },
    },
  ];
}
