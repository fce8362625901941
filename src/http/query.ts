/**
 * Query parameters, checked like bodies. A route's description lists every query parameter its
 * handler reads, each with the schema of its value (src/http/route-doc.ts); compileQuery turns
 * those schemas into checks when the server registers the route (a schema it cannot check
 * throws there, at start-up), and a handler reads its parameters through queryOf, which checks
 * every value the query gives before the handler reads any. A value its schema refuses is a 400
 * `invalid_query` naming the parameter (422 on the calls whose description says so:
 * src/http/server.ts).
 *
 * What the checks take (docs/api.md, "Query parameters and the calendar"):
 * - every value: no U+0000 (no stored text holds one, and Postgres refuses it); empty is absent;
 * - a parameter that is not an array: given once at most; an array: at most `maxItems` times;
 * - `integer`: decimal digits only (no exponent, fraction or spaces; a sign `-` only where the
 *   schema's `minimum` is negative, never `+`), from the schema's `minimum` to its `maximum` (every
 *   integer parameter has both: no huge or unbounded number);
 * - `boolean`: `true` or `false`; `enum`: one of its values;
 * - `string`: `minLength` and `maxLength` (in characters), `pattern`, and with `format: 'date'`
 *   a calendar date of laurel's calendar, YYYY-MM-DD from 1970-01-01 to 9999-12-31.
 */
import { CALENDAR_FIRST, CALENDAR_LAST, parseDate } from '../domain/time.js';
import { fail } from '../lib/errors.js';
import type { Param } from './route-doc.js';

/** The refusal of a value (the message after "Invalid query parameter: "), or null. */
type Check = (raw: string) => string | null;

/** A parameter a route lists, with its check. */
export interface QueryParam {
  readonly param: Param;
  readonly array: boolean;
  /** How often it may be given: 1, or an array's `maxItems`. */
  readonly most: number;
  readonly check: Check;
}

/** The parameters a route lists, by name. */
export type QueryParams = ReadonlyMap<string, QueryParam>;

/** The schema keywords the checks understand; any other is a start-up error. */
const KNOWN = new Set(['type', 'enum', 'minimum', 'maximum', 'default', 'minLength', 'maxLength', 'pattern', 'format', 'items', 'minItems', 'maxItems', 'description']);

/** At most this much of a refused value is quoted back. */
const QUOTED = 40;

function quote(raw: string): string {
  const chars = [...raw];
  return JSON.stringify(chars.length > QUOTED ? `${chars.slice(0, QUOTED).join('')}…` : raw);
}

function checkOf(route: string, p: Param): Check {
  const s = p.schema;
  const unknown = Object.keys(s).filter((k) => !KNOWN.has(k));
  const bad = (why: string): Error => new Error(`${route}: query parameter "${p.name}" ${why}`);
  if (unknown.length > 0) throw bad(`has schema keywords the query checks do not know: ${unknown.join(', ')}`);
  const { name } = p;
  if (Array.isArray(s.enum)) {
    const values = (s.enum as unknown[]).map(String);
    return (raw) => (values.includes(raw) ? null : `${name} must be one of ${values.join(', ')}, got ${quote(raw)}`);
  }
  switch (s.type) {
    case 'integer': {
      const { minimum: min, maximum: max } = s;
      if (typeof min !== 'number' || typeof max !== 'number' || !Number.isSafeInteger(min) || !Number.isSafeInteger(max)) {
        throw bad('is an integer without a safe minimum and maximum');
      }
      const digits = min < 0 ? /^-?\d+$/ : /^\d+$/;
      return (raw) => {
        // -0 is 0.
        const n = Number(raw) || 0;
        return digits.test(raw) && n >= min && n <= max ? null : `${name} must be an integer from ${min} to ${max}, got ${quote(raw)}`;
      };
    }
    case 'boolean':
      return (raw) => (raw === 'true' || raw === 'false' ? null : `${name} must be true or false, got ${quote(raw)}`);
    case 'string': {
      if (s.format !== undefined && s.format !== 'date') throw bad(`has a format the query checks do not know: ${String(s.format)}`);
      const min = typeof s.minLength === 'number' ? s.minLength : 0;
      const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
      const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : null;
      const date = s.format === 'date';
      return (raw) => {
        if (date) {
          return parseDate(raw) !== null ? null
            : `${name} must be a date as YYYY-MM-DD from ${CALENDAR_FIRST} to ${CALENDAR_LAST}, got ${quote(raw)}`;
        }
        const length = [...raw].length;
        if (length < min || length > max) return `${name} must have ${min} to ${max === Infinity ? 'any number of' : max} characters`;
        if (pattern !== null && !pattern.test(raw)) return `${name} must match ${s.pattern as string}, got ${quote(raw)}`;
        return null;
      };
    }
    case 'array': {
      // The items are the handler's to split (repeated, or once, comma-separated) and check.
      if (typeof s.maxItems !== 'number') throw bad('is an array without maxItems');
      return () => null;
    }
    default:
      throw bad(`has a type the query checks do not know: ${String(s.type)}`);
  }
}

const compiled = new WeakMap<readonly Param[], QueryParams>();

/** The checks of a route's query parameters (`route` names it in a start-up error); memoised. */
export function compileQuery(route: string, params: readonly Param[]): QueryParams {
  let out = compiled.get(params);
  if (out === undefined) {
    out = new Map(params.map((param) => {
      const array = param.schema.type === 'array';
      return [param.name, { param, array, most: array ? param.schema.maxItems as number : 1, check: checkOf(route, param) }];
    }));
    compiled.set(params, out);
  }
  return out;
}

/** A request's query parameters, as a handler reads them: each value checked against its schema. */
export interface Query {
  /** The value, or null when absent or empty. */
  get(name: string): string | null;
  /** Every value given (an array parameter's), empty ones left out. */
  getAll(name: string): string[];
  /** An integer parameter's value, or its schema's default when absent. */
  int(name: string): number;
  /** A boolean parameter's value, or its schema's default (false without one) when absent. */
  bool(name: string): boolean;
}

/** What queryOf reads of a request (src/http/server.ts Request). */
export interface QueryRequest {
  method: string;
  url: string;
  /** Raw query string, without `?`. */
  query: string;
  queryParams: QueryParams;
}

/**
 * The request's query, parsed and checked once: every parameter the route lists that the query
 * gives, in the order the route lists them, whether the handler goes on to read it or not (as a
 * body's fields are). A handler reads only the parameters its route's description lists, so the
 * OpenAPI document names every one: reading another is a bug, thrown as one (a 500), which any
 * test of the route meets. Parameters the route does not list are ignored.
 */
export function queryOf(req: QueryRequest): Query {
  const params = new URLSearchParams(req.query);
  const values = new Map<string, string[]>();
  for (const [name, p] of req.queryParams) {
    const all = params.getAll(name);
    if (all.length === 0) continue;
    if (all.length > p.most) {
      throw fail('invalid_query', p.array ? `${name} may list at most ${p.most} items` : `${name} may be given once only`);
    }
    const given = all.filter((v) => v !== '');
    for (const v of given) {
      if (v.includes('\0')) throw fail('invalid_query', `${name} must not contain a NUL character`);
      const refusal = p.check(v);
      if (refusal !== null) throw fail('invalid_query', refusal);
    }
    values.set(name, given);
  }
  const listed = (name: string): QueryParam => {
    const p = req.queryParams.get(name);
    if (p === undefined) throw new Error(`${req.method} ${req.url} reads query parameter "${name}", which its route's description does not list`);
    return p;
  };
  const getAll = (name: string): string[] => {
    listed(name);
    return values.get(name) ?? [];
  };
  const get = (name: string): string | null => getAll(name)[0] ?? null;
  const fallback = (name: string): unknown => {
    const d = listed(name).param.schema.default;
    if (d === undefined) throw new Error(`${req.method} ${req.url} reads query parameter "${name}" for its default, which its schema lacks`);
    return d;
  };
  return {
    get,
    getAll,
    int(name) {
      const raw = get(name);
      return raw === null ? fallback(name) as number : Number(raw) || 0;
    },
    bool(name) {
      const raw = get(name);
      if (raw !== null) return raw === 'true';
      return listed(name).param.schema.default === true;
    },
  };
}
