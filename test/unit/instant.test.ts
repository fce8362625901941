/**
 * The instants laurel takes (src/domain/time.ts parseInstant, and the audit log's `from` and `to`,
 * src/domain/audit.ts auditInstant): an ISO-8601 date-time of laurel's calendar with an hour from
 * 00 to 23 and an offset from -23:59 to +23:59, read as the instant it names; an hour 24, an offset
 * out of range (`+99:99`, `+24:00`, `-25:00`, `+05:60`) and any other malformed text are none.
 */
import { describe, expect, it } from 'vitest';
import { auditInstant } from '../../src/domain/audit.js';
import { parseInstant } from '../../src/domain/time.js';

describe('parseInstant', () => {
  it('reads a date-time with Z, an offset within 23:59, or the compact forms, as the instant it names', () => {
    expect(parseInstant('2026-03-02T08:00:00Z')).toBe(Date.UTC(2026, 2, 2, 8));
    expect(parseInstant('2026-03-02T08:00:00.250+01:00')).toBe(Date.UTC(2026, 2, 2, 7, 0, 0, 250));
    expect(parseInstant('2026-03-02T08:00:00.123456789Z')).toBe(Date.UTC(2026, 2, 2, 8, 0, 0, 123));
    expect(parseInstant('2026-03-02T23:59:59+23:59')).toBe(Date.UTC(2026, 2, 2, 0, 0, 59));
    expect(parseInstant('2026-03-02T00:00:00-23:59')).toBe(Date.UTC(2026, 2, 2, 23, 59));
    expect(parseInstant('2026-03-02T08:00-05:30')).toBe(Date.UTC(2026, 2, 2, 13, 30));
    expect(parseInstant('2026-03-02T0800+0100')).toBe(Date.UTC(2026, 2, 2, 7));
    expect(parseInstant('2026-03-02T08:00:00+01')).toBe(Date.UTC(2026, 2, 2, 7));
    expect(parseInstant('9999-12-31T23:59:59.999Z')).toBe(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
  });

  it('refuses an offset or an hour out of range, and any other malformed instant', () => {
    for (const text of [
      '2026-03-02T08:00:00+99:99', '2026-03-02T08:00:00+24:00', '2026-03-02T08:00:00-25:00', '2026-03-02T08:00:00+05:60',
      '2026-03-02T08:00:00+2400', '2026-03-02T08:00:00-99', '2026-03-02T24:00:00Z', '2026-03-02T24:00Z', '2026-03-02T25:00:00Z',
      '2026-03-02T08:60:00Z', '2026-03-02T08:00:60Z', '2026-03-02T08:00:00.1234567891Z', '2026-03-02T08:00:00+01:00[Europe/Paris]',
      '2026-03-02T08:00:00 +01:00', '2026-03-02T08:00:00+1:00', '2026-02-30T08:00:00Z', '2026-03-02', '2026-03-02T', 'T08:00Z', '',
      '1969-12-31T23:59:59Z', '1970-01-01T00:30:00+01:00', '9999-12-31T23:00:00-05:00', '+010000-01-01T00:00:00Z',
    ]) {
      expect(parseInstant(text), text).toBeNull();
    }
  });
});

describe('auditInstant', () => {
  it('reads a date as its UTC day\'s start (from) or end (to), an instant as itself, and refuses an offset out of range', () => {
    expect(auditInstant('2026-03-02', false)).toBe(Date.UTC(2026, 2, 2));
    expect(auditInstant('2026-03-02', true)).toBe(Date.UTC(2026, 2, 3));
    expect(auditInstant('2026-03-02T08:00:00+01:00', false)).toBe(Date.UTC(2026, 2, 2, 7));
    for (const text of ['2026-03-02T08:00:00+99:99', '2026-03-02T08:00:00+24:00', '2026-03-02T08:00:00-25:00']) {
      expect(auditInstant(text, false), text).toBeNull();
      expect(auditInstant(text, true), text).toBeNull();
    }
  });
});
