/**
 * Streaks with the manual clock, on single Redis and on the Cluster: extension once per period,
 * resets, freezes, thresholds, all/any, weekly and monthly periods, time zones, zone moves, DST,
 * and streak achievements.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

/** A date's day number (days since 1970-01-01): a daily streak's period. */
const dayNumber = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

describe.each(targets())('streaks on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual', workers: true });
  let ids: Record<string, string>;

  const settings = (body: unknown) => s.request('PUT', '/admin/v1/streaks/settings', { body });
  /** Daily on lessons, one freeze to start with and one more a week, two at most. */
  const weeklyFreezes = () => settings({
    frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }],
    freezes: { initial: 1, max: 2, autoEarnInterval: 7, autoEarnAmount: 1 },
  });
  /** The workers keep the rankings from the event log: let them catch up before a rank is read. */
  const drain = () => s.workers!.testing.drainNow();
  const at = (iso: string) => s.setClock(iso);
  const event = async (user: string | Record<string, unknown>, value = 1, metric = 'lessons') =>
    (await s.event(metric, user, value)).currentStreak;

  beforeAll(async () => {
    ids = await s.metrics('lessons', 'quizzes', 'other');
  });

  describe('daily, one metric', () => {
    beforeAll(async () => {
      const r = await settings({ frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
      expect(r.status).toBe(200);
    });

    it('extends on consecutive days, once a day, and resets after a skipped day', async () => {
      await at('2026-03-02T10:00:00Z');
      expect(await event('ana')).toEqual({
        length: 1, frequency: 'daily', started: '2026-03-02', periodStart: '2026-03-02', periodEnd: '2026-03-02',
        expires: '2026-03-03', extended: true,
      });
      await at('2026-03-02T18:00:00Z');
      expect(await event('ana')).toMatchObject({ length: 1, extended: false });
      await at('2026-03-03T09:00:00Z');
      expect(await event('ana')).toMatchObject({ length: 2, started: '2026-03-02', extended: true, expires: '2026-03-04' });
      // The 4th passes without an event: on the 5th the streak starts again.
      await at('2026-03-05T09:00:00Z');
      expect(await event('ana')).toMatchObject({ length: 1, started: '2026-03-05', extended: true });
    });

    it('shows a lost streak as length 0 on events that do not extend it', async () => {
      await at('2026-03-10T09:00:00Z');
      await event('bo');
      // The same stored state, answered on the day it was made and two days later: the api works
      // a state out once per day and period (it remembers them), not once for good.
      expect(await event('bo', 1, 'other')).toMatchObject({ length: 1, started: '2026-03-10', extended: false });
      await at('2026-03-12T09:00:00Z');
      expect(await event('bo', 1, 'other')).toMatchObject({ length: 0, started: null, extended: false });
    });

    it('keeps a streak alive through the current period until it ends', async () => {
      await at('2026-03-20T09:00:00Z');
      await event('cy');
      await at('2026-03-21T23:00:00Z');
      expect(await event('cy', 1, 'other')).toMatchObject({ length: 1, extended: false, expires: '2026-03-21' });
    });
  });

  describe('thresholds and evaluation', () => {
    it('sums a period\'s values until the threshold is met', async () => {
      await settings({ frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 3 }] });
      await at('2026-04-01T08:00:00Z');
      expect(await event('dee', 1)).toMatchObject({ length: 0, extended: false });
      expect(await event('dee', 1)).toMatchObject({ length: 0, extended: false });
      expect(await event('dee', 1)).toMatchObject({ length: 1, extended: true });
      await at('2026-04-02T08:00:00Z');
      // Yesterday's sum does not carry over.
      expect(await event('dee', 2)).toMatchObject({ length: 1, extended: false });
      expect(await event('dee', 1)).toMatchObject({ length: 2, extended: true });
    });

    it('with `all`, needs every metric\'s threshold in the period; with `any`, one', async () => {
      await settings({ frequency: 'daily', evaluation: 'all',
        metrics: [{ metricId: ids.lessons, threshold: 2 }, { metricId: ids.quizzes, threshold: 1 }] });
      await at('2026-04-10T08:00:00Z');
      expect(await event('eve', 2, 'lessons')).toMatchObject({ length: 0 });
      expect(await event('eve', 1, 'quizzes')).toMatchObject({ length: 1, extended: true });
      await at('2026-04-11T08:00:00Z');
      // The quiz of yesterday does not count today.
      expect(await event('eve', 1, 'quizzes')).toMatchObject({ length: 1, extended: false });
      expect(await event('eve', 2, 'lessons')).toMatchObject({ length: 2, extended: true });

      await settings({ frequency: 'daily', evaluation: 'any',
        metrics: [{ metricId: ids.lessons, threshold: 2 }, { metricId: ids.quizzes, threshold: 1 }] });
      await at('2026-04-20T08:00:00Z');
      expect(await event('fay', 1, 'quizzes')).toMatchObject({ length: 1, extended: true });
      await at('2026-04-21T08:00:00Z');
      expect(await event('fay', 1, 'lessons')).toMatchObject({ length: 1, extended: false });
      expect(await event('fay', 1, 'lessons')).toMatchObject({ length: 2, extended: true });
    });
  });

  describe('freezes', () => {
    beforeAll(() => weeklyFreezes());

    it('bridges a skipped day with a freeze, then resets when none is left', async () => {
      await at('2026-05-01T09:00:00Z');
      expect(await event('gus')).toMatchObject({ length: 1, freezes: 1, maxFreezes: 2, freezeAutoEarnInterval: 7, freezeAutoEarnAmount: 1, expires: '2026-05-03' });
      await at('2026-05-03T09:00:00Z'); // the 2nd skipped: the freeze covers it
      expect(await event('gus')).toMatchObject({ length: 2, freezes: 0, started: '2026-05-01', extended: true });
      await at('2026-05-05T09:00:00Z'); // the 4th skipped, no freeze left
      expect(await event('gus')).toMatchObject({ length: 1, freezes: 0, started: '2026-05-05' });
    });

    it('earns freezes every N days, up to the maximum, and spends them all on a gap they cannot bridge', async () => {
      await at('2026-06-01T09:00:00Z');
      expect(await event('hal')).toMatchObject({ freezes: 1 });
      for (let day = 2; day <= 15; day++) {
        await at(`2026-06-${String(day).padStart(2, '0')}T09:00:00Z`);
        const streak = await event('hal');
        // One freeze a week from the 1st, on top of the first: 2 from the 8th on, capped at 2.
        expect(streak.freezes, `June ${day}`).toBe(day < 8 ? 1 : 2);
      }
      await at('2026-06-18T09:00:00Z'); // the 16th and 17th skipped: both freezes go
      expect(await event('hal')).toMatchObject({ length: 16, freezes: 0, extended: true });
      await at('2026-06-30T09:00:00Z'); // 11 days skipped; the freeze earned on the 22nd and 29th cannot bridge them
      expect(await event('hal')).toMatchObject({ length: 1, freezes: 0, started: '2026-06-30' });
    });

  });

  describe('weekly and monthly periods', () => {
    it('weekly: Monday to Sunday', async () => {
      await settings({ frequency: 'weekly', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
      await at('2026-07-05T12:00:00Z'); // a Sunday
      expect(await event('ivy')).toMatchObject({ length: 1, periodStart: '2026-06-29', periodEnd: '2026-07-05', expires: '2026-07-12' });
      await at('2026-07-06T12:00:00Z'); // Monday: the next week
      expect(await event('ivy')).toMatchObject({ length: 2, extended: true, started: '2026-06-29' });
      await at('2026-07-12T12:00:00Z');
      expect(await event('ivy')).toMatchObject({ length: 2, extended: false });
      await at('2026-07-27T12:00:00Z'); // a week skipped
      expect(await event('ivy')).toMatchObject({ length: 1 });
    });

    it('monthly: calendar months', async () => {
      await settings({ frequency: 'monthly', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
      await at('2026-01-31T12:00:00Z');
      expect(await event('jay')).toMatchObject({ length: 1, periodStart: '2026-01-01', periodEnd: '2026-01-31', expires: '2026-02-28' });
      await at('2026-02-01T12:00:00Z');
      expect(await event('jay')).toMatchObject({ length: 2, extended: true });
      await at('2026-04-15T12:00:00Z');
      expect(await event('jay')).toMatchObject({ length: 1 });
    });
  });

  describe('time zones', () => {
    beforeAll(async () => {
      await settings({ frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    });

    it('counts periods in each user\'s zone: Kiritimati and Pago Pago at the same instants', async () => {
      await at('2026-08-10T09:00:00Z'); // Kiritimati 23:00 on the 10th; Pago Pago 22:00 on the 9th
      expect(await event({ id: 'kiri', tz: 'Pacific/Kiritimati' })).toMatchObject({ periodStart: '2026-08-10', length: 1 });
      expect(await event({ id: 'pago', tz: 'Pacific/Pago_Pago' })).toMatchObject({ periodStart: '2026-08-09', length: 1 });
      await at('2026-08-10T10:30:00Z'); // Kiritimati: 00:30 on the 11th, a new day; Pago Pago: 23:30, still the 9th
      expect(await event('kiri')).toMatchObject({ periodStart: '2026-08-11', length: 2, extended: true });
      expect(await event('pago')).toMatchObject({ periodStart: '2026-08-09', length: 1, extended: false });
    });

    it('neither loses nor repeats a day when the user moves zone (the user\'s clock)', async () => {
      // West: extend in Kiritimati on the 20th, fly to Pago Pago, where it is the 19th.
      await at('2026-08-20T01:00:00Z'); // Kiritimati 15:00 on the 20th
      await event({ id: 'west', tz: 'Pacific/Kiritimati' });
      await at('2026-08-20T10:00:00Z'); // Pago Pago 23:00 on the 19th, Kiritimati 00:00 on the 21st
      expect(await event({ id: 'west', tz: 'Pacific/Pago_Pago' })).toMatchObject({ length: 1, extended: false });
      await at('2026-08-21T02:00:00Z'); // Pago Pago 15:00 on the 20th: still the day already counted
      expect(await event('west')).toMatchObject({ length: 1, extended: false });
      await at('2026-08-22T02:00:00Z'); // Pago Pago the 21st: the next day
      expect(await event('west')).toMatchObject({ length: 2, extended: true });

      // East: extend in Pago Pago on the 20th (late), fly to Kiritimati, where it is already the
      // 22nd 23 hours later: the 21st, jumped over, is not missed.
      await at('2026-08-21T10:30:00Z'); // Pago Pago 23:30 on the 20th
      await event({ id: 'east', tz: 'Pacific/Pago_Pago' });
      await at('2026-08-22T09:30:00Z'); // Kiritimati 23:30 on the 22nd
      expect(await event({ id: 'east', tz: 'Pacific/Kiritimati' })).toMatchObject({ length: 2, extended: true });
    });

    it('counts days across a DST switch once each', async () => {
      const paris = { id: 'dst', tz: 'Europe/Paris' };
      for (const [iso, length] of [['2026-03-28T22:30:00Z', 1], ['2026-03-29T21:30:00Z', 2], ['2026-03-30T21:30:00Z', 3]] as const) {
        await at(iso); // 23:30 local each evening, across the spring-forward night
        expect(await event(paris)).toMatchObject({ length, extended: true });
      }
    });
  });

  describe('streak achievements', () => {
    it('completes on the event whose extension reaches the length', async () => {
      await settings({ frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
      const created = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Three days', key: 'three-days', trigger: 'streak', streakLength: 3 }] });
      expect(created.status).toBe(201);
      const keys = async () => (await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'kit' }, value: 1 } })).body.achievements
        .map((a: { key: string }) => a.key);
      await at('2026-09-01T09:00:00Z');
      expect(await keys()).toEqual([]);
      await at('2026-09-02T09:00:00Z');
      expect(await keys()).toEqual([]);
      await at('2026-09-03T09:00:00Z');
      expect(await keys()).toEqual(['three-days']);
      await at('2026-09-04T09:00:00Z');
      expect(await keys()).toEqual([]);
    });
  });

  describe('reading streaks', () => {
    beforeAll(async () => {
      await settings({
        frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }],
        freezes: { initial: 1, max: 3, autoEarnInterval: 0, autoEarnAmount: 0 },
      });
      // liz: the 1st to the 4th, the 5th bridged by a freeze, the 6th. max: the 3rd to the 6th. ned: the 6th.
      for (const [user, days] of [['liz', [1, 2, 3, 4, 6]], ['max', [3, 4, 5, 6]], ['ned', [6]]] as const) {
        for (const day of days) {
          await at(`2026-10-0${day}T12:00:00Z`);
          await event({ id: user, name: user.toUpperCase() });
        }
      }
      await at('2026-10-07T12:00:00Z');
    });

    it('answers a user\'s streak with its history (oldest first) and rank', async () => {
      const r = await s.request('GET', '/v1/users/liz/streak?historyPeriods=8');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        length: 5, frequency: 'daily', started: '2026-10-01', periodStart: '2026-10-07', periodEnd: '2026-10-07',
        expires: '2026-10-07', freezes: 0, maxFreezes: 3, rank: 1, extended: '2026-10-06T12:00:00.000Z', pauses: [],
      });
      expect(r.body.streakHistory).toEqual([
        { periodStart: '2026-09-30', periodEnd: '2026-09-30', length: 0, usedFreeze: false, usedPause: false },
        { periodStart: '2026-10-01', periodEnd: '2026-10-01', length: 1, usedFreeze: false, usedPause: false },
        { periodStart: '2026-10-02', periodEnd: '2026-10-02', length: 2, usedFreeze: false, usedPause: false },
        { periodStart: '2026-10-03', periodEnd: '2026-10-03', length: 3, usedFreeze: false, usedPause: false },
        { periodStart: '2026-10-04', periodEnd: '2026-10-04', length: 4, usedFreeze: false, usedPause: false },
        { periodStart: '2026-10-05', periodEnd: '2026-10-05', length: 4, usedFreeze: true, usedPause: false },
        { periodStart: '2026-10-06', periodEnd: '2026-10-06', length: 5, usedFreeze: false, usedPause: false },
        { periodStart: '2026-10-07', periodEnd: '2026-10-07', length: 5, usedFreeze: false, usedPause: false },
      ]);
      expect((await s.request('GET', '/v1/users/max/streak')).body).toMatchObject({ length: 4, rank: 2 });
      expect((await s.request('GET', '/v1/users/max/streak')).body.streakHistory).toHaveLength(7);
      expect((await s.request('GET', '/v1/users/nobody/streak')).status).toBe(404);
      for (const q of ['-1', '366', '1e2', '0x10', '1.5', ' 7']) {
        expect((await s.request('GET', `/v1/users/liz/streak?historyPeriods=${encodeURIComponent(q)}`)).status, q).toBe(422);
      }
      expect((await s.request('GET', '/v1/users/liz/streak?historyPeriods=0010')).body.streakHistory).toHaveLength(10);
    });

    it('lists several users\' streaks, longest first', async () => {
      const r = await s.request('GET', '/v1/streaks?userIds=ned&userIds=liz&userIds=max&userIds=ghost');
      expect(r.body).toEqual([
        { userId: 'liz', streakLength: 5, extended: '2026-10-06T12:00:00.000Z' },
        { userId: 'max', streakLength: 4, extended: '2026-10-06T12:00:00.000Z' },
        { userId: 'ned', streakLength: 1, extended: '2026-10-06T12:00:00.000Z' },
        { userId: 'ghost', streakLength: 0, extended: null },
      ]);
      expect((await s.request('GET', '/v1/streaks')).status).toBe(422);
      // Once, comma-separated; repeated, each one id (the SDK's form: an id may hold a comma).
      expect((await s.request('GET', '/v1/streaks?userIds=ned,liz')).body.map((x: any) => x.userId)).toEqual(['liz', 'ned']);
      expect((await s.request('GET', `/v1/streaks?userIds=ned&userIds=${encodeURIComponent('liz,max')}`)).body).toEqual([
        { userId: 'ned', streakLength: 1, extended: '2026-10-06T12:00:00.000Z' },
        { userId: 'liz,max', streakLength: 0, extended: null },
      ]);
      const long = await s.request('GET', `/v1/streaks?userIds=liz&userIds=${'x'.repeat(256)}`);
      expect(long.status).toBe(422);
      expect(long.body.error).toMatch(/userIds: a user id must have 1 to 255 characters/);
    });

    it('ranks active and longest streaks, dropping lost ones from the active ranking', async () => {
      const active = await s.request('GET', '/v1/streaks/rankings?limit=3');
      expect(active.body).toEqual([
        { userId: 'liz', name: 'LIZ', streakLength: 5 },
        { userId: 'max', name: 'MAX', streakLength: 4 },
        { userId: 'ned', name: 'NED', streakLength: 1 },
      ]);
      // On the 8th, the 7th was missed: liz spent her freeze on the 5th and lost hers; max and ned each
      // have a freeze for the 7th. On the 9th, the 8th is missed too: nobody has a streak left.
      await at('2026-10-08T12:00:00Z');
      const eighth = await s.request('GET', '/v1/streaks/rankings?type=active&limit=10');
      expect(eighth.body.map((e: any) => [e.userId, e.streakLength])).toEqual([['max', 4], ['ned', 1]]);
      expect((await s.request('GET', '/v1/users/liz/streak')).body).toMatchObject({ length: 0, rank: null });
      await at('2026-10-09T12:00:00Z');
      expect((await s.request('GET', '/v1/streaks/rankings')).body).toEqual([]);
      // Longest ever, lost or not (hal made 16 days in the freezes test); kit reached 4 in September,
      // before max, so kit ranks first of the two.
      const longest = await s.request('GET', '/v1/streaks/rankings?type=longest&limit=4');
      expect(longest.body.map((e: any) => [e.userId, e.streakLength])).toEqual([['hal', 16], ['liz', 5], ['kit', 4], ['max', 4]]);
      expect((await s.request('GET', '/v1/streaks/rankings?type=best')).status).toBe(422);
      expect((await s.request('GET', '/v1/streaks/rankings?limit=0')).status).toBe(422);
    });
  });

  describe('freezes earned during a gap', () => {
    // Run after 'reading streaks': a drain here records the streaks of the users before it in the
    // rankings under this describe's rule.
    beforeAll(() => weeklyFreezes());

    it('counts a freeze the gap will earn: in `expires`, and in the active ranking', async () => {
      for (let day = 1; day <= 6; day++) {
        await at(`2026-07-0${day}T09:00:00Z`);
        await event('gapuser');
      }
      // One freeze now, a second earned on the 8th (a week after the 1st): the 7th and 8th are
      // bridged, the streak is lost on the 10th.
      await at('2026-07-06T10:00:00Z');
      expect(await event('gapuser')).toMatchObject({ length: 6, freezes: 1, expires: '2026-07-09' });
      await at('2026-07-09T12:00:00Z');
      const alive = (await s.request('GET', '/v1/users/gapuser/streak')).body;
      expect(alive).toMatchObject({ length: 6, freezes: 0, expires: '2026-07-09', rank: expect.any(Number) });
      expect((await s.request('GET', '/v1/streaks/rankings?limit=100')).body.map((x: any) => x.userId)).toContain('gapuser');
      await at('2026-07-10T12:00:00Z');
      expect((await s.request('GET', '/v1/users/gapuser/streak')).body).toMatchObject({ length: 0, rank: null });
    });
  });

  describe('history kept as a run', () => {
    // A streak extended period after period writes no history: the state's run says it
    // (lua/includes/streak.lua). The run is written out when it ends: a restart, a bridge, a restore.
    beforeAll(async () => {
      await settings({
        frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }],
        freezes: { initial: 0, max: 2, autoEarnInterval: 0, autoEarnAmount: 0 },
      });
    });
    const redis = () => s.api.services.redis;
    const historyKey = (user: string) => s.api.services.keys.forUser('_', user).history;
    const lengths = async (user: string, periods: number) =>
      ((await s.request('GET', `/v1/users/${user}/streak?historyPeriods=${periods}`)).body.streakHistory as any[])
        .map((h) => [h.periodStart.slice(8), h.length]);

    it('writes no history while the run goes on, and writes the run out when the streak restarts', async () => {
      for (const day of [1, 2, 3]) {
        await at(`2027-01-0${day}T12:00:00Z`);
        await event('run1');
        if (day === 1) {
          // The event that creates the user writes no 's:at': 'created' says when it extended.
          expect(await redis().hget(s.api.services.keys.forUser('_', 'run1').user, 's:at')).toBeNull();
          expect((await s.request('GET', '/v1/streaks?userIds=run1')).body).toEqual([
            { userId: 'run1', streakLength: 1, extended: '2027-01-01T12:00:00.000Z' },
          ]);
        }
      }
      expect((await s.request('GET', '/v1/streaks?userIds=run1')).body[0].extended).toBe('2027-01-03T12:00:00.000Z');
      expect(await redis().exists(historyKey('run1'))).toBe(0);
      expect(await lengths('run1', 3)).toEqual([['01', 1], ['02', 2], ['03', 3]]);
      await at('2027-01-06T12:00:00Z'); // the 4th and 5th missed, no freezes: lost, restarts at 1
      expect(await event('run1')).toMatchObject({ length: 1, started: '2027-01-06' });
      expect(await redis().hgetall(historyKey('run1'))).toEqual({
        [String(dayNumber('2027-01-01'))]: '1', [String(dayNumber('2027-01-02'))]: '2', [String(dayNumber('2027-01-03'))]: '3',
      });
      await at('2027-01-07T12:00:00Z');
      await event('run1');
      expect(await lengths('run1', 7)).toEqual([['01', 1], ['02', 2], ['03', 3], ['04', 0], ['05', 0], ['06', 1], ['07', 2]]);
    });

    it('restores from the run, which stays in the history', async () => {
      for (const day of [10, 11, 12]) {
        await at(`2027-01-${day}T12:00:00Z`);
        await event('run2');
      }
      await at('2027-01-15T12:00:00Z'); // the 13th and 14th missed: lost
      const r = await s.request('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'run2' }] } });
      expect(r.body.restoredUsers).toEqual(['run2']);
      expect((await s.request('GET', '/v1/users/run2/streak')).body).toMatchObject({ length: 3 });
      expect(await event('run2')).toMatchObject({ length: 4, extended: true });
      await at('2027-01-16T12:00:00Z');
      expect(await event('run2')).toMatchObject({ length: 5, extended: true });
      expect(await lengths('run2', 7)).toEqual([['10', 1], ['11', 2], ['12', 3], ['13', 0], ['14', 0], ['15', 4], ['16', 5]]);
    });

    it('reads a state written before runs existed, and goes on from it', async () => {
      await at('2027-01-20T12:00:00Z');
      await event('legacy');
      // As an earlier version left it: ten fields, and every extension in the history hash.
      const u = s.api.services.keys.forUser('_', 'legacy');
      const d = (iso: string) => String(dayNumber(iso));
      await redis().hset(u.user, 's', `d|2|${d('2027-01-20')}|${d('2027-01-19')}|0||2|${d('2027-01-20')}||`);
      await redis().del(u.history);
      await redis().hset(u.history, d('2027-01-19'), '1', d('2027-01-20'), '2');
      expect(await lengths('legacy', 2)).toEqual([['19', 1], ['20', 2]]);
      await at('2027-01-21T12:00:00Z');
      expect(await event('legacy')).toMatchObject({ length: 3, started: '2027-01-19' });
      await at('2027-01-22T12:00:00Z');
      expect(await event('legacy')).toMatchObject({ length: 4 });
      expect(await lengths('legacy', 4)).toEqual([['19', 1], ['20', 2], ['21', 3], ['22', 4]]);
      expect(Object.keys(await redis().hgetall(u.history))).toHaveLength(2);
    });
  });

  describe('Admin API: freezes and restore', () => {
    beforeAll(async () => {
      await settings({
        frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }],
        freezes: { initial: 0, max: 2, autoEarnInterval: 0, autoEarnAmount: 0 },
      });
    });

    it('grants one freeze per entry, up to the maximum, with issues both SDK generations read', async () => {
      await at('2026-11-02T12:00:00Z');
      await event('fz');
      const r = await s.request('POST', '/admin/v1/streaks/freezes', {
        body: { freezes: [{ userId: 'fz' }, { userId: 'fz' }, { userId: 'fz' }, { userId: 'ghost' }] },
      });
      expect(r.status).toBe(200);
      expect(r.body.issues).toEqual([
        { userId: 'fz', level: 'warning', reason: 'Would exceed maximum freeze limit', severity: 'warning', message: 'Would exceed maximum freeze limit' },
        { userId: 'ghost', level: 'error', reason: 'User does not exist', severity: 'error', message: 'User does not exist' },
      ]);
      expect((await s.request('GET', '/v1/users/fz/streak')).body).toMatchObject({ length: 1, freezes: 2 });
      // Two skipped days are bridged by the granted freezes.
      await at('2026-11-05T12:00:00Z');
      expect(await event('fz')).toMatchObject({ length: 2, freezes: 0 });
      expect((await s.request('POST', '/admin/v1/streaks/freezes', { body: { freezes: [] } })).status).toBe(400);
    });

    it('restores the longest length of the window, so that acting today continues it', async () => {
      for (const day of [10, 11, 12, 13]) {
        await at(`2026-11-${day}T12:00:00Z`);
        await event('rs');
      }
      await at('2026-11-16T12:00:00Z'); // the 14th and 15th missed: lost
      expect((await s.request('GET', '/v1/users/rs/streak')).body.length).toBe(0);
      await event('fresh');
      const r = await s.request('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'rs' }, { id: 'fresh' }, { id: 'ghost' }] } });
      expect(r.status).toBe(200);
      expect(r.body.restoredUsers).toEqual(['rs']);
      expect(r.body.issues).toEqual([
        expect.objectContaining({ userId: 'fresh', level: 'warning', reason: 'No streak to restore' }),
        expect.objectContaining({ userId: 'ghost', level: 'error', reason: 'User does not exist' }),
      ]);
      expect((await s.request('GET', '/v1/users/rs/streak')).body).toMatchObject({ length: 4, expires: '2026-11-16' });
      expect(await event('rs')).toMatchObject({ length: 5, extended: true });
      const again = await s.request('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'rs' }] } });
      expect(again.body.issues[0]).toMatchObject({ userId: 'rs', level: 'warning', reason: 'Streak is already at maximum length' });
    });
  });

  describe('Admin API: pauses', () => {
    beforeAll(async () => {
      await settings({ frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    });

    it('neither misses nor counts paused days, and lists upcoming pauses', async () => {
      await at('2026-12-01T12:00:00Z');
      await event('pz');
      await at('2026-12-02T12:00:00Z');
      await event('pz');
      const r = await s.request('POST', '/admin/v1/streaks/pauses', {
        body: { pauses: [
          { userId: 'pz', start: '2026-12-03', end: '2026-12-05' },
          { userId: 'pz', start: '2026-12-01', end: '2026-12-09' },
          { userId: 'ghost', start: '2026-12-03', end: '2026-12-04' },
          { userId: 'pz', start: '2026-12-09', end: '2026-12-08' },
        ] },
      });
      expect(r.status).toBe(201);
      expect(r.body.created).toEqual([{ id: expect.any(String), userId: 'pz', start: '2026-12-03', end: '2026-12-05', status: 'active' }]);
      expect(r.body.issues.map((i: any) => [i.index, i.reason])).toEqual([
        [1, expect.stringMatching(/past/)], [2, 'User does not exist'], [3, expect.stringMatching(/before start/)],
      ]);
      const pauseId = r.body.created[0].id;
      expect((await s.request('GET', '/v1/users/pz/streak')).body.pauses).toEqual([{ id: pauseId, start: '2026-12-03', end: '2026-12-05' }]);

      await at('2026-12-05T12:00:00Z');
      expect((await s.request('GET', '/v1/users/pz/streak')).body).toMatchObject({ length: 2 });
      await at('2026-12-06T12:00:00Z');
      expect(await event('pz')).toMatchObject({ length: 3, extended: true, started: '2026-12-01' });
      const history = (await s.request('GET', '/v1/users/pz/streak?historyPeriods=6')).body.streakHistory;
      expect(history.map((h: any) => [h.periodStart.slice(8), h.length, h.usedPause ?? false])).toEqual([
        ['01', 1, false], ['02', 2, false], ['03', 2, true], ['04', 2, true], ['05', 2, true], ['06', 3, false],
      ]);

      // Without the pause, a three-day gap loses the streak.
      const next = await s.request('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'pz', start: '2026-12-07', end: '2026-12-09' }] } });
      const del = await s.request('DELETE', `/admin/v1/streaks/pauses?ids=${next.body.created[0].id},nope`);
      expect(del.body.deleted).toEqual([{ id: next.body.created[0].id }]);
      expect(del.body.issues).toEqual([expect.objectContaining({ id: 'nope' })]);
      await at('2026-12-10T12:00:00Z');
      expect(await event('pz')).toMatchObject({ length: 1, started: '2026-12-10' });
    });

    it('keeps a paused streak in the active ranking: a pause added after the extension, and one it knew', async () => {
      await at('2026-12-11T12:00:00Z');
      const board = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Paused', key: 'paused-board', rankBy: 'streak', status: 'active' }] });
      expect(board.status, board.text).toBe(201);
      const onBoard = async () => ((await s.request('GET', '/api/leaderboards/paused-board?limit=100')).body.rankings as any[]).map((r) => r.userId);
      await event('pa1');
      await event('pa2');
      // pa2's pause is there before its next extension: the log carries it to the rankings.
      const before = await s.request('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'pa2', start: '2026-12-13', end: '2026-12-15' }] } });
      expect(before.status, before.text).toBe(201);
      await at('2026-12-12T12:00:00Z');
      await event('pa1');
      expect(await event('pa2')).toMatchObject({ length: 2, expires: '2026-12-16' });
      await drain();
      // pa1's comes after it: the admin route moves the expiry.
      const after = await s.request('POST', '/admin/v1/streaks/pauses', { body: { pauses: [{ userId: 'pa1', start: '2026-12-13', end: '2026-12-15' }] } });
      expect(after.status, after.text).toBe(201);
      expect((await s.request('GET', '/v1/users/pa1/streak')).body).toMatchObject({ length: 2, expires: '2026-12-16' });
      await at('2026-12-16T12:00:00Z');
      for (const user of ['pa1', 'pa2']) {
        expect((await s.request('GET', `/v1/users/${user}/streak`)).body, user).toMatchObject({ length: 2, rank: expect.any(Number) });
      }
      expect((await onBoard()).sort()).toEqual(['pa1', 'pa2']);
      // Removing the pause takes the days back: pa1's streak was lost on the 14th.
      const del = await s.request('DELETE', `/admin/v1/streaks/pauses?ids=${after.body.created[0].id}`);
      expect(del.body.deleted, del.text).toHaveLength(1);
      expect((await s.request('GET', '/v1/users/pa1/streak')).body).toMatchObject({ length: 0, rank: null });
      expect(await onBoard()).toEqual(['pa2']);
      await s.request('PATCH', '/admin/v1/leaderboards', { body: [{ id: board.body.created[0].id, status: 'inactive' }] });
    });
  });

  describe('settings', () => {
    it('validates the rule', async () => {
      expect((await settings({ frequency: 'hourly', metrics: [] })).status).toBe(400);
      expect((await settings({ frequency: 'daily', metrics: [{ metricId: 'nope', threshold: 1 }] })).status).toBe(422);
      expect((await settings({ frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 0 }] })).status).toBe(400);
      expect((await settings({ frequency: 'daily', metrics: [], freezes: { max: 101 } })).status).toBe(400);
      const r = await s.request('GET', '/admin/v1/streaks/settings');
      expect(r.body).toMatchObject({ frequency: 'daily', evaluation: 'all', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    });
  });
});
