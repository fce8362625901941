/**
 * The values the fuzz suite (test/api/fuzz-openapi.test.ts) sends beside what the schemas allow:
 * hostile dates, numbers and strings for query parameters, odd path segments, and client messages
 * for the live updates' WebSocket (docs/live.md), as fast-check arbitraries or fixed lists.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

/** Dates outside laurel's calendar or no dates at all, and the calendar's edges. */
export const HOSTILE_DATES = [
  '0000-01-01', '0000-01-20', '0001-01-01', '-000001-12-26', '-0001-01-01', '+010000-01-01', '10000-01-01', '275760-09-13',
  '1969-12-31', '1970-01-01', '9999-12-31', '9999-01-01', '2026-02-30', '2024-02-29', '2026-13-01', '2026-6-1', 'today',
];

/** Numbers JavaScript reads as something else, out of range, or not at all. */
export const HOSTILE_NUMBERS = [
  'NaN', 'Infinity', '-Infinity', '1e309', '-1e309', '-0', '+1', '-1', '1e2', '0x10', '0b1', '1.5', '1.', ' 7', '7 ', '1_000',
  '9007199254740993', '18446744073709551616', '9'.repeat(400), '１', '٣',
];

/** Strings of every sort: empty, blank, NUL, lone surrogate, long, lists, markup, JSON. */
export const HOSTILE_TEXT = [
  '', ' ', '\u0000', '\ud800', 'é', '%', '../..', 'x'.repeat(3000), 'true', 'null', '[]', '{}', 'a,b,,c', ',', ':', 'key:', ':v',
  'a:b,a:c', '{{ user.name }}', '<script>', 'user:fuzz-user',
];

/** Bytes of a query or path that are no text once decoded (sent as they are, not encoded again). */
export const RAW_ESCAPES = ['%', '%zz', '%00', '%C3', '%ED%A0%80', '%FF', '%F4%90%80%80'];

/** Path segments: escapes that are no text, dots, slashes, long ones, and the hostile values above. */
export const HOSTILE_SEGMENTS = [
  ...RAW_ESCAPES, '.', '..', '%2E%2E', '%2F', '%20', 'a'.repeat(255), 'a'.repeat(256), 'x'.repeat(8000),
  ...['NaN', '-0', '1e309', '0000-01-01', '10000-01-01', '\u0000', '\ud800', '{{x}}'].map(encode),
];

/** Percent-encoding; a lone surrogate (not text) as the bytes CESU-8 would give it, which are not UTF-8. */
export function encode(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
}

/** Whether a schema describes a date (laurel's `format: 'date'`, or a date's pattern). */
export function isDate(schema: Schema): boolean {
  return schema.format === 'date' || (typeof schema.pattern === 'string' && schema.pattern.includes('\\d{4}-'));
}

/** A few of every kind, for the parameters of another kind. */
const ANY_KIND = ['', ' ', '\u0000', '\ud800', 'x'.repeat(3000), 'NaN', '1e309', '-0', '0000-01-01', 'a,b,,c', '{{ user.name }}'];

/** The hostile values for a parameter of `schema`: its edges and its kind's, and a few of every kind. */
export function hostileFor(schema: Schema): string[] {
  const type = schema.type;
  const edges: string[] = [];
  let kind: string[] = HOSTILE_TEXT;
  if (type === 'integer' || type === 'number') {
    const { minimum: min, maximum: max } = schema;
    if (typeof min === 'number') edges.push(String(min - 1), String(min));
    if (typeof max === 'number') edges.push(String(max), String(max + 1));
    kind = HOSTILE_NUMBERS;
  } else if (isDate(schema)) {
    kind = HOSTILE_DATES;
  }
  if (typeof schema.maxLength === 'number') edges.push('a'.repeat(schema.maxLength), 'a'.repeat(schema.maxLength + 1));
  if (Array.isArray(schema.enum)) edges.push(...schema.enum.map(String), `${String(schema.enum[0])}x`, String(schema.enum[0]).toUpperCase());
  if (type === 'boolean') edges.push('true', 'false', 'TRUE', '1', 'yes');
  return [...new Set([...edges, ...kind, ...ANY_KIND])];
}

/**
 * A value `schema` takes, as a query or path carries it (the known values where a string is free,
 * so that requests get past the 404s).
 */
export function goodFor(schema: Schema, known: string[]): string {
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (isDate(schema)) return '2026-06-01';
  switch (schema.type) {
    case 'integer': return String(schema.default ?? schema.minimum ?? 1);
    case 'boolean': return 'true';
    case 'array': return goodFor((schema.items ?? {}) as Schema, known);
    default: return known[0] ?? 'x';
  }
}

/** A date from laurel's whole calendar, its edges more often. */
export const calendarDate: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
  { weight: 1, arbitrary: fc.constantFrom('1970-01-01', '9999-12-31', '2026-06-01', '2026-05-20') },
);

/** What a client might send on `/v1/live`: `topics` are topics that exist (others are made up). */
export function liveMessage(topics: string[]): fc.Arbitrary<string | Uint8Array> {
  const topic = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...topics) },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map((s) => `user:${s}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => `leaderboard:${s}`) },
    { weight: 1, arbitrary: fc.constantFrom('user:', 'leaderboard:', 'user', '', 'user:\u0000', `user:${'x'.repeat(400)}`, 'bogus:1') },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  );
  // `since` as JSON text: numbers JSON.parse reads as Infinity, -0, or past 2^53; and other types.
  const sinceText = fc.oneof(
    fc.bigInt({ min: 0n, max: 2n ** 53n }).map(String),
    fc.constantFrom('-1', '-0', '0', '1.5', '1e309', '-1e309', '18446744073709551616', '9007199254740993', '1e2', '"1"', 'null', 'true', '{}', '[]'),
  );
  const list = (min: number, max: number) => fc.array(topic, { minLength: min, maxLength: max });
  const subscribe = fc.tuple(list(0, 8), fc.array(fc.tuple(fc.oneof(fc.constantFrom(...topics), fc.string({ maxLength: 10 })), sinceText), { maxLength: 3 }), fc.boolean())
    .map(([ts, since, withSince]) => {
      const head = `{"subscribe":${JSON.stringify(ts)}`;
      if (!withSince) return `${head}}`;
      return `${head},"since":{${since.map(([t, s]) => `${JSON.stringify(t)}:${s}`).join(',')}}}`;
    });
  return fc.oneof(
    { weight: 6, arbitrary: subscribe },
    { weight: 2, arbitrary: list(0, 8).map((ts) => JSON.stringify({ unsubscribe: ts })) },
    // Many topics: past the 100 a message and a socket may hold (a message stays under its 64 KiB).
    { weight: 1, arbitrary: fc.integer({ min: 90, max: 5000 }).map((n) => JSON.stringify({ subscribe: Array.from({ length: n }, (_, i) => `user:u${i}`) })) },
    { weight: 1, arbitrary: fc.constantFrom(...topics).map((t) => JSON.stringify({ subscribe: [t], unsubscribe: [t] })) },
    { weight: 1, arbitrary: fc.constantFrom(...topics).map((t) => JSON.stringify({ unsubscribe: [t], since: { [t]: 1 } })) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: 30, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'null', '"subscribe"', '{"subscribe":"user:fuzz-user"}', '{"subscribe":[]}', '{"since":{}}', '{"subscribe":["user:fuzz-user"],"since":[]}') },
    // Binary frames, and bytes that are no UTF-8 text.
    { weight: 2, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 64 }) },
  );
}
