/**
 * Wrapped's `percentileThisPeriod` and `byAttribute` over HTTP, on single Redis and on the
 * Cluster: a week, a month and a year of 2025 each ranked by a board whose run is exactly that
 * period (a 7-day board starting on a Monday, a monthly one, a yearly points board, and a weekly
 * board broken down by region), and boards whose runs are not a period, which give nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('wrapped percentiles on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });

  const wrapped = async (user: string) => {
    const r = await s.request('GET', `/api/users/${user}/wrapped?year=2025`);
    expect(r.status, r.text).toBe(200);
    return r.body.activity;
  };

  beforeAll(async () => {
    await s.setClock('2025-03-04T10:00:00Z');
    const { lessons, quizzes } = await s.metrics('lessons', 'quizzes');
    const { region } = await s.attributes('user', 'region');
    await adminCreateOne(s, '/admin/v1/points', {
      name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }],
    });
    const xp = (await s.request('GET', '/admin/v1/points')).body.find((p: { key: string }) => p.key === 'xp').id;
    const common = { status: 'active', rankBy: 'metric', metricId: lessons, maxParticipants: null };
    for (const board of [
      { name: 'Week', key: 'week', start: '2025-03-03', runUnit: 'day', runInterval: 7 },
      { name: 'Week by region', key: 'week-region', start: '2025-03-03', runUnit: 'day', runInterval: 7, breakdownAttributes: [region] },
      { name: 'Month', key: 'month', start: '2025-01-01', runUnit: 'month', runInterval: 1 },
      { name: 'Year of XP', key: 'year-xp', start: '2025-01-01', runUnit: 'year', runInterval: 1, rankBy: 'points', metricId: undefined, pointsSystemId: xp },
      { name: 'Tuesday weeks', key: 'tuesdays', start: '2025-03-04', runUnit: 'day', runInterval: 7, metricId: quizzes },
      { name: 'Quizzes ever', key: 'quizzes-ever', start: '2025-01-01', metricId: quizzes },
    ]) await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, ...board });

    // The week of Monday 2025-03-03: bob 5, ana 3, dee 2, cy 1; bob, ana and dee in eu, cy in us.
    for (const [id, value, place] of [['bob', 5, 'eu'], ['ana', 3, 'eu'], ['dee', 2, 'eu'], ['cy', 1, 'us']] as const) {
      await s.event('lessons', { id, attributes: { region: place } }, value);
    }
    await s.event('quizzes', 'ana', 4);
    // Two more events of bob's, in a later week of March: 30 XP in the year against everyone else's 10.
    await s.setClock('2025-03-20T10:00:00Z');
    await s.event('lessons', 'bob', 1);
    await s.event('lessons', 'bob', 1);
    await s.setClock('2025-07-01T10:00:00Z');
  }, 60_000);

  it('gives a week, a month and a year the percentile of the board whose run is that period', async () => {
    const a = await wrapped('ana');
    expect(a.mostActiveWeek).toMatchObject({ start: '2025-03-03', end: '2025-03-09' });
    // Rank 2 of 4 on the week's run: 3 of 4 rank at or below ana.
    expect(a.mostActiveWeek.metrics.lessons.percentileThisPeriod).toBe(75);
    expect(a.mostActiveMonth.month).toBe(2);
    expect(a.mostActiveMonth.metrics.lessons.percentileThisPeriod).toBe(75);
    // The year's XP: bob 30 first; ana as the yearly board's own read places her.
    const board = await s.request('GET', '/api/users/ana/leaderboards/year-xp?run=2025-01-01');
    expect(board.status, board.text).toBe(200);
    expect(board.body.participants).toBe(4);
    expect(a.entireYear.points.xp.percentileThisPeriod).toBe(board.body.percentile);
    expect(a.entireYear.points.xp.percentileThisPeriod).toBeGreaterThan(0);
    const b = await wrapped('bob');
    expect(b.entireYear.points.xp.percentileThisPeriod).toBe(100);
    expect(b.mostActiveWeek.metrics.lessons.percentileThisPeriod).toBe(100);
  });

  it('breaks a period down by the attribute of a board broken down by it', async () => {
    const a = await wrapped('ana');
    // Rank 2 of 3 in eu: bob 5, ana 3, dee 2.
    expect(a.mostActiveWeek.metrics.lessons.byAttribute).toEqual({
      region: { eu: { name: 'Metric lessons', units: '', changeThisPeriod: 3, percentileThisPeriod: 66.6 } },
    });
    const c = await wrapped('cy');
    expect(c.mostActiveWeek.metrics.lessons.byAttribute).toEqual({
      region: { us: { name: 'Metric lessons', units: '', changeThisPeriod: 1, percentileThisPeriod: 100 } },
    });
    // No month or year board has a breakdown.
    expect(a.mostActiveMonth.metrics.lessons.byAttribute).toEqual({});
  });

  it('leaves the percentile out of a day, and where no board\'s run is the period', async () => {
    const a = await wrapped('ana');
    expect(a.mostActiveDay.metrics.lessons).not.toHaveProperty('percentileThisPeriod');
    expect(a.mostActiveDay.metrics.lessons.byAttribute).toEqual({});
    // Quizzes: a board of Tuesday weeks and a perpetual one, neither a week, a month or the year.
    expect(a.mostActiveWeek.metrics.quizzes).toBeDefined();
    expect(a.mostActiveWeek.metrics.quizzes).not.toHaveProperty('percentileThisPeriod');
    expect(a.entireYear.metrics.quizzes).not.toHaveProperty('percentileThisPeriod');
    // Lessons over the year: no yearly lessons board.
    expect(a.entireYear.metrics.lessons).not.toHaveProperty('percentileThisPeriod');
    expect(a.mostActiveWeek.points.xp.percentileThisPeriod).toBeUndefined();
  });
});
