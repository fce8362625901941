/**
 * The period arithmetic of streaks against luxon, over random zones and instants (fast-check).
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { userTime } from '../../src/domain/clock.js';
import { currentPeriod, dateOfDay, dayIndexOf, firstDayOf, periodEnd, periodOfDay, periodStart, type Frequency } from '../../src/domain/periods.js';
import { streakJson, streakView, type StreakState } from '../../src/domain/streaks/state.js';
import { localMinute } from '../../src/domain/time.js';
import type { StreakSettings } from '../../src/model/entities.js';

const ZONES = [
  'UTC', 'Europe/London', 'Europe/Paris', 'America/New_York', 'America/Los_Angeles', 'America/Sao_Paulo',
  'Asia/Tokyo', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Sydney', 'Australia/Lord_Howe', 'Pacific/Auckland',
  'Pacific/Chatham', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/St_Johns', 'Africa/Casablanca',
];
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) });
const zone = fc.constantFrom(...ZONES);

describe('period arithmetic', () => {
  it('round-trips dates and day indices', () => {
    fc.assert(fc.property(fc.integer({ min: -30000, max: 60000 }), (day) => {
      expect(dayIndexOf(dateOfDay(day))).toBe(day);
    }));
    expect(dayIndexOf('1970-01-01')).toBe(0);
    expect(dateOfDay(20414)).toBe('2025-11-22');
  });

  it('gives the local minute of the day luxon gives, also around offset changes', () => {
    fc.assert(fc.property(instant, zone, fc.array(fc.integer({ min: -7_200_000, max: 7_200_000 }), { maxLength: 5 }), (ms, tz, steps) => {
      // Nearby instants too: the cache keeps the quarter hour it saw last.
      for (const t of [ms, ...steps.map((d) => ms + d)]) {
        const local = DateTime.fromMillis(t, { zone: tz });
        expect(localMinute(tz, t), `${tz} ${local.toISO()}`).toBe(local.hour * 60 + local.minute);
      }
    }), { numRuns: 400 });
    // Across a DST switch: Berlin's clocks went from 02:00 to 03:00 on 2026-03-29 (01:00 UTC).
    expect(localMinute('Europe/Berlin', Date.UTC(2026, 2, 29, 0, 59))).toBe(119);
    expect(localMinute('Europe/Berlin', Date.UTC(2026, 2, 29, 1, 0))).toBe(180);
    // Lord Howe moves by half an hour, at 02:00 local standard time (15:30 UTC).
    expect(localMinute('Australia/Lord_Howe', Date.UTC(2026, 9, 3, 15, 29))).toBe(119);
    expect(localMinute('Australia/Lord_Howe', Date.UTC(2026, 9, 3, 15, 30))).toBe(150);
    expect(localMinute('', Date.UTC(2026, 0, 1, 23, 59, 59))).toBe(1439);
  });

  it('puts every instant in the period luxon finds for the zone (day, Monday week, month)', () => {
    const check = (ms: number, tz: string) => {
      const local = DateTime.fromMillis(ms, { zone: tz });
      for (const [frequency, unit] of [['daily', 'day'], ['weekly', 'week'], ['monthly', 'month']] as const) {
        const { period } = currentPeriod(frequency, userTime(tz, null, ms));
        const start = local.startOf(unit).toISODate()!;
        expect(periodStart(frequency, period), `${tz} ${local.toISO()} ${frequency}`).toBe(start);
        // A period ends on the last calendar day of its unit, also where the zone skipped that day
        // (luxon's end of the unit in the zone is then the day before).
        expect(periodEnd(frequency, period), `${tz} ${local.toISO()} ${frequency}`)
          .toBe(DateTime.fromISO(start, { zone: 'utc' }).endOf(unit).toISODate());
      }
    };
    fc.assert(fc.property(instant, zone, (ms, tz) => check(ms, tz)), { numRuns: 400 });
    // Kiritimati skipped 1994-12-31 (from UTC-10 to UTC+14): December 1994 still ends on the 31st.
    check(786276000000, 'Pacific/Kiritimati');
    expect(periodEnd('monthly', currentPeriod('monthly', userTime('Pacific/Kiritimati', null, 786276000000)).period)).toBe('1994-12-31');
  });

  it('numbers consecutive periods consecutively, across DST switches', () => {
    fc.assert(fc.property(fc.integer({ min: -5000, max: 40000 }), fc.constantFrom<Frequency>('daily', 'weekly', 'monthly'), (day, frequency) => {
      const p = periodOfDay(frequency, day);
      expect(periodOfDay(frequency, firstDayOf(frequency, p))).toBe(p);
      expect(periodOfDay(frequency, firstDayOf(frequency, p + 1))).toBe(p + 1);
      expect(periodOfDay(frequency, firstDayOf(frequency, p + 1) - 1)).toBe(p);
    }));
    // Europe/Paris springs forward on 2026-03-29 (23 hours) and falls back on 2026-10-25 (25 hours).
    const tz = 'Europe/Paris';
    const days = ['2026-03-28T12:00', '2026-03-29T12:00', '2026-03-30T12:00', '2026-10-24T12:00', '2026-10-25T12:00', '2026-10-26T12:00']
      .map((iso) => currentPeriod('daily', userTime(tz, null, DateTime.fromISO(iso, { zone: tz }).toMillis())).period);
    expect(days[1] - days[0]).toBe(1);
    expect(days[2] - days[1]).toBe(1);
    expect(days[4] - days[3]).toBe(1);
    expect(days[5] - days[4]).toBe(1);
  });

  it('starts weeks on Monday and months on the first', () => {
    fc.assert(fc.property(fc.integer({ min: -2000, max: 8000 }), (week) => {
      expect(new Date(`${periodStart('weekly', week)}T00:00:00Z`).getUTCDay()).toBe(1);
      expect(new Date(`${periodEnd('weekly', week)}T00:00:00Z`).getUTCDay()).toBe(0);
    }));
    fc.assert(fc.property(fc.integer({ min: -300, max: 1500 }), (month) => {
      expect(periodStart('monthly', month).endsWith('-01')).toBe(true);
    }));
  });
});

describe('the event response streak', () => {
  it('writes the same JSON as JSON.stringify for any rule and state', () => {
    const frequency = fc.constantFrom<Frequency>('daily', 'weekly', 'monthly');
    const freezes = fc.option(fc.record({
      initial: fc.nat(5), max: fc.nat(100), autoEarnInterval: fc.nat(30), autoEarnAmount: fc.nat(3),
    }), { nil: null });
    const rule = fc.record({ frequency, freezes }).map((r): StreakSettings => ({
      id: 'streaks', created: '', updated: '', frequency: r.frequency, evaluation: 'all', metrics: [], freezes: r.freezes,
    }));
    const period = fc.integer({ min: 0, max: 3000 });
    const state = fc.option(fc.record({
      length: fc.nat(400), start: fc.option(period, { nil: null }), last: fc.option(period, { nil: null }),
      freezes: fc.nat(5), extended: fc.boolean(), longest: fc.nat(400), paused: fc.nat(3), run: fc.option(period, { nil: null }),
    }), { nil: null });
    fc.assert(fc.property(rule, state, period, fc.boolean(), (r, st: StreakState | null, now, extended) => {
      const view = streakView(r, st, now);
      expect(streakJson(view, extended)).toBe(JSON.stringify({ ...view, extended }));
    }), { numRuns: 500 });
  });
});
