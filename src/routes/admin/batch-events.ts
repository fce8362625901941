/**
 * Batch events (docs/api.md, "Batch events"): `POST /admin/v1/metrics/events` (Trophy's
 * `admin.metrics.batchEvents`) checks the whole batch, then accepts it durably for the workers
 * (src/engine/batches/accept.ts), answering 202 `{ accepted, batchId }`; nothing is accepted when
 * any item is refused, and the refusal names the item's index. `GET /admin/v1/metrics/events/{batchId}`
 * (laurel's own) answers the batch's progress.
 */
import { MAX_BATCH_ITEMS, type QueuedItem } from '../../domain/batches.js';
import { OCCURRED_AT_SCHEMA, occurredAtOf } from '../../domain/event-time.js';
import { checkAttributeKeys, prepareIdentification, upsertedUserSchema, type UpsertedUser } from '../../domain/users.js';
import type { Deps } from '../../engine/deps.js';
import { acceptBatch } from '../../engine/batches/accept.js';
import { BacklogGate } from '../../engine/batches/backlog-gate.js';
import { batchProgress } from '../../engine/batches/status.js';
import { principalOf } from '../../http/auth.js';
import { json, ok } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';
import { compileCheck, describe, firstError, parseJson } from '../../http/validate.js';
import { fail, HttpError } from '../../lib/errors.js';
import type { Snapshot } from '../../model/snapshot.js';

interface BatchItem {
  key: string;
  user: UpsertedUser;
  value: number;
  attributes?: Record<string, string> | null;
  idempotencyKey?: string;
  occurredAt?: string;
}

/** Trophy's BatchMetricEvent, strict: an Admin write refuses fields it does not know. */
const checkBatch = compileCheck<BatchItem[]>({
  type: 'array',
  minItems: 1,
  maxItems: MAX_BATCH_ITEMS,
  items: {
    type: 'object',
    required: ['key', 'user', 'value'],
    additionalProperties: false,
    properties: {
      key: { type: 'string', minLength: 1, maxLength: 100, description: 'The metric\'s key' },
      user: { ...upsertedUserSchema, additionalProperties: false },
      value: { type: 'number', description: 'Added to the user\'s total of the metric; finite' },
      attributes: { type: ['object', 'null'], additionalProperties: { type: 'string', maxLength: 1024 }, maxProperties: 100 },
      idempotencyKey: {
        type: 'string', maxLength: 255, pattern: '^[\\x20-\\x7e]*$',
        description: 'Printable ASCII; an event whose key was used before (for the user and metric) changes nothing',
      },
      occurredAt: OCCURRED_AT_SCHEMA,
    },
  },
});

/** The progress of a batch, as answered. */
const PROGRESS_SCHEMA = {
  type: 'object', required: ['accepted', 'processed', 'failed', 'issues'],
  properties: {
    accepted: { type: 'integer', minimum: 1 },
    processed: { type: 'integer', minimum: 0, description: 'Items applied, or found applied already (an idempotency key used before)' },
    failed: { type: 'integer', minimum: 0, description: 'Items that could not be applied, each listed in issues' },
    issues: {
      type: 'array',
      items: { type: 'object', required: ['index', 'message'], properties: { index: { type: 'integer', minimum: 0 }, message: { type: 'string' } } },
    },
  },
};

const BATCH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A refusal of item `index`: the same status and code, its message naming the item. */
function ofItem(index: number, err: unknown): unknown {
  if (err instanceof HttpError) err.message = `Item ${index}: ${err.message}`;
  return err;
}

/** The body checked as Trophy's shape: 400 naming the first item refused, `unknown_field` for a field it does not know. */
function shapeOf(body: unknown): BatchItem[] {
  if (checkBatch(body)) return body;
  const e = firstError(checkBatch);
  if (e === null) throw fail('invalid_body', 'is invalid');
  const path = e.instancePath.split('/').slice(1);
  if (path.length === 0) {
    throw fail('invalid_body', Array.isArray(body) ? `the body must hold 1 to ${MAX_BATCH_ITEMS} events` : 'the body must be an array of events');
  }
  const index = Number(path[0]);
  const inner = { ...e, instancePath: path.length > 1 ? `/${path.slice(1).join('/')}` : '' };
  if (e.keyword === 'additionalProperties') {
    const field = (e.params as { additionalProperty: string }).additionalProperty;
    const where = path.length > 1 ? `${path.slice(1).join('.')}.${field}` : field;
    throw ofItem(index, fail('unknown_field', where));
  }
  // describe() names the body's path; within an item, the item itself is "the event".
  throw ofItem(index, fail('invalid_body', describe(inner).replace(/^body\b/, 'the event')));
}

/**
 * Every item checked against the configuration and its `occurredAt` against the window around the
 * batch's arrival (`arrival`, ms), in order: the first refused throws, naming its index.
 */
function queuedItems(items: BatchItem[], snapshot: Snapshot, arrival: number, windowMs: number): QueuedItem[] {
  const queued: QueuedItem[] = [];
  for (let i = 0; i < items.length; i++) {
    const { key, user, value, attributes, idempotencyKey, occurredAt } = items[i];
    try {
      const metric = snapshot.metricsByKey.get(key);
      if (metric === undefined) throw fail('metric_not_found', key);
      if (metric.status !== 'active') throw fail('unprocessable', `Metric "${metric.key}" is archived and accepts no events`);
      prepareIdentification(user, snapshot);
      if (attributes != null) checkAttributeKeys(attributes, snapshot.eventAttributes);
      const item: QueuedItem = { i, m: metric.id, mk: metric.key, u: user, v: value };
      if (attributes != null) item.a = attributes;
      if (idempotencyKey !== undefined && idempotencyKey !== '') item.k = idempotencyKey;
      if (occurredAt !== undefined) item.o = occurredAtOf(occurredAt, arrival, windowMs);
      queued.push(item);
    } catch (err) {
      throw ofItem(i, err);
    }
  }
  return queued;
}

export function adminBatchEventRoutes(deps: Deps): Route[] {
  const gate = new BacklogGate(deps, deps.settings.batchMaxWaiting);

  async function post(req: Request) {
    const { tenant } = principalOf(req);
    const items = queuedItems(shapeOf(parseJson(req.body)), deps.store.current, deps.clock.now(), deps.settings.eventTimeWindowMs);
    await gate.admit(items.length);
    const { batchId, accepted } = await acceptBatch(deps, tenant, items);
    return json(202, { accepted, batchId });
  }

  async function progress(req: Request) {
    const { tenant } = principalOf(req);
    const batchId = req.params[0];
    const found = BATCH_ID.test(batchId) ? await batchProgress(deps, tenant, batchId) : null;
    if (found === null) throw fail('not_found', `Batch "${batchId}"`);
    return ok(found);
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
    {
      method: 'get', path: '/metrics/events/:batchId', family: 'admin', reach: 'tenant', handler: progress,
      doc: {
        summary: 'How far the workers are with a batch of metric events',
        description: 'Kept for 24 hours after the batch was accepted. An item that could not be applied (its metric deleted ' +
          'meanwhile, for example) is counted in failed and listed in issues.',
        params: { batchId: { schema: { type: 'string' }, description: 'The batchId POST /metrics/events answered' } },
        success: [200],
        tenant: true,
        response: PROGRESS_SCHEMA,
      },
    },
  ];
}
