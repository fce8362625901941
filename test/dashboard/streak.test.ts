/**
 * The streak page in a real browser, under the manual clock: the rule with its freezes, a freeze
 * granted and a lost streak restored for users named, a pause added (a refused one's message under
 * its field) and removed; a second metric added to the rule, and its evaluation chosen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s streak page', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('saves the rule with its freezes, grants a freeze, restores a lost streak, and adds and removes a pause', async () => {
    const { page, s } = d;
    await s.setClock('2026-03-02T12:00:00Z');
    await s.metrics('lessons');
    await d.open('Streak');
    const rule = page.getByRole('form', { name: 'Streak rule' });
    await rule.getByLabel('Extended by the metric').selectOption({ label: 'Metric lessons' });
    await rule.getByLabel('At most').fill('3');
    await rule.getByLabel('To start with').fill('0');
    await rule.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => rule.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body)
      // Auto-earning off: null, as Admin API 1.26.0 answers it (the page shows 0).
      .toMatchObject({ frequency: 'daily', freezes: { max: 3, initial: 0, maxCount: 3, startCount: 0, autoEarnInterval: null, autoEarnAmount: null } });
    // Read back when the page opens again.
    await page.reload();
    await expect.poll(() => rule.getByLabel('At most').inputValue()).toBe('3');

    // ann extends three days running, then misses two: lost; bob acts today.
    for (const day of ['02', '03', '04']) {
      await s.setClock(`2026-03-${day}T12:00:00Z`);
      await s.event('lessons', 'ann', 1);
    }
    await s.setClock('2026-03-07T12:00:00Z');
    await s.event('lessons', 'bob', 1);
    expect((await s.request('GET', '/api/users/ann/streak')).body).toMatchObject({ length: 0 });
    const users = page.getByRole('form', { name: 'Users\' streaks' });
    await users.getByLabel('User ids (separated by commas)').fill('ann, nobody');
    await users.getByRole('button', { name: 'Restore the streak' }).click();
    await expect.poll(() => users.getByRole('status').textContent()).toBe('Streak restored for ann.');
    expect(await page.locator('#streak-users-error').textContent()).toBe('nobody: User does not exist');
    expect((await s.request('GET', '/api/users/ann/streak')).body).toMatchObject({ length: 3 });
    await users.getByLabel('User ids (separated by commas)').fill('bob');
    await users.getByRole('button', { name: 'Grant a freeze' }).click();
    await expect.poll(() => users.getByRole('status').textContent()).toBe('A freeze granted to bob.');
    expect((await s.request('GET', '/api/users/bob/streak')).body).toMatchObject({ freezes: 1, maxFreezes: 3 });

    const pauses = page.getByRole('form', { name: 'New pause' });
    await pauses.getByLabel('User id').fill('ann');
    await pauses.getByLabel('From (the user\'s day)').fill('2026-03-01');
    await pauses.getByLabel('To').fill('2026-03-09');
    await pauses.getByRole('button', { name: 'Pause the streak' }).click();
    await expect.poll(() => page.locator('#pause-start-error').textContent()).toContain('cannot start in the past');
    await expect.poll(() => page.getByText('No pauses ahead for ann.').count()).toBe(1);
    await pauses.getByLabel('From (the user\'s day)').fill('2026-03-08');
    await pauses.getByRole('button', { name: 'Pause the streak' }).click();
    await expect.poll(() => page.locator('table.pauses tbody tr').allTextContents()).toEqual(['2026-03-082026-03-09Remove']);
    expect(await page.locator('#pause-start-error').textContent()).toBe('');
    await d.shot('streak-admin');
    await page.getByRole('button', { name: 'Remove the pause from 2026-03-08' }).click();
    expect(await d.confirm('Remove')).toContain('Remove the pause of ann from 2026-03-08 to 2026-03-09?');
    await expect.poll(() => page.getByText('No pauses ahead for ann.').count()).toBe(1);
    expect((await s.request('GET', '/api/users/ann/streak')).body).toMatchObject({ pauses: [] });
  });

  it('adds a second metric to the rule and chooses the evaluation; a metric named twice is refused under its field', async () => {
    const { page, s } = d;
    const { pages } = await s.metrics('pages');
    const lessons = ((await s.request('GET', '/admin/v1/streaks/settings')).body as { metrics: { metricId: string }[] }).metrics[0].metricId;
    await page.reload();
    const rule = page.getByRole('form', { name: 'Streak rule' });
    await expect.poll(() => rule.getByLabel('Extended by the metric').inputValue()).toBe(lessons);
    await rule.getByRole('button', { name: 'Add a metric' }).click();
    // The same metric twice: refused, the message under the second.
    await rule.getByLabel('Metric 2', { exact: true }).selectOption({ label: 'Metric lessons' });
    await rule.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => page.locator('#streak-metric-2-error').textContent()).toContain('is listed twice');
    expect(await page.locator('#streak-metric-error').textContent()).toBe('');
    await rule.getByLabel('Metric 2', { exact: true }).selectOption({ label: 'Metric pages' });
    await rule.getByLabel('Metric 2: at least, per period').fill('5');
    await rule.getByLabel('With several metrics, a period counts when').selectOption('any');
    await rule.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => rule.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.locator('#streak-metric-2-error').textContent()).toBe('');
    await d.shot('streak-rule-metrics');
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body).toMatchObject({
      evaluation: 'any', metrics: [{ metricId: lessons, threshold: 1 }, { metricId: pages, threshold: 5 }], freezes: { max: 3 },
    });
    // Read back when the page opens again; the second metric removed.
    await page.reload();
    await expect.poll(() => rule.getByLabel('Metric 2', { exact: true }).inputValue()).toBe(pages);
    expect(await rule.getByLabel('With several metrics, a period counts when').inputValue()).toBe('any');
    await rule.getByRole('button', { name: 'Remove metric 2' }).click();
    await rule.getByLabel('With several metrics, a period counts when').selectOption('all');
    await rule.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => rule.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body).toMatchObject({ evaluation: 'all', metrics: [{ metricId: lessons, threshold: 1 }] });
  });
});
