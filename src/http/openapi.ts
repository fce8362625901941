/**
 * The OpenAPI 3.1 document of the routes a server mounts, built once at start-up from the
 * descriptions they are registered with (src/http/route-doc.ts). A request body's schema is the
 * very object its check was compiled from, and a route lists every query parameter its handler
 * reads, so the document cannot drift from what the server accepts.
 *
 * Paths: a family served under one prefix (the Admin API, the operations) is written in full
 * (`/admin/v1/metrics`); a family served under several (the Application API, `/api` and `/v1`)
 * is written below them, with its prefixes as the path's servers. Two routes at one path and
 * method, once written, are a bug: the build throws.
 */
import { ERRORS } from '../lib/errors.js';
import type { Param, RouteDoc, Schema } from './route-doc.js';
import type { Family, Method, Route } from './server.js';

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  /** The prefixes each family is served under, as the server mounts them. */
  prefixes: Record<Family, string[]>;
}

type Json = Record<string, unknown>;

const HTTP_METHOD: Record<Method, string> = { get: 'get', post: 'post', put: 'put', patch: 'patch', del: 'delete' };

const TAG: Record<Family, string> = { app: 'Application API', admin: 'Admin API', ops: 'Operations' };

const SUCCESS: Record<number, string> = {
  101: 'Switching Protocols: the WebSocket of the live updates', 200: 'OK', 201: 'Created', 202: 'Accepted: an idempotent replay, answered with the current state; nothing changed',
};

const REFUSAL: Record<number, string> = {
  400: 'Malformed input: the body, a query parameter, the path or a header',
  401: 'Missing or unknown API key (X-API-KEY)',
  403: 'A key of the wrong kind (an application key on the Admin API), or bound to another tenant',
  404: 'An unknown resource, or an unknown Tenant-ID',
  422: 'A semantic error',
  426: 'Upgrade Required: the path takes WebSocket upgrades only',
  503: 'Not ready, or Redis unreachable',
};

/** `/users/:id` as OpenAPI writes it: `/users/{id}`. */
function templateOf(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The names of a path's parameters, in order. */
function paramNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
}

/** Where a route's operation is written: its path in the document. */
export function documentPath(route: Route, prefixes: Record<Family, string[]>): string {
  const own = prefixes[route.family];
  return own.length === 1 ? own[0] + templateOf(route.path) : templateOf(route.path);
}

/** The schema a request body is documented with: the check's own, in an array for a batch. */
export function bodySchema(body: NonNullable<RouteDoc['body']>): Schema {
  const one = body.check.schema;
  if (body.batch === undefined) return one;
  const batch = { type: 'array', minItems: 1, maxItems: body.batch, items: one };
  return body.orOne ? { anyOf: [one, batch] } : batch;
}

function errorResponse(description: string): Json {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function parameter(p: Param, where: 'query' | 'header'): Json {
  return {
    name: p.name, in: where, schema: p.schema,
    ...(p.description !== undefined && { description: p.description }),
    ...(p.required && { required: true }),
    ...(p.deprecated && { deprecated: true }),
  };
}

function operationId(method: Method, path: string): string {
  const words = `${HTTP_METHOD[method]} ${path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  // A path with a trailing slash is another operation than the one without.
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('') + (path.length > 1 && path.endsWith('/') ? 'Slash' : '');
}

function operation(route: Route, path: string): Json {
  const doc = route.doc;
  const guarded = route.family !== 'ops';
  const parameters: Json[] = paramNames(route.path).map((name) => ({
    name, in: 'path', required: true, schema: doc.params?.[name]?.schema ?? { type: 'string' },
    ...(doc.params?.[name]?.description !== undefined && { description: doc.params[name].description }),
  }));
  for (const p of doc.query ?? []) parameters.push(parameter(p, 'query'));
  for (const p of doc.headers ?? []) parameters.push(parameter(p, 'header'));
  if (route.family === 'app' || doc.tenant) parameters.push({ $ref: '#/components/parameters/TenantId' });

  const responses: Json = {};
  const content = doc.contentType ?? 'application/json';
  for (const status of doc.success) {
    // A 101 switches protocols: no body.
    responses[status] = status === 101
      ? { description: SUCCESS[status] }
      : { description: SUCCESS[status] ?? 'Success', content: { [content]: doc.response ? { schema: doc.response } : {} } };
  }
  const malformed = doc.malformed ?? 400;
  const refusals = new Set<number>(doc.refusals);
  if (guarded) for (const status of [malformed, 401, 403, 404]) refusals.add(status);
  else if (parameters.length > 0 || doc.body) refusals.add(malformed);
  for (const status of [...refusals].sort((a, b) => a - b)) {
    responses[status] = errorResponse(status === 422 && malformed === 422 ? `${REFUSAL[400]}; or ${REFUSAL[422].toLowerCase()}` : REFUSAL[status] ?? 'Refused');
  }
  responses.default = errorResponse('Any other error (405, 413, 415, 5xx), with the same body');

  return {
    operationId: operationId(route.method, path),
    summary: doc.summary,
    ...(doc.description !== undefined && { description: doc.description }),
    tags: [TAG[route.family]],
    ...(parameters.length > 0 && { parameters }),
    ...(doc.body && { requestBody: { required: true, content: { 'application/json': { schema: bodySchema(doc.body) } } } }),
    responses,
    ...(!guarded && { security: [] }),
  };
}

/** The document of `routes` (itself a plain JSON value). */
export function openApiDocument(routes: readonly Route[], info: DocumentInfo): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = documentPath(route, info.prefixes);
    const item = (paths[path] ??= {});
    const method = HTTP_METHOD[route.method];
    if (item[method] !== undefined) throw new Error(`two routes describe ${method.toUpperCase()} ${path}`);
    item[method] = operation(route, path);
    const prefixes = info.prefixes[route.family];
    if (prefixes.length > 1) item.servers = prefixes.map((url) => ({ url, description: TAG[route.family] }));
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/', description: 'This laurel' }],
    tags: (Object.keys(TAG) as Family[]).map((f) => ({ name: TAG[f], description: `At ${info.prefixes[f].map((p) => `${p}/`).join(' and ')}` })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      parameters: {
        TenantId: {
          name: 'Tenant-ID', in: 'header', schema: { type: 'string', pattern: '^[\\x20-\\x7e]*$' },
          description: 'The customerId of a tenant created through /admin/v1/tenants; without it, the default tenant',
        },
      },
      schemas: {
        Error: {
          type: 'object', required: ['error', 'code'],
          properties: { error: { type: 'string' }, code: { enum: Object.keys(ERRORS) } },
        },
      },
    },
    security: [{ apiKey: [] }],
  };
}
