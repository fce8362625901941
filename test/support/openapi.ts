/**
 * The response schemas as a check on every answer the tests provoke: loads the Trophy specs (1.21.1,
 * and the Admin API's 1.26.0 for the operations added since; copies in test/support/openapi/), finds the operation a request went to (the Application
 * API under `/v1` or `/api`, the Admin API under `/admin/v1`), and validates the answer's status and
 * body with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1: `type: ['string', 'null']`,
 * `allOf`, `oneOf`, formats). Extra fields are allowed wherever the spec does not forbid them.
 *
 * What laurel deliberately answers otherwise, and the paths the specs do not describe, are listed
 * in test/support/spec-differences.ts (and in docs/api.md).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { DIFFERENCES, SKIPPED, type Difference, type Family } from './spec-differences.js';

export type { Family };

/** What went over the wire: the request's method and path (with its prefix and query) and the answer. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
}

export type Verdict =
  | { kind: 'valid'; operation: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'invalid'; operation: string; message: string };

interface Operation {
  family: Family;
  method: string;
  /** The spec's path, e.g. `/users/{id}/streak`. */
  template: string;
  pattern: RegExp;
  /** Literal segments: the more, the more specific. */
  literals: number;
  /** Response schemas by status. */
  responses: Record<string, unknown>;
  /** `app GET /users/{id}/streak`, as the differences name it. */
  name: string;
}

interface Spec {
  family: Family;
  file: string;
  operations: Operation[];
  /** The spec's error body (`ErrorBody`, `AdminErrorBody`), for an error status an operation does not list. */
  errorSchema: unknown;
}

const FILES: Record<Family, string> = {
  app: 'trophy-application-1.21.1.json',
  admin: 'trophy-admin-1.21.1.json',
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// `example`, `x-fern-*` and the like are OpenAPI's, not JSON Schema's: not strict about unknown keywords.
const ajv = new Ajv2020({ strict: false, allErrors: true });
(formats as unknown as typeof formats.default)(ajv, ['date', 'date-time', 'uuid', 'uri']);
// OpenAPI's number format: any JSON number is a double.
ajv.addFormat('double', { type: 'number', validate: () => true });

/** Every `$ref: '#/...'` of a spec made absolute (`<file>#/...`), so a schema taken out of it still resolves. */
function absoluteRefs(node: unknown, file: string): unknown {
  if (Array.isArray(node)) return node.map((n) => absoluteRefs(n, file));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? file + v : absoluteRefs(v, file);
  }
  return out;
}

function load(family: Family, file = FILES[family]): Spec {
  const raw = JSON.parse(readFileSync(new URL(`./openapi/${file}`, import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
    components: { schemas: Record<string, unknown> };
  };
  const doc = absoluteRefs(raw, file) as typeof raw;
  ajv.addSchema({ $id: file, components: { schemas: doc.components.schemas } });
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const responses: Record<string, unknown> = {};
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        responses[status] = r.content?.['application/json']?.schema ?? null;
      }
      const segments = template.split('/').filter(Boolean);
      operations.push({
        family, method: method.toUpperCase(), template, responses,
        pattern: new RegExp(`^${segments.map((s) => (s.startsWith('{') ? '/[^/]+' : `/${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)).join('')}/?$`),
        literals: segments.filter((s) => !s.startsWith('{')).length,
        name: `${family} ${method.toUpperCase()} ${template}`,
      });
    }
  }
  // The most specific first: `/metrics/events` before `/metrics/{id}`.
  operations.sort((a, b) => b.literals - a.literals);
  const errorName = family === 'app' ? 'ErrorBody' : 'AdminErrorBody';
  return { family, file, operations, errorSchema: { $ref: `${file}#/components/schemas/${errorName}` } };
}

let loaded: Record<Family, Spec> | null = null;
/** Both specs, loaded on first use (every test file has the SDK check; most never call the SDK). */
function specs(): Record<Family, Spec> {
  loaded ??= { app: load('app'), admin: load('admin') };
  return loaded;
}

/**
 * The Admin API 1.26.0 spec (docs/api.md, "Differences from the specs"): the operations Trophy added since
 * 1.21.1 are checked against it, as the others are against 1.21.1.
 */
export const ADMIN_126 = 'trophy-admin-1.26.0.json';
let loaded126: Spec | null = null;
function spec126(): Spec {
  loaded126 ??= load('admin', ADMIN_126);
  return loaded126;
}

/** The operation of the 1.26.0 Admin spec a request went to, or null. */
export function operation126Of(method: string, path: string): Operation | null {
  const where = familyOf(path);
  if (where === null || where.family !== 'admin') return null;
  const m = method.toUpperCase();
  return spec126().operations.find((op) => op.method === m && op.pattern.test(where.rest)) ?? null;
}

const compiled = new Map<unknown, ValidateFunction>();
function validatorOf(schema: unknown): ValidateFunction {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(schema as object);
    compiled.set(schema, v);
  }
  return v;
}

/** The family of a path and the path below its prefix, without the query; null for other paths (ops). */
export function familyOf(path: string): { family: Family; rest: string } | null {
  const bare = path.split('?')[0];
  const m = /^(\/admin\/v1|\/v1|\/api)(\/.*)?$/.exec(bare);
  if (m === null) return null;
  return { family: m[1] === '/admin/v1' ? 'admin' : 'app', rest: m[2] ?? '/' };
}

/** The operation of the specs a request went to, or null. */
export function operationOf(method: string, path: string): Operation | null {
  const where = familyOf(path);
  if (where === null) return null;
  const m = method.toUpperCase();
  return specs()[where.family].operations.find((op) => op.method === m && op.pattern.test(where.rest)) ?? null;
}

function excerpt(body: unknown, max = 600): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body) ?? String(body);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The value at an Ajv instance path. */
function at(body: unknown, pointer: string): unknown {
  let node = body;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function excused(d: Difference, operation: string, a: Answer, e: ErrorObject): boolean {
  return d.operations.includes(operation)
    && (d.statuses === undefined || d.statuses.includes(a.status))
    && d.at !== undefined && d.at.test(e.instancePath)
    && (d.keywords === undefined || d.keywords.includes(e.keyword))
    && (d.value === undefined || d.value(at(a.body, e.instancePath)));
}

function describe(e: ErrorObject, body: unknown): string {
  const value = at(body, e.instancePath);
  return `${e.instancePath || '(body)'} ${e.message ?? e.keyword} [${e.keyword} at ${e.schemaPath}]`
    + (e.instancePath === '' ? '' : `, got ${excerpt(value, 160)}`);
}

/** Whether an answer conforms to the 1.21.1 specs, allowing for laurel's listed differences. */
export function checkAnswer(a: Answer): Verdict {
  const where = familyOf(a.path);
  let op = operationOf(a.method, a.path);
  let spec = op === null ? null : specs()[op.family];
  if (op === null) {
    const skip = SKIPPED.find((s) => s.family === (where?.family ?? 'ops')
      && (s.method === '*' || s.method === a.method.toUpperCase()) && s.path.test(where?.rest ?? a.path.split('?')[0]));
    if (skip !== undefined) return { kind: 'skipped', reason: skip.reason };
    op = operation126Of(a.method, a.path);
    if (op !== null) spec = spec126();
  }
  if (op === null || spec === null) {
    // laurel saying it has no such route is a fine answer to a path the specs do not describe.
    const code = (a.body as { code?: unknown } | null)?.code;
    if (where !== null && ((a.status === 404 && code === 'route_not_found') || (a.status === 405 && code === 'method_not_allowed'))) {
      return conforms(`${where.family} ${a.method.toUpperCase()} (no such route)`, validatorOf(specs()[where.family].errorSchema), a, []);
    }
    return {
      kind: 'invalid', operation: `${a.method.toUpperCase()} ${a.path}`,
      message: `${a.method.toUpperCase()} ${a.path} answered ${a.status}, but no operation of the 1.21.1 specs has this path and `
        + 'method, and test/support/spec-differences.ts does not list it in SKIPPED',
    };
  }
  const status = String(a.status);
  const differences = DIFFERENCES.filter((d) => d.operations.includes(op.name));
  let schema: unknown;
  if (status in op.responses) schema = op.responses[status];
  else if (a.status >= 400) schema = spec.errorSchema;
  else {
    const alias = differences.find((d) => d.answersAs?.[a.status] !== undefined)?.answersAs?.[a.status];
    if (alias === undefined || !(String(alias) in op.responses)) {
      return {
        kind: 'invalid', operation: op.name,
        message: `${op.name} answered ${a.status}; the spec (${spec.file}) lists ${Object.keys(op.responses).join(', ')}\n  body: ${excerpt(a.body)}`,
      };
    }
    schema = op.responses[String(alias)];
  }
  if (schema === null) return { kind: 'valid', operation: op.name };
  return conforms(op.name, validatorOf(schema), a, differences, spec.file === ADMIN_126 ? '1.26.0' : '1.21.1');
}

function conforms(operation: string, validate: ValidateFunction, a: Answer, differences: Difference[], version = '1.21.1'): Verdict {
  if (validate(a.body)) return { kind: 'valid', operation };
  const left = (validate.errors ?? []).filter((e) => !differences.some((d) => excused(d, operation, a, e)));
  if (left.length === 0) return { kind: 'valid', operation };
  return {
    kind: 'invalid', operation,
    message: `${operation} answered ${a.status} outside its ${version} response schema (${a.method.toUpperCase()} ${a.path}):\n`
      + left.slice(0, 8).map((e) => `  ${describe(e, a.body)}`).join('\n')
      + (left.length > 8 ? `\n  … and ${left.length - 8} more` : '')
      + `\n  body: ${excerpt(a.body)}`,
  };
}

/** Throws, with what is wrong, when an answer does not conform. */
export function assertConforms(a: Answer): void {
  const v = checkAnswer(a);
  if (v.kind === 'invalid') throw new SpecViolation(v.message);
}

export class SpecViolation extends Error {
  override name = 'SpecViolation';
}
