/**
 * The dashboard's flows a new user walks, in a real browser under the
 * manual clock (its day is not the browser's: the pages must not go by the browser's day):
 * a board every 7 days created without a start (scheduled for the next Monday; active when today is
 * one), and with a start typed ahead; the destructive actions asked first with what they lose
 * (an achievement's completions; Cancel keeps it); metrics edited, archived and restored; the
 * user list searched by id prefix, email and attribute, paged, a row opening the user; the
 * achievements table naming the metric; the charts titled, their axes labelled, the buckets in
 * words; the forms empty after a create.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAchievements, putStreakSettings } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s flows', () => {
  let d: Dashboard;
  let ids: Record<string, string>;
  beforeAll(async () => {
    d = await openDashboard({ workers: true, clock: 'manual' });
    // A Wednesday.
    await d.s.setClock('2026-03-04T10:00:00Z');
    ids = await d.s.metrics('lessons');
  });
  afterAll(async () => { await d?.close(); });

  const boards = async () => (await d.s.request('GET', '/admin/v1/leaderboards?limit=100')).body as { key: string; status: string; start: string }[];

  it('creates a weekly board without a start: scheduled for the next Monday, or active on a Monday; a start typed ahead schedules it', async () => {
    const { page, s } = d;
    await d.open('Leaderboards');
    const create = async (name: string, key: string, start = '') => {
      await page.getByLabel('Ranks the metric').selectOption({ label: 'Metric lessons' });
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Key').fill(key);
      await page.getByLabel('Starts a new run').selectOption('day');
      await page.getByLabel('N', { exact: true }).fill('7');
      if (start !== '') await page.getByLabel('Starts on (optional)').fill(start);
      await page.getByRole('button', { name: 'Create leaderboard' }).click();
    };
    const said = () => page.getByRole('form', { name: 'New leaderboard' }).getByRole('status').textContent();
    await create('Weekly', 'weekly');
    await expect.poll(said).toBe('Weekly is scheduled: it starts on 2026-03-09.');
    await page.getByRole('cell', { name: 'weekly from 2026-03-09' }).waitFor();
    // The form is empty again, ready for the next one.
    expect(await page.getByLabel('Name').inputValue()).toBe('');
    expect(await page.getByLabel('Starts a new run').inputValue()).toBe('');
    expect(await page.locator('#board-name-error').textContent()).toBe('');
    await d.shot('leaderboards-weekly');

    await create('Spring', 'spring', '2026-04-01');
    await expect.poll(said).toBe('Spring is scheduled: it starts on 2026-04-01.');
    await s.setClock('2026-03-09T10:00:00Z');
    await create('Monday', 'monday');
    await expect.poll(said).toBe('Monday is active from 2026-03-09.');
    expect(await boards()).toEqual(expect.arrayContaining([
      expect.objectContaining({ key: 'weekly', status: 'active', start: '2026-03-09' }),
      expect.objectContaining({ key: 'spring', status: 'scheduled', start: '2026-04-01' }),
      expect.objectContaining({ key: 'monday', status: 'active', start: '2026-03-09' }),
    ]));
    await page.reload();
    // Finishing a board asks first, and says its run becomes final.
    await page.getByRole('button', { name: 'Finish Monday' }).click();
    expect(await d.confirm('Finish')).toContain('Its current run ends today and becomes final');
    await expect.poll(async () => (await boards()).find((b) => b.key === 'monday')?.status).toBe('finished');
  });

  it('names the metric of an achievement, and asks before deleting one with what its users lose', async () => {
    const { page, s } = d;
    await createAchievements(s, [{ name: 'Ten lessons', key: 'ten', trigger: 'metric', metricId: ids.lessons, metricValue: 10 }]);
    for (const id of ['ann', 'bob', 'cid']) await s.event('lessons', id, 10);
    await s.event('lessons', 'dee', 1);
    await d.open('Achievements');
    const row = page.locator('table.achievements tbody tr', { hasText: 'ten' });
    await expect.poll(() => row.locator('td').allTextContents()).toEqual(['ten', 'Ten lessons', 'Metric lessons reaches 10', '3', '75%', 'EditDelete']);
    await page.getByRole('button', { name: 'Delete achievement ten' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the achievement Ten lessons?' });
    await expect.poll(() => dialog.textContent()).toContain('3 users completed it (75% of this tenant\'s users)');
    // Cancel has the focus: Enter keeps it.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect((await s.request('GET', '/admin/v1/achievements?limit=100')).body).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete achievement ten' }).click();
    // Escape keeps it too.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await s.request('GET', '/admin/v1/achievements?limit=100')).body).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete achievement ten' }).click();
    await d.shot('achievement-delete');
    await d.confirm('Delete');
    await expect.poll(() => page.getByText('No achievements yet.').count()).toBe(1);
    expect((await s.request('GET', '/admin/v1/achievements?limit=100')).body).toEqual([]);
  });

  it('edits a metric\'s name and units, archives it (asked first) and restores it', async () => {
    const { page, s } = d;
    await s.metrics('revenue');
    await d.open('Metrics');
    await page.getByRole('button', { name: 'Edit metric revenue' }).click();
    const form = page.getByRole('form', { name: 'Edit metric revenue' });
    await form.getByLabel('Name').fill('Revenue');
    await form.getByLabel('Counts').selectOption('currency');
    await form.getByLabel('Currency (ISO 4217, e.g. USD)').fill('EUR');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    const row = page.locator('table.metrics tbody tr', { hasText: 'revenue' });
    await expect.poll(() => row.locator('td').allTextContents()).toEqual(['revenue', 'Revenue', 'EUR', 'none', 'active', 'EditArchiveDelete']);
    await page.getByRole('button', { name: 'Archive metric revenue' }).click();
    expect(await d.confirm('Archive')).toContain('Events for revenue are refused (422) while it is archived');
    await expect.poll(() => row.locator('td').nth(4).textContent()).toBe('archived');
    expect((await s.request('POST', '/api/metrics/revenue/event', { body: { user: { id: 'ann' }, value: 5 } })).status).toBe(422);
    await d.shot('metrics');
    await page.getByRole('button', { name: 'Restore metric revenue' }).click();
    await expect.poll(() => row.locator('td').nth(4).textContent()).toBe('active');
    expect((await s.request('GET', '/admin/v1/metrics?limit=100')).body).toEqual(expect.arrayContaining([
      expect.objectContaining({ key: 'revenue', name: 'Revenue', unitType: 'currency', units: 'EUR', status: 'active' }),
    ]));
    // Deleting one something counts is asked, then refused with the Admin API's reason.
    await page.getByRole('button', { name: 'Delete metric lessons' }).click();
    await d.confirm('Delete');
    await expect.poll(() => page.locator('#metric-list-error').textContent()).toMatch(/lessons/);
  });

  it('finds users by id prefix, email and attribute, a page at a time, and opens one', async () => {
    const { page, s } = d;
    await s.attributes('user', 'plan');
    await s.event('lessons', { id: 'ada', name: 'Ada', email: 'Ada@Example.com', attributes: { plan: 'pro' } }, 1);
    await s.event('lessons', { id: 'adam', email: 'adam@example.org', attributes: { plan: 'free' } }, 1);
    const many = Array.from({ length: 30 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    for (const id of many) await s.event('lessons', { id, attributes: { plan: 'pro' } }, 1);
    await s.workers!.testing.drainNow();
    await d.open('Users');
    const box = page.getByRole('region', { name: 'Find users' });
    const found = () => box.locator('table.users tbody tr td:first-child').allTextContents();
    await box.getByLabel('Id starts with').fill('ad');
    await box.getByRole('button', { name: 'Search' }).click();
    await expect.poll(found).toEqual(['ada', 'adam']);
    await box.getByLabel('Id starts with').fill('');
    await box.getByLabel('Email starts with').fill('ADA@');
    await box.getByRole('button', { name: 'Search' }).click();
    await expect.poll(found).toEqual(['ada']);
    await box.getByLabel('Email starts with').fill('');
    await box.getByLabel('With the attribute').selectOption({ label: 'plan' });
    await box.getByLabel('Of the value').fill('pro');
    await box.getByRole('button', { name: 'Search' }).click();
    // 31 users with plan pro: 25, then 6.
    await expect.poll(found).toEqual(['ada', ...many.slice(0, 24)]);
    expect(await box.getByRole('status').textContent()).toBe('Users 1 to 25');
    expect(await box.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await d.shot('users-list');
    await box.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(found).toEqual(many.slice(24));
    expect(await box.getByRole('status').textContent()).toBe('Users 26 to 31');
    expect(await box.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await box.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(found).toEqual(['ada', ...many.slice(0, 24)]);
    await box.getByRole('button', { name: 'Open user ada' }).click();
    await page.getByRole('heading', { name: 'Ada', exact: true }).waitFor();
    expect(await page.locator('#user-profile dl').first().textContent()).toContain('plan: pro');
  });

  it('titles and labels every chart, and says its buckets in words', async () => {
    const { page, s } = d;
    const { lessons } = (await s.request('GET', '/admin/v1/metrics?limit=100')).body.reduce(
      (m: Record<string, string>, x: { key: string; id: string }) => ({ ...m, [x.key]: x.id }), {});
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    const xp = await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricKey: 'lessons', metricThreshold: 1, points: 10, status: 'active' }] }] });
    expect(xp.status, xp.text).toBe(201);
    await s.event('lessons', 'ann', 1);
    await s.event('lessons', 'eve', 30);
    await s.workers!.testing.drainNow();
    await d.open('Analytics');
    await page.getByLabel('From', { exact: true }).fill('2026-03-01');
    await page.getByLabel('To', { exact: true }).fill('2026-03-09');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('.uplot canvas').count()).toBe(3);
    expect(await page.locator('figure.chart-figure h3').allTextContents()).toEqual([
      'Events and achievement completions per day', 'Active, weekly active and new users per day', 'Events per day by metric',
    ]);
    // Each axis says what it counts (drawn on the canvas; said to a screen reader in the same words).
    // Polled: the page draws its three charts for its default range (the last 14 days, no data)
    // before the range asked for is read, so three canvases do not yet say which range they show.
    await expect.poll(() => page.locator('figure.chart-figure [role="img"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([
      'Events and achievement completions per day. Across: Day (UTC). Up: Events or completions. Lines: Events, Completions.',
      'Active, weekly active and new users per day. Across: Day (UTC). Up: Users. Lines: Active users, Weekly active users, New users.',
      'Events per day by metric. Across: Day (UTC). Up: Events. Lines: Metric lessons.',
    ]);
    // The metric chart's legend names the metric, not its key.
    // (uPlot draws the legend's series after the chart's frame.)
    await expect.poll(() => page.locator('.uplot').nth(2).locator('.u-legend').textContent()).toContain('Metric lessons');
    await expect.poll(() => page.getByRole('table', { name: 'Active streaks by length' }).locator('th').allTextContents()).toContain('1 day');
    await expect.poll(() => page.getByRole('table', { name: 'Users of XP by total' }).locator('tr').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringMatching(/^no points\d+ users?$/), expect.stringMatching(/^\d+ to \d+ points1 user$/)]));
    await d.shot('analytics-charts');
    await d.open('Points');
    await expect.poll(() => page.locator('table.points tbody tr').first().locator('td').nth(3).textContent()).toMatch(/^(no points: \d+ users?; )?\d+ to \d+ points: \d+ users?/);
  });
});
