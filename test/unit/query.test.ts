/**
 * The query parameters' checks (src/http/query.ts): each value given against its schema, the
 * calendar's dates, integers in their bounds, a parameter given twice, and the schemas the checks
 * cannot read refused when a route is registered.
 */
import { describe, expect, it } from 'vitest';
import { compileQuery, queryOf } from '../../src/http/query.js';
import type { Param } from '../../src/http/route-doc.js';
import { DATE_SCHEMA } from '../../src/domain/time.js';
import { HttpError } from '../../src/lib/errors.js';

const PARAMS: Param[] = [
  { name: 'a', schema: { type: 'string' } },
  { name: 'ids', schema: { type: 'array', maxItems: 3, items: { type: 'string' } } },
  { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
  { name: 'offset', schema: { type: 'integer', minimum: -5, maximum: 5, default: 0 } },
  { name: 'on', schema: { type: 'boolean', default: false } },
  { name: 'kind', schema: { enum: ['x', 'y'] } },
  { name: 'day', schema: DATE_SCHEMA },
  { name: 'short', schema: { type: 'string', minLength: 2, maxLength: 3 } },
];

const q = (query: string) => queryOf({ method: 'GET', url: '/x', query, queryParams: compileQuery('GET /x', PARAMS) });

/** The refusal's message, or null when it reads. */
function refusal(read: () => unknown): string | null {
  try {
    read();
    return null;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_query');
    return err.message;
  }
}

describe('query parameters', () => {
  it('reads the parameters a route lists, and refuses to read another', () => {
    expect(q('a=1&ids=2&ids=3').get('a')).toBe('1');
    expect(q('a=1&ids=2&ids=3').getAll('ids')).toEqual(['2', '3']);
    expect(() => q('c=1').get('c')).toThrow(/reads query parameter "c", which its route's description does not list/);
    expect(() => q('').getAll('c')).toThrow(/does not list/);
    // Parameters the route does not list are ignored.
    expect(q('a=1&other=%00').get('a')).toBe('1');
  });

  it('checks every parameter the query gives before any is read, in the order the route lists them', () => {
    expect(refusal(() => q('a=1&limit=x'))).toBe('Invalid query parameter: limit must be an integer from 1 to 100, got "x"');
    expect(refusal(() => q('day=0000-01-01&limit=0').get('a'))).toMatch(/^Invalid query parameter: limit /);
  });

  it('takes an empty value as an absent one, and a default in its place', () => {
    expect(q('a=').get('a')).toBeNull();
    expect(q('limit=').int('limit')).toBe(10);
    expect(q('').int('limit')).toBe(10);
    expect(q('on=').bool('on')).toBe(false);
    expect(q('on=true').bool('on')).toBe(true);
    expect(() => q('').int('kind')).toThrow(/for its default, which its schema lacks/);
  });

  it('takes integers as decimal digits within their bounds only', () => {
    expect(q('limit=1').int('limit')).toBe(1);
    expect(q('limit=100').int('limit')).toBe(100);
    expect(q('limit=007').int('limit')).toBe(7);
    for (const bad of ['0', '101', '-1', '-0', '1e2', '0x10', '1.5', ' 7', '7 ', 'NaN', 'Infinity', '-Infinity', '1e309', '99999999999999999999999', '٣']) {
      expect(refusal(() => q(`limit=${encodeURIComponent(bad)}`).int('limit')), bad).toBe(`Invalid query parameter: limit must be an integer from 1 to 100, got ${JSON.stringify(bad)}`);
    }
  });

  it('takes a sign only where the minimum is negative', () => {
    expect(q('offset=-5').int('offset')).toBe(-5);
    expect(q('offset=-0').int('offset')).toBe(0);
    expect(Object.is(q('offset=-0').int('offset'), 0)).toBe(true);
    expect(q('offset=5').int('offset')).toBe(5);
    for (const bad of ['-6', '6', '+1', '--1', '- 1', '-', '-1.5', '-1e0']) {
      expect(refusal(() => q(`offset=${encodeURIComponent(bad)}`).int('offset')), bad).toBe(`Invalid query parameter: offset must be an integer from -5 to 5, got ${JSON.stringify(bad)}`);
    }
  });

  it('takes dates of laurel\'s calendar only: 1970-01-01 to 9999-12-31', () => {
    for (const good of ['1970-01-01', '2024-02-29', '9999-12-31']) expect(q(`day=${good}`).get('day')).toBe(good);
    for (const bad of ['0000-01-01', '0000-01-20', '1969-12-31', '-0001-01-01', '+010000-01-01', '10000-01-01', '2023-02-29', '2026-13-01', '2026-3-1', 'soon', '２０２６-01-01']) {
      expect(refusal(() => q(`day=${encodeURIComponent(bad)}`).get('day')), bad)
        .toBe(`Invalid query parameter: day must be a date as YYYY-MM-DD from 1970-01-01 to 9999-12-31, got ${JSON.stringify(bad)}`);
    }
  });

  it('takes booleans, enums and strings as their schemas say', () => {
    expect(refusal(() => q('on=1').bool('on'))).toBe('Invalid query parameter: on must be true or false, got "1"');
    expect(refusal(() => q('kind=z').get('kind'))).toBe('Invalid query parameter: kind must be one of x, y, got "z"');
    expect(q('kind=y').get('kind')).toBe('y');
    expect(refusal(() => q('short=a').get('short'))).toBe('Invalid query parameter: short must have 2 to 3 characters');
    expect(refusal(() => q('short=abcd').get('short'))).toBe('Invalid query parameter: short must have 2 to 3 characters');
    // Characters, not UTF-16 units.
    expect(q(`short=${encodeURIComponent('😀😀😀')}`).get('short')).toBe('😀😀😀');
    expect(refusal(() => q('a=x%00y').get('a'))).toBe('Invalid query parameter: a must not contain a NUL character');
    // A long value is quoted back cut.
    expect(refusal(() => q(`kind=${'z'.repeat(1000)}`).get('kind'))).toBe(`Invalid query parameter: kind must be one of x, y, got "${'z'.repeat(40)}…"`);
  });

  it('refuses a parameter given more often than it may be', () => {
    expect(refusal(() => q('limit=1&limit=2').int('limit'))).toBe('Invalid query parameter: limit may be given once only');
    expect(refusal(() => q('a=1&a=1').get('a'))).toBe('Invalid query parameter: a may be given once only');
    expect(refusal(() => q('ids=1&ids=2&ids=3&ids=4').getAll('ids'))).toBe('Invalid query parameter: ids may list at most 3 items');
  });

  it('refuses, when a route is registered, a schema the checks cannot read', () => {
    const compile = (schema: Record<string, unknown>) => () => compileQuery('GET /y', [{ name: 'p', schema }]);
    expect(compile({ type: 'integer', minimum: 0 })).toThrow('GET /y: query parameter "p" is an integer without a safe minimum and maximum');
    expect(compile({ type: 'integer', minimum: 0, maximum: Infinity })).toThrow(/without a safe minimum and maximum/);
    expect(compile({ type: 'number', minimum: 0, maximum: 1 })).toThrow(/has a type the query checks do not know: number/);
    expect(compile({ type: 'string', format: 'email' })).toThrow(/has a format the query checks do not know: email/);
    expect(compile({ type: 'string', exclusiveMinimum: 1 })).toThrow(/has schema keywords the query checks do not know: exclusiveMinimum/);
    expect(compile({ type: 'array', items: { type: 'string' } })).toThrow(/is an array without maxItems/);
  });
});
