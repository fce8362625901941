/**
 * Batch events (docs/api.md, "Batch events"): `POST /admin/v1/metrics/events` (Trophy's
 * `admin.metrics.batchEvents`) checks the whole batch, then accepts it durably for the workers
 * (src/engine/batches/accept.ts), answering 202 `{ accepted, batchId }`; nothing is accepted when
 * any item is refused, and the refusal names the item's index. `GET /admin/v1/metrics/events/{batchId}`
 * (laurel's own) answers the batch's progress.
 */
import { MAX_BATCH_ITEMS } from '../../domain/batches.js';
import type { Deps } from '../../engine/deps.js';
import { acceptBatch } from '../../engine/batches/accept.js';
import { BacklogGate } from '../../engine/batches/backlog-gate.js';
import { principalOf } from '../../http/auth.js';
import { json } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';
import { parseJson } from '../../http/validate.js';
import { batchItemsCheck, itemsOf, progressRoute, queuedItems } from './batch-items.js';

/** Trophy's BatchMetricEvent, strict: an Admin write refuses fields it does not know. */
const checkBatch = batchItemsCheck(MAX_BATCH_ITEMS, false);

export function adminBatchEventRoutes(deps: Deps): Route[] {
  const gate = new BacklogGate(deps, deps.settings.batchMaxWaiting);

  async function post(req: Request) {
    const { tenant } = principalOf(req);
    const items = queuedItems(itemsOf(checkBatch, MAX_BATCH_ITEMS, parseJson(req.body)), deps.store.current, deps.clock.now(), deps.settings.eventTimeWindowMs);
    await gate.admit(items.length);
    const { batchId, accepted } = await acceptBatch(deps, tenant, items);
    return json(202, { accepted, batchId });
  }


  return [
    {
      method: 'post', path: '/metrics/events', family: 'admin', reach: 'tenant', handler: post,
      doc: {
        summary: 'Submit up to 1,000 metric events, applied by the workers',
        description: 'The whole batch is checked first: an item refused (400 its shape, 404 an unknown metric, 422 an unknown ' +
          'attribute or an occurredAt outside the window; the message names its index) refuses the batch. Answered 202 once every item is stored as durably as an ' +
          'event\'s log entry; the workers then apply each item as POST /metrics/{key}/event would, in order for each user, ' +
          'each at most once. GET /metrics/events/{batchId} tells how far they are. 503 with Retry-After, nothing accepted, ' +
          'while more items than LAUREL_BATCH_MAX_WAITING would wait for the workers.',
        body: { check: checkBatch },
        success: [202],
        refusals: [422, 503],
        tenant: true,
        response: {
          type: 'object', required: ['accepted', 'batchId'],
          properties: {
            accepted: { type: 'integer', description: 'The number of events accepted' },
            batchId: { type: 'string', description: 'The batch, for GET /metrics/events/{batchId}' },
          },
        },
      },
    },
    progressRoute(deps, '/metrics/events', 'batchId', 'Batch', 'How far the workers are with a batch of metric events',
      'Kept for 24 hours after the batch was accepted. An item that could not be applied (its metric deleted meanwhile, for example) ' +
      'is counted in failed and listed in issues.', 'POST /metrics/events'),
  ];
}
