/**
 * The notifications due index's scores (src/domain/notifications/due-members.ts): the earliest
 * instant each occasion can be due in any zone, no later than its time in the zones furthest ahead
 * and behind, and the occasion found again from the score alone, across months, years and DST
 * changes; the arithmetic the same as luxon's times in UTC+14.
 */
import { describe, expect, it } from 'vitest';
import {
  EARLIEST_ZONE, dueMember, parseDueMember, reactivationLastDay, reactivationScore, recapIndexed, reminderPeriod, reminderScore,
} from '../../src/domain/notifications/due-members.js';
import { reactivationDue, recapDue, reminderDue } from '../../src/domain/notifications/timing.js';
import { dayIndexOf, periodOfDay, type Frequency } from '../../src/domain/periods.js';

const ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York', 'Europe/London', 'Asia/Kolkata', 'Etc/GMT+12'];
const DAYS = ['2026-01-01', '2026-03-08', '2026-03-29', '2026-06-30', '2026-10-25', '2026-11-01', '2026-12-31', '2028-02-29'];

describe('the due index scores', () => {
  it('finds the reminder period again, and no zone is due before the score', () => {
    for (const frequency of ['daily', 'weekly', 'monthly'] as Frequency[]) {
      for (const day of DAYS) {
        const period = periodOfDay(frequency, dayIndexOf(day));
        const score = reminderScore(frequency, period);
        expect(reminderPeriod(frequency, score), `${frequency} ${day}`).toBe(period);
        for (const tz of ZONES) expect(reminderDue(frequency, tz, period).at, tz).toBeGreaterThanOrEqual(score);
        expect(reminderDue(frequency, 'Pacific/Kiritimati', period).at).toBe(score);
        expect(reminderDue(frequency, EARLIEST_ZONE, period).at).toBe(score);
      }
    }
  });

  it('finds the last active day of an absence again; its first message due no earlier in any zone', () => {
    for (const day of DAYS) {
      const score = reactivationScore(day);
      expect(reactivationLastDay(score)).toBe(day);
      expect(reactivationDue(EARLIEST_ZONE, day, 1).at).toBe(score);
      for (const tz of ZONES) expect(reactivationDue(tz, day, 1).at, tz).toBeGreaterThanOrEqual(score);
    }
    expect(reactivationScore('2026-03-02')).toBeGreaterThan(reactivationScore('2026-03-01'));
  });

  it('names a recap by its period, the same in every zone', () => {
    for (const aggregation of ['weekly', 'monthly'] as const) {
      for (const day of DAYS) {
        const { occasion, score } = recapIndexed(aggregation, day);
        expect(recapDue(aggregation, EARLIEST_ZONE, day).at).toBe(score);
        for (const tz of ZONES) {
          const due = recapDue(aggregation, tz, day);
          expect(due.day).toBe(occasion);
          expect(due.at, tz).toBeGreaterThanOrEqual(score);
        }
      }
    }
  });

  it('reads back the members it writes, user ids of any form included, and nothing else', () => {
    for (const m of [
      { kind: 's', tenant: 't', userId: 'a|b"c', occasion: '' },
      { kind: 'r', tenant: '', userId: '\u00e9', occasion: '' },
      { kind: 'c', tenant: 'acme', userId: 'u1', occasion: 'recap:2026-03-02' },
    ] as const) expect(parseDueMember(dueMember(m))).toEqual(m);
    expect(dueMember({ kind: 'r', tenant: 't', userId: 'u', occasion: 'x' })).toBe(dueMember({ kind: 'r', tenant: 't', userId: 'u', occasion: '' }));
    for (const bad of ['', 'x', '["z","t","u"]', '["c","t","u"]', '[1,2,3]']) expect(parseDueMember(bad)).toBeNull();
  });
});
