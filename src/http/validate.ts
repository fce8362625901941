/**
 * Request validation: JSON Schema compiled once at start-up by Ajv into plain functions (no
 * interpretation per request), and one way to turn the first error into a readable 400. A compiled
 * check keeps the schema it was compiled from (`schema`, the very object): a route's description
 * names the check, and the OpenAPI document shows its schema (src/http/route-doc.ts).
 */
import { isText } from '../lib/text.js';
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import { fail } from '../lib/errors.js';
import type { Compiled, Schema } from './route-doc.js';

const ajv = new Ajv({ allErrors: false, strictNumbers: true, coerceTypes: false, useDefaults: false });

/** Returns typed data or throws a 400 `invalid_body`. */
export type Validator<T> = ((data: unknown) => T) & Compiled;

/** Tells whether data is valid (lastError says why not). */
export type Check<T> = ((data: unknown) => data is T) & Compiled;

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
    case 'enum':
      return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'additionalProperties':
      return `${where} has an unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

/** Compiles a schema into a check (Ajv keeps the schema object as the function's `schema`). */
export function compileCheck<T>(schema: JSONSchemaType<T> | Schema): Check<T> {
  return ajv.compile(schema) as ValidateFunction<T> & Compiled;
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

/** Compiles a schema; the returned function returns typed data or throws a 400 `invalid_body`. */
export function compile<T>(schema: JSONSchemaType<T> | Schema): Validator<T> {
  const check = compileCheck<T>(schema);
  const validate = (data: unknown): T => {
    if (!check(data)) throw fail('invalid_body', lastError(check));
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

