/**
 * The anniversaries' calendar (src/domain/anniversaries.ts): the N-th anniversary of a day
 * (February 29th on the 28th in a year without one), the start of a day in UTC+14 never after its
 * start in any zone (fast-check over zones and dates), and when the workers look at a user next.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { anniversaryDate, dayStart, earliestStart, nextLook } from '../../src/domain/anniversaries.js';

const ZONES = [
  'UTC', 'Europe/London', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo', 'Asia/Kathmandu', 'Australia/Lord_Howe',
  'Pacific/Chatham', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Pacific/Apia', 'America/Santiago', 'Africa/Casablanca',
];
const date = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2080, 0, 1) }).map((ms) => new Date(ms).toISOString().slice(0, 10));

describe('anniversaries on the user\'s calendar', () => {
  it('falls on the same month and day, February 29th on the 28th in a year without one', () => {
    expect(anniversaryDate('2024-03-10', 1)).toBe('2025-03-10');
    expect(anniversaryDate('2024-02-29', 1)).toBe('2025-02-28');
    expect(anniversaryDate('2024-02-29', 4)).toBe('2028-02-29');
    expect(anniversaryDate('2096-02-29', 4)).toBe('2100-02-28');
    expect(anniversaryDate('1996-02-29', 4)).toBe('2000-02-29');
    expect(anniversaryDate('2023-12-31', 10)).toBe('2033-12-31');
    fc.assert(fc.property(date, fc.integer({ min: 1, max: 100 }), (d, years) => {
      const a = anniversaryDate(d, years);
      // A real calendar date, the given number of years on.
      expect(DateTime.fromISO(a, { zone: 'UTC' }).isValid).toBe(true);
      expect(Number(a.slice(0, 4)) - Number(d.slice(0, 4))).toBe(years);
    }));
  });

  it('begins a day in UTC+14 no later than in any zone, and exactly there in Kiritimati', () => {
    fc.assert(fc.property(date, fc.constantFrom(...ZONES), (d, tz) => {
      expect(earliestStart(d)).toBeLessThanOrEqual(dayStart(d, tz));
    }), { numRuns: 500 });
    expect(earliestStart('2025-03-10')).toBe(Date.parse('2025-03-09T10:00:00Z'));
    expect(dayStart('2025-03-10', 'Pacific/Kiritimati')).toBe(earliestStart('2025-03-10'));
    expect(dayStart('2025-03-10', 'Pacific/Pago_Pago')).toBe(Date.parse('2025-03-10T11:00:00Z'));
    expect(dayStart('2025-03-10', '')).toBe(Date.parse('2025-03-10T00:00:00Z'));
  });

  it('looks when the day can have begun somewhere, then when it begins in the user\'s zone', () => {
    expect(nextLook('2025-03-10', 'America/New_York', Date.parse('2024-06-01T00:00:00Z'))).toBe(Date.parse('2025-03-09T10:00:00Z'));
    expect(nextLook('2025-03-10', 'America/New_York', Date.parse('2025-03-09T10:00:00Z'))).toBe(Date.parse('2025-03-10T04:00:00Z'));
  });
});
