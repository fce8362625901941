/**
 * The items of a batch of events and of a history import (docs/api.md, "Batch events" and
 * "History import"): Trophy's BatchMetricEvent, strict, checked whole before anything is accepted,
 * the first item refused naming its index.
 */
import type { QueuedItem } from '../../domain/batches.js';
import { UUID_PATTERN } from '../../domain/ids.js';
import type { Deps } from '../../engine/deps.js';
import { batchProgress } from '../../engine/batches/status.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import type { Route } from '../../http/server.js';
import { OCCURRED_AT_SCHEMA, occurredAtOf } from '../../domain/event-time.js';
import { checkAttributeKeys, prepareIdentification, upsertedUserSchema, type UpsertedUser } from '../../domain/users.js';
import { compileCheck, describe, firstError, type Check } from '../../http/validate.js';
import { fail, HttpError } from '../../lib/errors.js';
import type { Snapshot } from '../../model/snapshot.js';

export interface BatchItem {
  key: string;
  user: UpsertedUser;
  value: number;
  attributes?: Record<string, string> | null;
  idempotencyKey?: string;
  occurredAt?: string;
}

/**
 * The check of a body of 1 to `max` items (an Admin write refuses fields it does not know);
 * `occurredAt` required when `timed` (an import's items).
 */
export function batchItemsCheck(max: number, timed: boolean, occurredAt: Record<string, unknown> = OCCURRED_AT_SCHEMA): Check<BatchItem[]> {
  return compileCheck<BatchItem[]>({
    type: 'array',
    minItems: 1,
    maxItems: max,
    items: {
      type: 'object',
      required: timed ? ['key', 'user', 'value', 'occurredAt'] : ['key', 'user', 'value'],
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
        occurredAt,
      },
    },
  });
}

/** The progress of a batch (and an import), as answered. */
export const PROGRESS_SCHEMA = {
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

/**
 * `GET <path>/:<param>`: a batch's (or an import's) progress, for 24 hours; 404 naming `what` for
 * an id the tenant has no batch of.
 */
export function progressRoute(deps: Deps, path: string, param: string, what: string, summary: string, description: string, answered: string): Route {
  return {
    method: 'get', path: `${path}/:${param}`, family: 'admin', reach: 'tenant',
    handler: async (req) => {
      const { tenant } = principalOf(req);
      const id = req.params[0];
      const found = UUID_PATTERN.test(id) ? await batchProgress(deps, tenant, id) : null;
      if (found === null) throw fail('not_found', `${what} "${id}"`);
      return ok(found);
    },
    doc: {
      summary, description,
      params: { [param]: { schema: { type: 'string' }, description: `The ${param} ${answered} answered` } },
      success: [200],
      tenant: true,
      response: PROGRESS_SCHEMA,
    },
  };
}

/** A refusal of item `index`: the same status and code, its message naming the item. */
function ofItem(index: number, err: unknown): unknown {
  if (err instanceof HttpError) err.message = `Item ${index}: ${err.message}`;
  return err;
}

/** The body checked by `check` (of 1 to `max` items): 400 naming the first item refused, `unknown_field` for a field it does not know. */
export function itemsOf(check: Check<BatchItem[]>, max: number, body: unknown): BatchItem[] {
  if (check(body)) return body;
  const e = firstError(check);
  if (e === null) throw fail('invalid_body', 'is invalid');
  const path = e.instancePath.split('/').slice(1);
  if (path.length === 0) {
    throw fail('invalid_body', Array.isArray(body) ? `the body must hold 1 to ${max} events` : 'the body must be an array of events');
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
 * request's arrival (`arrival`, ms; `windowMs` before it, Infinity for an import), in order: the
 * first refused throws, naming its index.
 */
export function queuedItems(items: BatchItem[], snapshot: Snapshot, arrival: number, windowMs: number): QueuedItem[] {
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
