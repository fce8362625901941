/**
 * `occurredAt` read (src/domain/event-time.ts), as properties: any instant written with any offset
 * reads back as that instant; a calendar date that does not exist, or any other text, reads as none
 * and never throws; the window's two ends are in it, a millisecond past either is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AHEAD_MS, instantOf, occurredAtOf } from '../../src/domain/event-time.js';
import { HttpError } from '../../src/lib/errors.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `ms` written in the wall time of `offset` minutes east of UTC, with that offset (or Z for 0 when `z`). */
function written(ms: number, offset: number, z: boolean): string {
  const d = new Date(ms + offset * 60_000);
  const wall = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}` +
    `:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
  if (offset === 0 && z) return `${wall}Z`;
  const a = Math.abs(offset);
  return `${wall}${offset < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

describe('occurredAt', () => {
  it('reads any instant written with any offset as that instant', () => {
    fc.assert(fc.property(
      fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2099, 11, 31) }), fc.integer({ min: -14 * 4, max: 14 * 4 }), fc.boolean(),
      (ms, quarters, z) => { expect(instantOf(written(ms, quarters * 15, z))).toBe(ms); },
    ), { numRuns: 2000 });
  });

  it('reads no instant from a date that does not exist or from other text, without throwing', () => {
    for (const text of ['2026-02-29T10:00:00Z', '2026-04-31T10:00:00Z', '2026-13-01T10:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:60:00Z',
      '2026-01-01T10:00:60Z', '2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00', '2026-01-01', '']) {
      expect(instantOf(text), text).toBeNull();
    }
    expect(instantOf('2028-02-29T10:00:00Z')).toBe(Date.UTC(2028, 1, 29, 10));
    fc.assert(fc.property(fc.string(), (text) => {
      const at = instantOf(text);
      expect(at === null || Number.isFinite(at)).toBe(true);
    }), { numRuns: 2000 });
  });

  it('takes the window\'s two ends and refuses a millisecond past either', () => {
    const arrival = Date.UTC(2026, 10, 30, 12);
    const week = 7 * 86_400_000;
    const code = (ms: number) => {
      try {
        occurredAtOf(new Date(ms).toISOString(), arrival, week);
        return 'accepted';
      } catch (err) {
        return err instanceof HttpError ? err.code : String(err);
      }
    };
    expect([code(arrival - week), code(arrival + AHEAD_MS)]).toEqual(['accepted', 'accepted']);
    expect([code(arrival - week - 1), code(arrival + AHEAD_MS + 1)]).toEqual(['occurred_at_out_of_window', 'occurred_at_out_of_window']);
  });
});
