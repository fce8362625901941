/**
 * The analytics in a real browser and through the Admin API, under the manual clock: new and
 * weekly active users per day, the 14-day retention of the control group against the rest, the
 * active streaks by length, and the users by points total; the range first shown is the server's
 * 14 days up to its today, whatever the browser's clock says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s analytics', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  const ids = Array.from({ length: 10 }, (_, i) => `u${i + 1}`);

  it('counts new and weekly active users, the retention of each group, and the streaks by length', async () => {
    const { page, s } = d;
    await s.setClock('2026-03-01T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    expect((await s.request('PUT', '/admin/v1/notifications/settings', { body: { controlRatio: 0.5 } })).status).toBe(200);
    expect((await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp',
      triggers: [{ type: 'metric', metricKey: 'lessons', metricThreshold: 1, points: 10, status: 'active' }] }] })).status).toBe(201);
    // Ten users on March 1st; three again on the 2nd; five on the 15th (their 14th day after); two new on the 16th, and u1.
    for (const id of ids) await s.event('lessons', id, 1);
    await s.setClock('2026-03-02T10:00:00Z');
    for (const id of ids.slice(0, 3)) await s.event('lessons', id, 1);
    await s.setClock('2026-03-15T10:00:00Z');
    for (const id of ids.slice(0, 5)) await s.event('lessons', id, 1);
    await s.setClock('2026-03-16T10:00:00Z');
    for (const id of ['n1', 'n2', 'u1']) await s.event('lessons', id, 1);
    await s.workers!.testing.drainNow();

    const control = new Set<string>();
    for (const id of ids) if ((await s.request('GET', `/api/users/${id}`)).body.control) control.add(id);
    expect(control.size).toBeGreaterThan(0);
    expect(control.size).toBeLessThan(10);
    const retained = new Set(ids.slice(0, 5));
    const group = (inControl: boolean) => {
      const members = ids.filter((id) => control.has(id) === inControl);
      return { users: members.length, retained: members.filter((id) => retained.has(id)).length };
    };

    const r = await s.request('GET', '/admin/v1/analytics?from=2026-03-01&to=2026-03-16');
    expect(r.status, r.text).toBe(200);
    const day = (date: string) => (r.body.days as { date: string }[]).find((x) => x.date === date);
    expect(day('2026-03-01')).toMatchObject({ events: 10, activeUsers: 10, weeklyActiveUsers: 10, newUsers: 10 });
    expect(day('2026-03-02')).toMatchObject({ events: 3, activeUsers: 3, weeklyActiveUsers: 10, newUsers: 0 });
    expect(day('2026-03-08')).toMatchObject({ events: 0, weeklyActiveUsers: 3 });
    expect(day('2026-03-09')).toMatchObject({ events: 0, weeklyActiveUsers: 0 });
    expect(day('2026-03-15')).toMatchObject({ activeUsers: 5, weeklyActiveUsers: 5, newUsers: 0 });
    expect(day('2026-03-16')).toMatchObject({ activeUsers: 3, weeklyActiveUsers: 7, newUsers: 2 });
    expect(r.body.retention).toEqual({ days: 14, cohortFrom: '2026-03-01', cohortTo: '2026-03-02', control: group(true), rest: group(false) });
    expect(r.body.streaks).toEqual([
      { from: 1, to: 1, users: 6 }, { from: 2, to: 3, users: 1 }, { from: 4, to: 7, users: 0 }, { from: 8, to: 14, users: 0 },
      { from: 15, to: 30, users: 0 }, { from: 31, to: 90, users: 0 }, { from: 91, to: 365, users: 0 }, { from: 366, to: null, users: 0 },
    ]);
    // Another tenant has none of it.
    expect((await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'other', name: 'Other' }] })).status).toBe(201);
    const other = await s.request('GET', '/admin/v1/analytics?from=2026-03-01&to=2026-03-16', { tenant: 'other' });
    expect(other.body.retention).toMatchObject({ control: { users: 0 }, rest: { users: 0 } });
    expect((other.body.days as { newUsers: number }[]).every((x) => x.newUsers === 0)).toBe(true);

    // The range shown first is the server's 14 days up to its today (the manual clock's March 16th), not the browser's.
    await d.open('Analytics');
    await expect.poll(() => page.getByLabel('To', { exact: true }).inputValue()).toBe('2026-03-16');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2026-03-03');
    await expect.poll(() => page.locator('table.analytics tbody tr').allTextContents()).toEqual([
      '2026-03-1555500Metric lessons: 5', '2026-03-1633720Metric lessons: 3',
    ]);
    await page.getByLabel('From', { exact: true }).fill('2026-03-01');
    await page.getByLabel('To', { exact: true }).fill('2026-03-16');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('.uplot canvas').count()).toBe(3);
    await expect.poll(() => page.locator('table.analytics tbody tr').allTextContents()).toEqual([
      '2026-03-01101010100Metric lessons: 10', '2026-03-02331000Metric lessons: 3', '2026-03-1555500Metric lessons: 5', '2026-03-1633720Metric lessons: 3',
    ]);
    const pct = (g: { users: number; retained: number }) => `${Math.round((1000 * g.retained) / g.users) / 10}%`;
    const c = group(true);
    const rest = group(false);
    expect(await page.locator('table.retention tbody tr').allTextContents()).toEqual([
      `Control group (no notifications)${c.users}${c.retained}${pct(c)}`, `The rest${rest.users}${rest.retained}${pct(rest)}`,
    ]);
    expect((await page.getByRole('table', { name: 'Active streaks by length' }).locator('tr').allTextContents()).slice(0, 2)).toEqual(['1 day6 users', '2 to 3 days1 user']);
    await expect.poll(async () => (await page.getByRole('table', { name: 'Users of XP by total' }).locator('tr').allTextContents()).join(' ')).toMatch(/\d/);
    await d.shot('analytics-users');
  });
});
