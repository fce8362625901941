/**
 * The Admin API's common resource pattern (trophy-admin 1.21.1): create with an array in and
 * `{ created, issues }` out (201 when at least one was created), list with `limit`/`skip`, get by
 * id, update with an array of `{ id, ...changes }` into `{ updated, issues }`, delete with
 * `?ids=` into `{ deleted, issues }`. Per-item problems are issues, not HTTP errors.
 */
import type { Deps } from '../../engine/deps.js';
import { uuidv7 } from '../../domain/ids.js';
import { fail } from '../../lib/errors.js';
import { json, ok } from '../../http/reply.js';
import { queryOf, type Query } from '../../http/query.js';
import type { Reach, Reply, Request, Route } from '../../http/server.js';
import { principalOf } from '../../http/auth.js';
import type { Param, PathParam, Schema } from '../../http/route-doc.js';
import { compileCheck, lastError, parseJson, refuseBody } from '../../http/validate.js';
import { type ConfigKind, UNIQUE_FIELD, type EntityByKind } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { Issue } from '../../model/views.js';

export type { Issue };

export const MAX_BATCH = 100;

/** An Issue, for the routes' descriptions. */
export const ISSUE_SCHEMA = {
  type: 'object', required: ['severity', 'message'],
  properties: {
    id: { type: 'string' }, index: { type: 'integer', minimum: 0 }, severity: { enum: ['error', 'warning'] }, message: { type: 'string' },
  },
};

/** The answer of a batch call: `{ created | updated | deleted, issues }`. */
export function batchAnswer(field: 'created' | 'updated' | 'deleted'): Schema {
  return {
    type: 'object', required: [field, 'issues'],
    properties: { [field]: { type: 'array' }, issues: { type: 'array', items: ISSUE_SCHEMA } },
  };
}

/** The query parameters pageOf reads. */
export const PAGE_QUERY: Param[] = [
  { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
  { name: 'skip', schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 } },
];

/** The query parameter idsOf reads. */
export const IDS_QUERY: Param = {
  name: 'ids', required: true, schema: { type: 'array', minItems: 1, maxItems: MAX_BATCH, items: { type: 'string' } },
  description: 'Repeated, or once with the ids separated by commas',
};

/** A path's `:id`. */
export const ID_PARAM: PathParam = { schema: { type: 'string' } };

export interface ResourceSpec<K extends ConfigKind, C, U> {
  kind: K;
  /** e.g. '/metrics'; a sub-resource's path starts with its parent's id: '/points/:systemId/levels'. */
  path: string;
  /** For a sub-resource: the parent a path names (404 when it does not exist) and an entity's parent. */
  parent?: { label: string; exists(snapshot: Snapshot, id: string): boolean; of(entity: EntityByKind[K]): string };
  /** Singular name for messages: "Metric". */
  label: string;
  createSchema: Record<string, unknown>;
  updateSchema: Record<string, unknown>;
  /** Builds a new entity from a valid create item; returns a message to refuse it. */
  build(item: C, ctx: { id: string; now: string; snapshot: Snapshot; parentId: string; tenant: string }): EntityByKind[K] | string;
  /** Applies a valid update item; returns a message to refuse it. */
  apply(entity: EntityByKind[K], changes: U, ctx: { now: string; snapshot: Snapshot }): EntityByKind[K] | string;
  view(entity: EntityByKind[K]): unknown;
  /** The view a create answers, when it shows more than the others (a webhook's secret, once). */
  createdView?(entity: EntityByKind[K]): unknown;
  /** Runs after a create (previous null) or an update was stored. */
  afterWrite?(entity: EntityByKind[K], previous: EntityByKind[K] | null, version: number): Promise<void>;
  /**
   * Runs before an entity is deleted (say, to delete what belongs to it while it can still be asked
   * for again); a throw keeps it. What it answers is added to the entity's item of `deleted`.
   */
  beforeDelete?(entity: EntityByKind[K]): Promise<Record<string, string> | void>;
  /** Runs after an entity was deleted (say, to delete what belongs to it), with what beforeDelete answered. */
  afterDelete?(entity: EntityByKind[K], before: Record<string, string>): Promise<void>;
  /** A message to refuse deleting an entity (something still refers to it). */
  refuseDelete?(entity: EntityByKind[K], snapshot: Snapshot): string | null;
  /**
   * The tenant (storage id) an entity belongs to, for a resource whose rows each belong to one
   * (tenants): a key bound to a tenant reads its own tenant's rows only and writes none
   * (src/http/authorize.ts). Without it the resource is account-wide configuration, which a bound
   * key reads and does not write.
   */
  tenantOf?(entity: EntityByKind[K]): string;
  /**
   * The tenant (storage id) one row of account-wide configuration is about, or null for a row
   * about everyone: a key bound to a tenant reads the rows about everyone and about its own tenant
   * (a points boost for one user of a tenant).
   */
  aboutTenant?(entity: EntityByKind[K]): string | null;
  /**
   * The entity another name refers to (a tenant's customer id), for a reference that is no id:
   * reads, updates and deletes take either.
   */
  alsoNamed?(snapshot: Snapshot, ref: string): EntityByKind[K] | undefined;
}

/** `limit` (1..100, default 10) and `skip` (>= 0, default 0), as PAGE_QUERY describes them. */
export function pageOf(q: Query): { limit: number; skip: number } {
  return { limit: q.int('limit'), skip: q.int('skip') };
}

/** `ids` repeated or comma-separated, 1..100 of them. */
export function idsOf(q: Query): string[] {
  const ids = q.getAll('ids').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw fail('invalid_query', 'ids is required: one or more ids, repeated or comma-separated');
  if (ids.length > MAX_BATCH) throw fail('invalid_query', `ids may list at most ${MAX_BATCH} ids`);
  return [...new Set(ids)];
}

/** The body of a batch call: a JSON array of 1..100 items. */
export function batchOf(req: Request): unknown[] {
  const body = parseJson(req.body);
  if (!Array.isArray(body)) throw fail('invalid_body', 'body must be a JSON array of items');
  if (body.length === 0 || body.length > MAX_BATCH) throw fail('invalid_body', `body must hold 1 to ${MAX_BATCH} items`);
  return body;
}

/** What a batch create made of one valid item: the view of what it created, or a message that refuses it. */
export type Created = { view: unknown } | string;

/**
 * A batch create (POST): each item of the body checked with `check`, then made by `create`;
 * `{ created, issues }`, 201 when at least one was created. A refused item is an issue at its index.
 */
export async function createEach<C>(
  req: Request, check: (data: unknown) => data is C, create: (item: C) => Promise<Created>,
): Promise<Reply> {
  const items = batchOf(req);
  const created: unknown[] = [];
  const issues: Issue[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const made = check(item) ? await create(item) : lastError(check);
    if (typeof made === 'string') issues.push({ index, severity: 'error', message: made });
    else created.push(made.view);
  }
  return json(created.length > 0 ? 201 : 200, { created, issues });
}

/**
 * The items of an array field of a batch item (the children a parent is created with), each
 * checked with `check` and built with a new id: the entities, or the first problem as
 * `<field>[<j>]: <message>`.
 */
export function buildEach<C, E, X extends object>(
  field: string, list: unknown[] | undefined, check: (data: unknown) => data is C,
  build: (item: C, ctx: X & { id: string }) => E | string, ctx: X,
): E[] | string {
  const built: E[] = [];
  for (let j = 0; j < (list?.length ?? 0); j++) {
    const child = list![j];
    if (!check(child)) return `${field}[${j}]: ${lastError(check)}`;
    const entity = build(child, { ...ctx, id: uuidv7() });
    if (typeof entity === 'string') return `${field}[${j}]: ${entity}`;
    built.push(entity);
  }
  return built;
}

export function resourceRoutes<K extends ConfigKind, C, U extends { id: string }>(
  deps: Deps, spec: ResourceSpec<K, C, U>,
): Route[] {
  const { store, clock } = deps;
  const checkCreate = compileCheck<C>(spec.createSchema);
  const checkUpdate = compileCheck<U>(spec.updateSchema);
  const uniqueField = UNIQUE_FIELD[spec.kind];
  const nowIso = () => new Date(clock.now()).toISOString();
  const label = spec.label.toLowerCase();
  const duplicate = (entity: EntityByKind[K]) =>
    `${/^[aeiou]/.test(label) ? 'An' : 'A'} ${label} with ${uniqueField === 'scopedKey' ? 'key' : uniqueField} ` +
    `"${String((entity as unknown as Record<string, unknown>)[uniqueField === 'scopedKey' ? 'key' : uniqueField])}" already exists`;
  const parent = spec.parent;
  /** The parent named by the path ('' for a top-level resource); 404 when it does not exist. */
  const parentOf = (req: Request): string => {
    if (parent === undefined) return '';
    const id = req.params[0];
    if (!parent.exists(store.current, id)) throw fail('not_found', `${parent.label} "${id}"`);
    return id;
  };
  /** The entity of a kind with this id, when it belongs to the parent. */
  const find = (id: string, parentId: string): EntityByKind[K] | undefined => {
    const entity = store.current.get(spec.kind, id) ?? spec.alsoNamed?.(store.current, id);
    return entity !== undefined && (parent === undefined || parent.of(entity) === parentId) ? entity : undefined;
  };
  const plural = `${label}s`;
  const one = `${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label}`;
  const below = parent === undefined ? '' : ` of a ${parent.label.toLowerCase()}`;
  const tenantOf = spec.tenantOf;
  /** Whether the request may see an entity: a bound key sees its own tenant's rows only. */
  const visible = (req: Request, entity: EntityByKind[K]): boolean => {
    const owner = tenantOf?.(entity) ?? spec.aboutTenant?.(entity) ?? null;
    if (owner === null) return true;
    const { bound } = principalOf(req);
    return bound === null || owner === bound;
  };
  const readReach: Reach = tenantOf === undefined ? 'configuration' : 'rows';
  const writeReach: Reach = tenantOf === undefined ? 'configuration' : 'account';
  const params: Record<string, PathParam> = parent === undefined ? {} : {
    [spec.path.split('/').find((part) => part.startsWith(':'))!.slice(1)]: { schema: { type: 'string' }, description: `The ${parent.label.toLowerCase()}'s id` },
  };

  return [
    {
      method: 'post', path: spec.path, family: 'admin', reach: writeReach,
      doc: {
        summary: `Create ${plural}${below}`, params, body: { check: checkCreate, batch: MAX_BATCH },
        success: [201, 200], response: batchAnswer('created'),
      },
      handler: async (req) => {
        const parentId = parentOf(req);
        return createEach(req, checkCreate, async (item) => {
          const entity = spec.build(item, { id: uuidv7(), now: nowIso(), snapshot: store.current, parentId, tenant: principalOf(req).tenant });
          if (typeof entity === 'string') return entity;
          if (await store.put(spec.kind, 'create', entity) !== 'ok') return duplicate(entity);
          const view = (spec.createdView ?? spec.view)(entity);
          await spec.afterWrite?.(entity, null, store.current.version);
          return { view };
        });
      },
    },
    {
      method: 'get', path: spec.path, family: 'admin', reach: readReach,
      doc: { summary: `List ${plural}${below}`, params, query: PAGE_QUERY, success: [200], response: { type: 'array' } },
      handler: (req) => {
        const parentId = parentOf(req);
        const { limit, skip } = pageOf(queryOf(req));
        const all = store.current.list(spec.kind).filter((e) => (parent === undefined || parent.of(e) === parentId) && visible(req, e));
        return ok(all.slice(skip, skip + limit).map(spec.view));
      },
    },
    {
      method: 'get', path: `${spec.path}/:id`, family: 'admin', reach: readReach,
      doc: { summary: `Get ${one}${below}`, params: { ...params, id: ID_PARAM }, success: [200] },
      handler: (req) => {
        const parentId = parentOf(req);
        const id = req.params[parent === undefined ? 0 : 1];
        const entity = find(id, parentId);
        if (entity === undefined || !visible(req, entity)) throw fail('not_found', `${spec.label} "${id}"`);
        return ok(spec.view(entity));
      },
    },
    {
      method: 'patch', path: spec.path, family: 'admin', reach: writeReach,
      doc: {
        summary: `Update ${plural}${below}`, params, body: { check: checkUpdate, batch: MAX_BATCH }, success: [200], response: batchAnswer('updated'),
      },
      handler: async (req) => {
        const parentId = parentOf(req);
        const items = batchOf(req);
        const updated: unknown[] = [];
        const issues: Issue[] = [];
        for (let index = 0; index < items.length; index++) {
          const item = items[index];
          if (!checkUpdate(item)) {
            issues.push({ index, severity: 'error', message: lastError(checkUpdate) });
            continue;
          }
          const current = find(item.id, parentId);
          if (current === undefined) {
            issues.push({ id: item.id, severity: 'error', message: `${spec.label} "${item.id}" not found` });
            continue;
          }
          const entity = spec.apply(current, item, { now: nowIso(), snapshot: store.current });
          if (typeof entity === 'string') {
            issues.push({ id: item.id, severity: 'error', message: entity });
            continue;
          }
          const result = await store.put(spec.kind, 'update', entity);
          if (result === 'ok') {
            updated.push(spec.view(entity));
            await spec.afterWrite?.(entity, current, store.current.version);
          }
          else if (result === 'not_found') issues.push({ id: item.id, severity: 'error', message: `${spec.label} "${item.id}" not found` });
          else issues.push({ id: item.id, severity: 'error', message: duplicate(entity) });
        }
        return ok({ updated, issues });
      },
    },
    {
      method: 'del', path: spec.path, family: 'admin', reach: writeReach,
      doc: { summary: `Delete ${plural}${below}`, params, query: [IDS_QUERY], success: [200], response: batchAnswer('deleted') },
      handler: async (req) => {
        refuseBody(req.body);
        const parentId = parentOf(req);
        const deleted: ({ id: string } & Record<string, string>)[] = [];
        const issues: Issue[] = [];
        for (const id of idsOf(queryOf(req))) {
          const entity = find(id, parentId);
          const refusal = entity && spec.refuseDelete?.(entity, store.current);
          if (refusal) {
            issues.push({ id, severity: 'error', message: refusal });
            continue;
          }
          const before = (entity !== undefined && await spec.beforeDelete?.(entity)) || {};
          if (entity !== undefined && await store.delete(spec.kind, entity.id)) {
            deleted.push({ ...before, id: entity.id });
            await spec.afterDelete?.(entity, before);
          } else {
            issues.push({ id, severity: 'error', message: `${spec.label} "${id}" not found` });
          }
        }
        return ok({ deleted, issues });
      },
    },
  ];
}
