/**
 * `GET users/{id}/wrapped` over HTTP, on single Redis and on the Cluster: events placed on
 * several days, weeks and months of 2025 (and one in 2024) with the manual clock; the counts, the
 * most active day, week and month as docs/api.md defines them, changes and percent changes,
 * achievements, points, leaderboards and the longest streak of the year; year validation, an
 * unknown user, a user without activity, the user's time zone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { targets, type TestServer } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

/** An event at `at` on the manual clock; 201. */
async function eventAt(s: TestServer, user: string | Record<string, unknown>, metric: string, value: number, at: string): Promise<void> {
  await s.setClock(at);
  await s.event(metric, user, value);
}

/** The user's wrapped; 200. */
async function wrappedOf(s: TestServer, user: string, query = ''): Promise<any> {
  const r = await s.request('GET', `/api/users/${encodeURIComponent(user)}/wrapped${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe.each(targets())('wrapped on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  let xpEnd2024 = 0;
  let xpNow = 0;

  const event = (user: string | Record<string, unknown>, metric: string, value: number, at: string) => eventAt(s, user, metric, value, at);
  const wrapped = (user: string, query = '') => wrappedOf(s, user, query);
  const xp = async (user: string) => (await s.request('GET', `/api/users/${user}/points/xp`)).body.total as number;

  beforeAll(async () => {
    await s.setClock('2024-12-01T10:00:00Z');
    const ids = await s.metrics('lessons', 'quizzes');
    const setup = async (path: string, body: unknown) => {
      const r = await s.request(path.startsWith('PUT ') ? 'PUT' : 'POST', path.replace(/^PUT /, ''), { body });
      expect(r.status, r.text).toBeLessThan(300);
    };
    await setup('/admin/v1/achievements', [
      { name: 'First lesson', key: 'first-lesson', trigger: 'metric', metricId: ids.lessons, metricValue: 1, status: 'active' },
      { name: 'Ten lessons', key: 'ten-lessons', trigger: 'metric', metricId: ids.lessons, metricValue: 10, status: 'active' },
    ]);
    await setup('/admin/v1/points', [{
      name: 'XP', key: 'xp', description: 'Experience',
      triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }],
    }]);
    await setup('/admin/v1/leaderboards', [{ name: 'Lessons', key: 'lessons-all', rankBy: 'metric', metricId: ids.lessons, status: 'active' }]);
    await setup('PUT /admin/v1/streaks/settings', { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });

    await event({ id: 'ana', name: 'Ana' }, 'lessons', 2, '2024-12-30T10:00:00Z');
    xpEnd2024 = await xp('ana');
    await event('ana', 'lessons', 1, '2025-01-06T10:00:00Z');
    await event('bob', 'lessons', 100, '2025-03-01T10:00:00Z');
    await event('ana', 'lessons', 3, '2025-03-03T10:00:00Z');
    await event('ana', 'quizzes', 1, '2025-03-03T11:00:00Z');
    await event('ana', 'lessons', 1, '2025-03-04T10:00:00Z');
    await event('ana', 'quizzes', 2, '2025-03-05T10:00:00Z');
    await event('ana', 'lessons', 1, '2025-03-20T10:00:00Z');
    await event('ana', 'lessons', 2, '2025-06-09T10:00:00Z');
    await event('ana', 'lessons', 5, '2025-06-10T10:00:00Z');
    await event('ana', 'quizzes', 1, '2025-06-10T11:00:00Z');
    await s.setClock('2025-07-01T10:00:00Z');
    xpNow = await xp('ana');
    const created = await s.request('POST', '/api/users', { body: { id: 'idle' } });
    expect(created.status, created.text).toBe(201);
  });

  it('counts the active days, weeks (ISO, Monday first) and months of the year', async () => {
    const w = await wrapped('ana');
    expect(w.user).toMatchObject({ id: 'ana', name: 'Ana' });
    // 01-06, 03-03, 03-04, 03-05, 03-20, 06-09, 06-10 (2024-12-30 is the year before).
    expect(w.activity).toMatchObject({ daysActive: 7, weeksActive: 4, monthsActive: 3 });
  });

  it('picks the most active day by metrics with events, then by the summed change', async () => {
    const day = (await wrapped('ana')).activity.mostActiveDay;
    // 03-03 and 06-10 both have two metrics; 06-10 changed more (6 against 4).
    expect(day.date).toBe('2025-06-10');
    expect(day.metrics).toEqual({
      lessons: { name: 'Metric lessons', units: '', currentTotal: 15, changeThisPeriod: 5, percentChange: 150, byAttribute: {} },
      quizzes: { name: 'Metric quizzes', units: '', currentTotal: 4, changeThisPeriod: 1, percentChange: 0, byAttribute: {} },
    });
    expect(day.achievements).toEqual([]);
    expect(day.points.xp).toMatchObject({ name: 'XP', description: 'Experience', currentTotal: xpNow });
    expect(day.leaderboards['lessons-all']).toMatchObject({ key: 'lessons-all', name: 'Lessons', rank: 2, value: 15 });
  });

  it('picks the most active week and month by active days', async () => {
    const { mostActiveWeek: week, mostActiveMonth: month } = (await wrapped('ana')).activity;
    expect(week).toMatchObject({ start: '2025-03-03', end: '2025-03-09' });
    expect(week.metrics.lessons).toMatchObject({ currentTotal: 7, changeThisPeriod: 4, percentChange: 0 });
    expect(week.metrics.quizzes).toMatchObject({ currentTotal: 3, changeThisPeriod: 3, percentChange: 0 });
    expect(month.month).toBe(2);
    expect(month.metrics.lessons).toMatchObject({ currentTotal: 8, changeThisPeriod: 5 });
    expect(month.achievements).toEqual([]);
    // Rank 2 on 03-03, 03-04 and 03-20: the earliest (value 6) stands.
    expect(month.leaderboards['lessons-all']).toMatchObject({ rank: 2, value: 6 });
  });

  it('sums the entire year against the year before, with its achievements, points, best rank and longest streak', async () => {
    const year = (await wrapped('ana', '?year=2025')).activity.entireYear;
    expect(year.metrics.lessons).toEqual({ name: 'Metric lessons', units: '', currentTotal: 15, changeThisPeriod: 13, percentChange: 550, byAttribute: {} });
    expect(year.metrics.quizzes).toMatchObject({ currentTotal: 4, changeThisPeriod: 4, percentChange: 0 });
    expect(year.achievements.map((a: { key: string }) => a.key)).toEqual(['ten-lessons']);
    expect(year.achievements[0]).toMatchObject({ achievedAt: '2025-06-09T10:00:00.000Z', completions: 2 }) // ana and bob;
    expect(xpNow).toBeGreaterThan(xpEnd2024);
    expect(year.points.xp).toMatchObject({ name: 'XP', currentTotal: xpNow, changeThisPeriod: xpNow - xpEnd2024 });
    // Rank 1 on 01-06, before bob joined with 100.
    expect(year.leaderboards['lessons-all']).toMatchObject({ rank: 1, value: 3 });
    expect(year.longestStreak).toEqual({ length: 2, frequency: 'daily', periodStart: '2025-03-04', periodEnd: '2025-03-04', started: '2025-03-03' });
  });

  it('answers a past year', async () => {
    const w = (await wrapped('ana', '?year=2024')).activity;
    expect(w).toMatchObject({ daysActive: 1, weeksActive: 1, monthsActive: 1 });
    expect(w.mostActiveDay.date).toBe('2024-12-30');
    // The week of 2024-12-30 is cut at the year's end.
    expect(w.mostActiveWeek).toMatchObject({ start: '2024-12-30', end: '2024-12-31' });
    expect(w.mostActiveMonth.month).toBe(11);
    expect(w.entireYear.achievements.map((a: { key: string }) => a.key)).toEqual(['first-lesson']);
    expect(w.entireYear.metrics.lessons).toMatchObject({ currentTotal: 2, changeThisPeriod: 2, percentChange: 0 });
  });

  it('gives a user without activity the year\'s first day, week and month, empty', async () => {
    const w = (await wrapped('idle')).activity;
    const empty = { metrics: {}, points: {}, achievements: [], leaderboards: {} };
    expect(w).toEqual({
      daysActive: 0, weeksActive: 0, monthsActive: 0,
      mostActiveDay: { date: '2025-01-01', ...empty },
      mostActiveWeek: { start: '2025-01-01', end: '2025-01-05', ...empty },
      mostActiveMonth: { month: 0, ...empty },
      entireYear: { ...empty, longestStreak: { length: 0, frequency: 'daily', periodStart: null, periodEnd: null, started: null } },
    });
  });

  it('counts days in the user\'s time zone', async () => {
    await event({ id: 'kei', tz: 'Asia/Tokyo' }, 'lessons', 1, '2025-03-10T20:00:00Z');
    await s.setClock('2025-07-01T10:00:00Z');
    expect((await wrapped('kei')).activity.mostActiveDay.date).toBe('2025-03-11');
  });

  it('refuses a year that is not an integer from 1970 to the current year (422), and an unknown user (404)', async () => {
    for (const year of ['abc', '2025.5', '-1', '1969', '2026', '0']) {
      const r = await s.request('GET', `/api/users/ana/wrapped?year=${year}`);
      expect(r.status, year).toBe(422);
      expect(r.body.error).toContain('year');
    }
    const missing = await s.request('GET', '/v1/users/nobody/wrapped');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain('nobody');
  });
});

describe.each(targets())('wrapped edge cases on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });

  const event = (user: string | Record<string, unknown>, metric: string, value: number, at: string) => eventAt(s, user, metric, value, at);
  const wrapped = (user: string, query = '') => wrappedOf(s, user, query);

  beforeAll(async () => {
    await s.setClock('2023-01-01T00:00:00Z');
    const ids = await s.metrics('runs', 'weight');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.runs, threshold: 1 }] });
  });

  it('gives the longest streak the day its run started, even more than a year before the year', async () => {
    // Every day from 2023-12-20 to 2025-01-10: 388 days.
    const first = Date.parse('2023-12-20T12:00:00Z');
    for (let d = 0; d < 388; d++) await event('long', 'runs', 1, new Date(first + d * 86_400_000).toISOString());
    await s.setClock('2025-03-01T12:00:00Z');
    const streak = { frequency: 'daily', started: '2023-12-20' };
    expect((await wrapped('long', '?year=2024')).activity.entireYear.longestStreak).toEqual({ ...streak, length: 378, periodStart: '2024-12-31', periodEnd: '2024-12-31' });
    expect((await wrapped('long', '?year=2025')).activity.entireYear.longestStreak).toEqual({ ...streak, length: 388, periodStart: '2025-01-10', periodEnd: '2025-01-10' });
  });

  it('keeps integer totals and changes exact, with 16 digits too; fractions lose their binary noise', async () => {
    await event('digits', 'weight', 9007199254740991, '2025-05-05T12:00:00Z');
    await event('digits', 'weight', -7777777777777777, '2025-05-06T12:00:00Z');
    await event('noise', 'weight', 0.1, '2025-05-07T12:00:00Z');
    await event('noise', 'weight', 0.2, '2025-05-07T13:00:00Z');
    await s.setClock('2025-06-01T12:00:00Z');
    const w = (await wrapped('digits', '?year=2025')).activity;
    expect(w.entireYear.metrics.weight).toMatchObject({ currentTotal: 1229421476963214, changeThisPeriod: 1229421476963214 });
    expect(w.mostActiveDay.date).toBe('2025-05-05');
    expect(w.mostActiveDay.metrics.weight).toMatchObject({ currentTotal: 9007199254740991, changeThisPeriod: 9007199254740991 });
    const current = (await s.request('GET', '/api/users/digits/metrics/weight')).body.current;
    expect(current).toBe(1229421476963214);
    expect((await wrapped('noise', '?year=2025')).activity.entireYear.metrics.weight).toMatchObject({ currentTotal: 0.3, changeThisPeriod: 0.3 });
  });
});
