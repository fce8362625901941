/**
 * The dashboard's forms for what Admin API 1.26.0 added, in a real browser under the manual clock:
 * the days off of a daily streak rule (saved with the rule, read back, effective on events, kept
 * off a weekly rule), and the anniversary trigger of an achievement (created with its years, its
 * refusal under the field, edited, completed by the workers a year on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s Admin API 1.26.0 forms', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('saves a daily rule\'s days off, reads them back, and saves none for a weekly rule', async () => {
    const { page, s } = d;
    await s.setClock('2026-04-03T10:00:00Z');
    await s.metrics('lessons');
    await d.open('Streak');
    const rule = page.getByRole('form', { name: 'Streak rule' });
    await rule.getByLabel('Extended by the metric').selectOption({ label: 'Metric lessons' });
    await rule.getByLabel('Saturday').check();
    await rule.getByLabel('Sunday').check();
    await rule.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => rule.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body).toMatchObject({ frequency: 'daily', daysOff: [0, 6] });
    await page.reload();
    await expect.poll(() => rule.getByLabel('Sunday').isChecked()).toBe(true);
    expect(await rule.getByLabel('Saturday').isChecked()).toBe(true);
    expect(await rule.getByLabel('Friday').isChecked()).toBe(false);
    await d.shot('streak-days-off');
    // In force: Friday extends, Saturday does not, Monday bridges the weekend.
    expect((await s.event('lessons', 'ann', 1)).currentStreak).toMatchObject({ length: 1, extended: true });
    await s.setClock('2026-04-04T10:00:00Z');
    expect((await s.event('lessons', 'ann', 1)).currentStreak).toMatchObject({ length: 1, extended: false });
    await s.setClock('2026-04-06T10:00:00Z');
    expect((await s.event('lessons', 'ann', 1)).currentStreak).toMatchObject({ length: 2, extended: true });
    // A weekly rule has none: the field goes, and the rule is saved without them.
    await rule.getByLabel('Frequency').selectOption('weekly');
    expect(await rule.getByLabel('Sunday').count()).toBe(0);
    await rule.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => rule.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body).toMatchObject({ frequency: 'weekly', daysOff: [] });
  });

  it('creates an anniversary achievement with its years, edits them, and shows its completions', async () => {
    const { page, s } = d;
    await s.setClock('2026-04-07T10:00:00Z');
    await d.open('Achievements');
    const form = page.getByRole('form', { name: 'New achievement' });
    await form.getByLabel('Completed when').selectOption('anniversary');
    await form.getByLabel('Name').fill('One year');
    await form.getByLabel('Key').fill('one-year');
    // Past the Admin API's bound: its refusal under the field.
    await form.getByLabel('Years since the user was created').fill('1001');
    await form.getByRole('button', { name: 'Create achievement' }).click();
    await expect.poll(() => page.locator('#achievement-years-error').textContent()).toContain('anniversaryYears');
    await form.getByLabel('Years since the user was created').fill('2');
    await form.getByRole('button', { name: 'Create achievement' }).click();
    await page.getByRole('cell', { name: 'one-year', exact: true }).waitFor();
    const stored = (await s.request('GET', '/admin/v1/achievements?limit=100')).body as { key: string; id: string }[];
    const id = stored.find((a) => a.key === 'one-year')!.id;
    expect((await s.request('GET', `/admin/v1/achievements/${id}`)).body).toMatchObject({ trigger: 'anniversary', anniversaryYears: 2, status: 'active' });

    await page.getByRole('button', { name: 'Edit achievement one-year' }).click();
    const edit = page.getByRole('form', { name: 'Edit achievement one-year' });
    await expect.poll(() => edit.getByLabel('Years since the user was created').inputValue()).toBe('2');
    await edit.getByLabel('Years since the user was created').fill('1');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', `/admin/v1/achievements/${id}`)).body).toMatchObject({ anniversaryYears: 1 });
    await d.shot('achievements-anniversary');

    // ann was created on 2026-04-03 (UTC): a year on, the workers complete it, and the list counts it.
    await s.workers!.testing.anniversariesIdle();
    // This pass alone: a scheduled one that took the user first could still be completing them when
    // the page reloads.
    await s.workers!.testing.pauseAnniversaryPass();
    await s.setClock('2027-04-03T00:00:00Z');
    expect(await s.workers!.testing.anniversariesNow()).toEqual({ users: 1, completed: 1 });
    await page.reload();
    await expect.poll(async () => (await page.locator('table.achievements tbody tr').allTextContents()).find((t) => t.startsWith('one-year')))
      .toMatch(/^one-yearOne year1 year since the user joined1/);
  });
});
