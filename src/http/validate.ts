/**
 * Request validation: JSON Schema compiled once at start-up by Ajv into plain functions (no
 * interpretation per request), and one way to turn the first error into a readable 400. A compiled
 * check keeps the schema it was compiled from (`schema`, the very object): a route's description
 * names the check, and the OpenAPI document shows its schema (src/http/route-doc.ts).
 *
 * Strict input (docs/api.md, "Errors"): a check refuses a field its schema does not name,
 * at any depth (every object schema with `properties` is closed unless it says otherwise), with
 * 400 `unknown_field` naming it: the Admin API's bodies, where a misspelt field would otherwise be
 * a default silently taken. The Application API's bodies are checked `lenient`: an unknown field
 * is dropped from the parsed body before the handler sees it, so nothing unknown is ever stored.
 */
import { isText, isWebUrl } from '../lib/text.js';
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { fail, type HttpError } from '../lib/errors.js';
import type { Compiled, Schema } from './route-doc.js';

const ajv = new Ajv({ allErrors: false, strictNumbers: true, coerceTypes: false, useDefaults: false });
// `format: "email"` (a user's email: refused unless an address, before SMTP ever sees it).
formats.default(ajv, ['email']);
// `format: "http-url"` (a URL laurel stores: a badge, a logo): an absolute http or https URL.
ajv.addFormat('http-url', { type: 'string', validate: isWebUrl });

/** How deep a JSON body may nest (docs/api.md, "Strict input"): the top level's object or array is 1. */
export const MAX_JSON_DEPTH = 32;

/** Returns typed data or throws a 400 `invalid_body`. */
export type Validator<T> = ((data: unknown) => T) & Compiled;

/** Tells whether data is valid (lastError says why not). */
export type Check<T> = ((data: unknown) => data is T) & Compiled;

const FORMAT_WORDS: Record<string, string> = { email: 'an email address', 'http-url': 'an absolute http or https URL' };

/** A check's error in words: where (the body's path, dotted) and what. */
export function describe(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const where = path === '' ? 'body' : path;
  switch (e.keyword) {
    case 'required':
      return `${where === 'body' ? '' : where + '.'}${(e.params as { missingProperty: string }).missingProperty} is required`;
    case 'type': {
      const type = (e.params as { type: string | string[] }).type.toString().replace(',null', '').replace(',', ' or ');
      return `${where} must be ${type === 'number' ? 'a finite number' : type}`;
    }
    case 'format':
      return `${where} must be ${FORMAT_WORDS[(e.params as { format: string }).format] ?? `a ${(e.params as { format: string }).format}`}`;
    case 'enum':
      return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'additionalProperties':
      return `unknown field "${unknownField(e)}"`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

/** The unknown field an `additionalProperties` error names, with its path: `freezes[0].user`. */
function unknownField(e: ErrorObject): string {
  const at = e.instancePath.replace(/^\//, '').split('/').filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
  const field = (e.params as { additionalProperty: string }).additionalProperty;
  return at === '' ? field : `${at}.${field}`;
}

/** What a check does with a field its schema does not name: refuse it (the default), or drop it. */
export interface CheckOptions {
  /** Drop unknown fields from the data (the Application API's bodies) instead of refusing them. */
  lenient?: boolean;
}

/**
 * A copy of a schema with every object schema that lists `properties` and says nothing of others
 * closed (`additionalProperties: false`), at any depth.
 */
export function closedSchema(schema: Schema): Schema {
  const close = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(close);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && v !== null && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, close(sub)]));
      } else if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') {
        out[k] = v;
      } else {
        out[k] = close(v);
      }
    }
    if ('properties' in out && !('additionalProperties' in out) && !('patternProperties' in out)) out.additionalProperties = false;
    return out;
  };
  return close(schema) as Schema;
}

/**
 * Removes, in place, the fields of `data` that `schema` does not name where it lists
 * `properties` and says nothing of others; null when the schema has no such object.
 */
function dropper(schema: Schema): ((data: unknown) => void) | null {
  const children: [string, (data: unknown) => void][] = [];
  const props = schema.properties as Record<string, Schema> | undefined;
  if (props !== undefined) {
    for (const [name, sub] of Object.entries(props)) {
      const d = dropper(sub);
      if (d !== null) children.push([name, d]);
    }
  }
  const items = schema.items !== undefined && !Array.isArray(schema.items) ? dropper(schema.items as Schema) : null;
  const open = props === undefined || 'additionalProperties' in schema || 'patternProperties' in schema;
  if (open && children.length === 0 && items === null) return null;
  return (data) => {
    if (Array.isArray(data)) {
      if (items !== null) for (const x of data) items(x);
      return;
    }
    if (data === null || typeof data !== 'object') return;
    const o = data as Record<string, unknown>;
    if (!open) for (const k in o) if (!Object.prototype.hasOwnProperty.call(props, k)) delete o[k];
    for (const [name, d] of children) if (o[name] !== undefined) d(o[name]);
  };
}

/**
 * Compiles a schema into a check (Ajv keeps the schema object as the function's `schema`): closed
 * (closedSchema), so an unknown field fails it, unless `lenient`, where the schema is compiled as
 * written and a valid value loses its unknown fields.
 */
export function compileCheck<T>(schema: JSONSchemaType<T> | Schema, opts: CheckOptions = {}): Check<T> {
  if (opts.lenient !== true) return ajv.compile(closedSchema(schema as Schema)) as ValidateFunction<T> & Compiled;
  const check = ajv.compile(schema) as ValidateFunction<T> & Compiled;
  const drop = dropper(schema as Schema);
  if (drop === null) return check;
  const lenient = (data: unknown): data is T => {
    if (!check(data)) {
      lenient.errors = check.errors;
      return false;
    }
    drop(data);
    return true;
  };
  lenient.errors = null as ErrorObject[] | null | undefined;
  return Object.assign(lenient, { schema: check.schema as Schema });
}

/** The first error of the last failed check, or null. */
export function firstError(check: (data: unknown) => boolean): ErrorObject | null {
  const errors = (check as ValidateFunction).errors;
  return errors && errors.length > 0 ? errors[0] : null;
}

/** The readable message of the last failed check. */
export function lastError(check: (data: unknown) => boolean): string {
  const errors = (check as ValidateFunction).errors;
  return errors && errors.length > 0 ? describe(errors[0]) : 'is invalid';
}

/** The refusal of the last failed check: 400 `unknown_field` naming the field, else 400 `invalid_body`. */
export function refusalOf(check: (data: unknown) => boolean): HttpError {
  const errors = (check as ValidateFunction).errors;
  const first = errors && errors.length > 0 ? errors[0] : null;
  if (first !== null && first.keyword === 'additionalProperties') return fail('unknown_field', unknownField(first));
  return fail('invalid_body', lastError(check));
}

/** Compiles a schema (as compileCheck); the returned function returns typed data or throws the refusal (refusalOf). */
export function compile<T>(schema: JSONSchemaType<T> | Schema, opts: CheckOptions = {}): Validator<T> {
  const check = compileCheck<T>(schema, opts);
  const validate = (data: unknown): T => {
    if (!check(data)) throw refusalOf(check);
    return data;
  };
  return Object.assign(validate, { schema: check.schema });
}

/**
 * Parses a JSON body: empty and malformed bodies are 400s, and so are strings holding U+0000 or a
 * lone surrogate (written as \\u escapes: raw, JSON or UTF-8 does not allow them). They are not
 * text: Postgres refuses them, and one in the event log would stop its partition's copy there.
 */
export function parseJson(body: string | null): unknown {
  if (body === null || body === '') throw fail('empty_body');
  // Only white space is empty too: trim() (which copies) only when the first character may be.
  const first = body.charCodeAt(0);
  if ((first <= 32 || first > 126) && body.trim() === '') throw fail('empty_body');
  // A valid document nested past the limit is at least twice as long as the limit is deep.
  if (body.length > 2 * MAX_JSON_DEPTH && nestedPast(body, MAX_JSON_DEPTH)) {
    throw fail('malformed_json', `nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw fail('malformed_json', (err as Error).message);
  }
  // Only an escape can make them: the usual body has none, and is not walked.
  if (body.includes('\\u') && !isText(value)) {
    throw fail('malformed_json', 'strings must not hold U+0000 or an unpaired surrogate (\\u0000, \\ud800 to \\udfff alone)');
  }
  return value;
}


/** Whether JSON text opens more than `limit` objects and arrays inside each other (strings skipped). */
function nestedPast(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, past escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * The body of an Admin write that takes none (strict input, docs/api.md): empty, or `{}`; a field in
 * it is refused (400 `unknown_field` naming it), as any other body would be.
 */
export function refuseBody(body: string | null): void {
  if (body === null || body.trim() === '') return;
  const value = parseJson(body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('invalid_body', 'this operation takes no body (or {})');
  const first = Object.keys(value)[0];
  if (first !== undefined) throw fail('unknown_field', first);
}
