/**
 * The notifications' pure rules: when an achievement email is due (zones on either side of the
 * date line, DST days both ways, the 21:00 cut, a completion seen late), the control group's hash
 * and ratio history, and the Liquid checks of each type's variables.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { achievementDue, nextDay, reactivationDue, reminderDue } from '../../src/domain/notifications/timing.js';
import { userTime } from '../../src/domain/clock.js';
import { currentPeriod } from '../../src/domain/periods.js';
import { controlPoint, isControl, ratioAt } from '../../src/domain/notifications/rules.js';
import { checkTemplateText } from '../../src/domain/notifications/templates.js';
import type { NotificationSettings } from '../../src/model/entities.js';

const ms = (iso: string, zone: string) => DateTime.fromISO(iso, { zone }).toMillis();
const utc = (x: number) => new Date(x).toISOString();

describe('achievementDue', () => {
  it('is 17:00 local on the day of a completion before it, in zones either side of the date line', () => {
    expect(achievementDue('Pacific/Kiritimati', ms('2026-06-02T10:00', 'Pacific/Kiritimati'))).toEqual({ day: '2026-06-02', at: Date.parse('2026-06-02T03:00:00Z') });
    expect(achievementDue('Pacific/Pago_Pago', ms('2026-06-02T10:00', 'Pacific/Pago_Pago'))).toEqual({ day: '2026-06-02', at: Date.parse('2026-06-03T04:00:00Z') });
  });

  it('keeps the local hour on DST days, both ways', () => {
    const ny = 'America/New_York';
    expect(utc(achievementDue(ny, ms('2026-03-08T01:30', ny)).at)).toBe('2026-03-08T21:00:00.000Z');
    expect(utc(achievementDue(ny, ms('2026-03-07T10:00', ny)).at)).toBe('2026-03-07T22:00:00.000Z');
    expect(utc(achievementDue(ny, ms('2026-11-01T01:30', ny)).at)).toBe('2026-11-01T22:00:00.000Z');
    expect(utc(nextDay(ny, '2026-03-07').at)).toBe('2026-03-08T21:00:00.000Z');
  });

  it('is at once from 17:00 to before 21:00, and 17:00 the next day from 21:00', () => {
    const z = 'Europe/Paris';
    const at = (t: string) => achievementDue(z, ms(`2026-06-02T${t}`, z));
    expect(at('17:00')).toEqual({ day: '2026-06-02', at: ms('2026-06-02T17:00', z) });
    expect(at('20:59:59.999')).toEqual({ day: '2026-06-02', at: ms('2026-06-02T20:59:59.999', z) });
    expect(at('21:00')).toEqual({ day: '2026-06-03', at: ms('2026-06-03T17:00', z) });
    expect(at('23:59')).toEqual({ day: '2026-06-03', at: ms('2026-06-03T17:00', z) });
  });

  it('moves a completion seen after its day\'s window to the next day, and keeps one seen within it', () => {
    const z = 'UTC';
    expect(achievementDue(z, ms('2026-06-02T10:00', z), ms('2026-06-02T18:00', z))).toEqual({ day: '2026-06-02', at: ms('2026-06-02T17:00', z) });
    expect(achievementDue(z, ms('2026-06-02T10:00', z), ms('2026-06-02T22:00', z))).toEqual({ day: '2026-06-03', at: ms('2026-06-03T17:00', z) });
    expect(achievementDue(z, ms('2026-06-02T10:00', z), ms('2026-06-05T09:00', z))).toEqual({ day: '2026-06-05', at: ms('2026-06-05T17:00', z) });
  });
});

describe('reminderDue', () => {
  const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'utc' }).toMillis();
  const local = (iso: string, tz: string) => DateTime.fromISO(iso, { zone: tz }).toMillis();
  /** The reminder of the period after the one `day` is in, in `tz`. */
  const after = (frequency: 'daily' | 'weekly' | 'monthly', tz: string, day: string) =>
    reminderDue(frequency, tz, currentPeriod(frequency, userTime(tz, null, local(`${day}T12:00`, tz))).period + 1);

  it('is 20:00 local the next day for a daily streak, in zones either side of the date line', () => {
    for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York']) {
      expect(after('daily', tz, '2026-06-10')).toEqual({ day: 'streak:2026-06-11', at: local('2026-06-11T20:00', tz) });
    }
    expect(after('daily', 'Pacific/Kiritimati', '2026-06-10').at).toBe(utc('2026-06-11T06:00'));
    expect(after('daily', 'Pacific/Pago_Pago', '2026-06-10').at).toBe(utc('2026-06-12T07:00'));
  });

  it('is Friday 09:00 of the next week for a weekly streak, the 25th 09:00 of the next month for a monthly one', () => {
    // 2026-06-10 is a Wednesday; the next week starts Monday 2026-06-15.
    expect(after('weekly', 'America/New_York', '2026-06-10')).toEqual({ day: 'streak:2026-06-15', at: local('2026-06-19T09:00', 'America/New_York') });
    expect(after('monthly', 'America/New_York', '2026-06-10')).toEqual({ day: 'streak:2026-07-01', at: local('2026-07-25T09:00', 'America/New_York') });
  });

  it('keeps the local hour on DST days, both ways', () => {
    // New York springs forward on 2026-03-08 and falls back on 2026-11-01.
    expect(after('daily', 'America/New_York', '2026-03-07').at).toBe(utc('2026-03-09T00:00'));
    expect(after('daily', 'America/New_York', '2026-03-08').at).toBe(utc('2026-03-10T00:00'));
    expect(after('daily', 'America/New_York', '2026-10-31').at).toBe(utc('2026-11-02T01:00'));
    expect(after('daily', 'America/New_York', '2026-11-01').at).toBe(utc('2026-11-03T01:00'));
  });
});

describe('reactivationDue', () => {
  it('is 17:00 local 3, 5, 7, 14 and 30 days after the last active day, across a DST change', () => {
    const local = (iso: string, tz: string) => DateTime.fromISO(iso, { zone: tz }).toMillis();
    expect([1, 2, 3, 4, 5].map((n) => reactivationDue('Pacific/Kiritimati', '2026-06-10', n))).toEqual([
      { day: 'reactivation:2026-06-10:1', at: local('2026-06-13T17:00', 'Pacific/Kiritimati') },
      { day: 'reactivation:2026-06-10:2', at: local('2026-06-15T17:00', 'Pacific/Kiritimati') },
      { day: 'reactivation:2026-06-10:3', at: local('2026-06-17T17:00', 'Pacific/Kiritimati') },
      { day: 'reactivation:2026-06-10:4', at: local('2026-06-24T17:00', 'Pacific/Kiritimati') },
      { day: 'reactivation:2026-06-10:5', at: local('2026-07-10T17:00', 'Pacific/Kiritimati') },
    ]);
    // New York falls back on 2026-11-01: 17:00 EST on the 2nd is 22:00 UTC.
    expect(reactivationDue('America/New_York', '2026-10-30', 1).at).toBe(Date.parse('2026-11-02T22:00:00Z'));
    expect(reactivationDue('Pacific/Pago_Pago', '2026-10-30', 1).at).toBe(Date.parse('2026-11-03T04:00:00Z'));
  });
});

describe('the control group', () => {
  const settings = (controlRatios: [string, number][]): NotificationSettings => ({
    id: 'notifications', controlRatio: controlRatios.at(-1)?.[1] ?? 0, controlRatios, defaultTimeZone: 'UTC',
    email: { from: null, replyTo: null }, recap: { aggregation: 'weekly' }, publicUrl: null, created: '', updated: '',
  });

  it('hashes a tenant and a user to a stable point of [0, 1), spread evenly', () => {
    expect(controlPoint('_', 'ada')).toBe(controlPoint('_', 'ada'));
    expect(controlPoint('_', 'ada')).not.toBe(controlPoint('t1', 'ada'));
    const points = Array.from({ length: 10_000 }, (_, i) => controlPoint('_', `u${i}`));
    expect(points.every((p) => p >= 0 && p < 1)).toBe(true);
    const share = points.filter((p) => p < 0.3).length / points.length;
    expect(share).toBeGreaterThan(0.28);
    expect(share).toBeLessThan(0.32);
  });

  it('takes the ratio in force when the user was created', () => {
    const s = settings([['2026-01-01T00:00:00.000Z', 1], ['2026-02-01T00:00:00.000Z', 0]]);
    expect(ratioAt(s, '2025-12-31T23:59:59.999Z')).toBe(0);
    expect(ratioAt(s, '2026-01-01T00:00:00.000Z')).toBe(1);
    expect(ratioAt(s, '2026-02-01T00:00:00.000Z')).toBe(0);
    expect(isControl(s, '_', { id: 'x', created: '2026-01-15T00:00:00.000Z' })).toBe(true);
    expect(isControl(s, '_', { id: 'x', created: '2026-02-15T00:00:00.000Z' })).toBe(false);
    expect(isControl(null, '_', { id: 'x', created: '2026-01-15T00:00:00.000Z' })).toBe(false);
  });
});

describe('template texts', () => {
  it('allows each type its variables only, and loop variables of its own', () => {
    expect(checkTemplateText('achievement_completed', 'text', '{% for a in achievements %}{{ a.name }}{% endfor %} {{ user.attributes.plan }}')).toBeNull();
    expect(checkTemplateText('streak_reminder', 'text', '{{ streak.length }} {{ metrics.lessons.total }}')).toBeNull();
    expect(checkTemplateText('streak_reminder', 'text', '{{ achievement.name }}')).toMatch(/^text names "achievement"/);
    expect(checkTemplateText('recap', 'html', '{% assign x = recap.periodStart %}{{ x }}')).toBeNull();
    expect(checkTemplateText('recap', 'subject', '{{ x }}')).toMatch(/^subject names "x"/);
  });
});
