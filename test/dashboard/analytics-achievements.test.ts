/**
 * The analytics' achievement completion and events per metric, through the Admin API and in a real
 * browser, under the manual clock: how many users completed each achievement in a range (an
 * event's completion, an API completion, a composite's) and their share of the range's active
 * users; the events per day of each metric drawn as a chart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAchievements } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s analytics of achievements and metrics', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('counts the users who completed each achievement in the range, and their share of the active users', async () => {
    const { page, s } = d;
    await s.setClock('2026-04-01T10:00:00Z');
    const { lessons } = await s.metrics('lessons', 'quizzes');
    const ids = await createAchievements(s, [
      { name: 'Two lessons', key: 'two', trigger: 'metric', metricId: lessons, metricValue: 2 },
      { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
    ]);
    await createAchievements(s, [
      { name: 'Both', key: 'both', trigger: 'achievement', achievementIds: [ids.two, ids.onboarded] },
      { name: 'A hundred lessons', key: 'hundred', trigger: 'metric', metricId: lessons, metricValue: 100 },
    ]);
    // April 1st: u1 completes two; u2 and u3 do not yet; u3 takes a quiz.
    await s.event('lessons', 'u1', 2);
    await s.event('lessons', 'u2', 1);
    await s.event('lessons', 'u3', 1);
    await s.event('quizzes', 'u3', 1);
    // April 2nd: u2 completes two; u1 is onboarded through the API (and so completes both); u4 too, without an event.
    await s.setClock('2026-04-02T10:00:00Z');
    await s.event('lessons', 'u2', 1);
    for (const id of ['u1', 'u4']) {
      expect((await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id } } })).status).toBe(201);
    }
    await s.workers!.testing.drainNow();

    const both = await s.request('GET', '/admin/v1/analytics?from=2026-04-01&to=2026-04-02');
    expect(both.status, both.text).toBe(200);
    // The day's completions count each API completion once: onboarded twice, both once; and two.
    expect((both.body.days as { date: string; completions: number }[]).map((x) => x.completions)).toEqual([1, 4]);
    expect(both.body.activeUsers).toBe(4);
    expect(both.body.achievements).toEqual([
      { id: ids.two, key: 'two', name: 'Two lessons', users: 2, share: 0.5 },
      { id: ids.onboarded, key: 'onboarded', name: 'Onboarded', users: 2, share: 0.5 },
      { id: expect.any(String), key: 'both', name: 'Both', users: 1, share: 0.25 },
      { id: expect.any(String), key: 'hundred', name: 'A hundred lessons', users: 0, share: 0 },
    ]);
    const second = await s.request('GET', '/admin/v1/analytics?from=2026-04-02&to=2026-04-02');
    expect(second.body.activeUsers).toBe(3);
    expect((second.body.achievements as { key: string; users: number; share: number }[]).map((a) => [a.key, a.users, a.share])).toEqual([
      ['two', 1, 0.3333], ['onboarded', 2, 0.6667], ['both', 1, 0.3333], ['hundred', 0, 0],
    ]);
    // Another tenant: no one.
    expect((await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] })).status).toBe(201);
    const other = await s.request('GET', '/admin/v1/analytics?from=2026-04-01&to=2026-04-02', { tenant: 'other' });
    expect(other.body.activeUsers).toBe(0);
    expect((other.body.achievements as { users: number; share: number }[]).every((a) => a.users === 0 && a.share === 0)).toBe(true);

    await d.open('Analytics');
    await page.getByLabel('From', { exact: true }).fill('2026-04-01');
    await page.getByLabel('To', { exact: true }).fill('2026-04-02');
    await page.getByRole('button', { name: 'Show' }).click();
    const table = page.getByRole('table', { name: 'Users who completed each achievement' });
    await expect.poll(() => table.locator('tbody tr').allTextContents()).toEqual([
      'Two lessons2 users50%', 'Onboarded2 users50%', 'Both1 user25%', 'A hundred lessons0 users0%',
    ]);
    await expect.poll(() => page.getByText('of the 4 users active in the range').count()).toBe(1);
    await d.shot('analytics-achievements');
  });

  it('draws the events per day of each metric', async () => {
    const { page } = d;
    const chart = page.getByRole('img', { name: 'Events per day by metric' });
    await chart.locator('canvas').waitFor();
    // uPlot's legend names each metric's line.
    expect(await chart.locator('.u-legend .u-series .u-label').allTextContents()).toEqual(expect.arrayContaining(['Metric lessons', 'Metric quizzes']));
    await d.shot('analytics-metrics');
  });
});
