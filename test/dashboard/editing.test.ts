/**
 * The dashboard's edit forms in a real browser (test/dashboard/browser.ts), against the real server:
 * achievements, leaderboards, and a points system's triggers, levels and boosts. Each is edited as
 * a person would, the change checked through the Admin API, and a refused edit's message found
 * under the field it concerns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, createAchievements } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s edit forms', () => {
  let d: Dashboard;
  let ids: Record<string, string>;
  beforeAll(async () => {
    d = await openDashboard();
    ids = {
      ...await d.s.metrics('lessons', 'quizzes'),
      ...await d.s.attributes('user', 'plan'),
      ...await d.s.attributes('event', 'source'),
    };
  });
  afterAll(async () => { await d?.close(); });

  it('edits an achievement: its texts, total, event and user attribute filters; a key in use is refused under the key', async () => {
    const { page, s } = d;
    const made = await createAchievements(s, [
      { name: 'Five lessons', key: 'five', trigger: 'metric', metricId: ids.lessons, metricValue: 5 },
      { name: 'Ten lessons', key: 'ten', trigger: 'metric', metricId: ids.lessons, metricValue: 10 },
    ]);
    await d.open('Achievements');
    await page.getByRole('button', { name: 'Edit achievement five' }).click();
    const form = page.getByRole('form', { name: 'Edit achievement five' });
    await expect.poll(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe('Five lessons');
    // The form takes the focus: the keyboard goes on from there.
    expect(await form.getByLabel('Name', { exact: true }).evaluate((el) => el === document.activeElement)).toBe(true);
    await form.getByLabel('Name', { exact: true }).fill('Three quizzes');
    await form.getByLabel('When the metric').selectOption({ label: 'Metric quizzes' });
    await form.getByLabel('Reaches the total').fill('3');
    await form.getByLabel('Description').fill('Three quizzes from the app');
    await form.getByLabel('Badge image URL').fill('https://example.com/three.png');
    await form.getByRole('button', { name: 'Add a filter: Counts only events with' }).click();
    await form.getByLabel('Counts only events with 1: value').fill('app');
    await form.getByRole('button', { name: 'Add a filter: Only users with' }).click();
    await form.getByLabel('Only users with 1: value').fill('pro');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    await d.shot('achievement-edit');
    expect((await s.request('GET', `/admin/v1/achievements/${made.five}`)).body).toMatchObject({
      key: 'five', name: 'Three quizzes', description: 'Three quizzes from the app', badge: { url: 'https://example.com/three.png' },
      metricId: ids.quizzes, metricValue: 3,
      eventAttributes: [{ attributeId: ids.source, attributeValue: 'app' }],
      userAttributes: [{ attributeId: ids.plan, attributeValue: 'pro' }],
    });
    await page.getByRole('cell', { name: 'Three quizzes', exact: true }).waitFor();

    // A filter removed, and a key in use: refused, the message under the key.
    await form.getByRole('button', { name: 'Remove Only users with 1' }).click();
    await form.getByLabel('Key', { exact: true }).fill('ten');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#achievement-edit-key-error').textContent()).toContain('already exists');
    expect(await page.locator('#achievement-edit-name-error').textContent()).toBe('');
    expect((await s.request('GET', `/admin/v1/achievements/${made.five}`)).body).toMatchObject({ key: 'five', userAttributes: [{ attributeValue: 'pro' }] });
    await form.getByLabel('Key', { exact: true }).fill('three');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', `/admin/v1/achievements/${made.five}`)).body).toMatchObject({ key: 'three', userAttributes: [] });
    await form.getByRole('button', { name: 'Close' }).click();
    expect(await form.count()).toBe(0);
  });
});
