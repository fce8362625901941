/**
 * The dashboard's configuration pages in a real browser (test/dashboard/browser.ts), against the
 * real server: attributes, points levels and boosts, the leaderboards' lifecycle and past runs,
 * streak freezes, restore and pauses, tenants and API keys, webhooks and notifications. Each page's
 * forms are used as a person would, and what they did is checked through the Admin API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s configuration pages', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard(); });
  afterAll(async () => { await d?.close(); });

  it('creates attributes, and shows a refusal next to its field', async () => {
    const { page, s } = d;
    await d.open('Attributes');
    await expect.poll(() => page.getByText('No attributes yet.').count()).toBe(1);
    await page.getByLabel('Name').fill('Plan');
    await page.getByLabel('Key').fill('plan');
    await page.getByLabel('Kind').selectOption('user');
    await page.getByRole('button', { name: 'Create attribute' }).click();
    await page.getByRole('cell', { name: 'plan', exact: true }).waitFor();
    await page.getByLabel('Name').fill('Plan again');
    await page.getByLabel('Key').fill('plan');
    await page.getByRole('button', { name: 'Create attribute' }).click();
    await expect.poll(() => page.locator('#attribute-key-error').textContent()).toContain('already exists');
    expect(await page.locator('#attribute-name-error').textContent()).toBe('');
    await d.shot('attributes');
    expect((await s.request('GET', '/admin/v1/attributes')).body).toMatchObject([{ key: 'plan', name: 'Plan', type: 'user' }]);
  });

  it('adds triggers, levels and boosts to a points system, and deletes a level', async () => {
    const { page, s } = d;
    await s.metrics('lessons');
    const made = await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp' }] });
    expect(made.status, made.text).toBe(201);
    const systemId = (made.body as { created: { id: string }[] }).created[0].id;
    await d.open('Points');
    await page.getByRole('button', { name: 'Configure XP' }).click();
    const box = page.getByRole('region', { name: 'Configuration of XP' });
    await expect.poll(() => box.getByText('No triggers yet.').count()).toBe(1);
    await box.getByLabel('Awards points for').selectOption({ label: 'A new user' });
    await box.getByLabel('Points', { exact: true }).fill('5');
    await box.getByRole('button', { name: 'Add trigger' }).click();
    await box.getByRole('cell', { name: 'a new user', exact: true }).waitFor();
    await box.getByLabel('Awards points for').selectOption({ label: 'A metric' });
    await box.getByLabel('Metric', { exact: true }).selectOption({ label: 'Metric lessons' });
    await box.getByLabel('For every (units)').fill('2');
    await box.getByRole('button', { name: 'Add trigger' }).click();
    await box.getByRole('cell', { name: 'every 2 of Metric lessons', exact: true }).waitFor();

    await box.getByLabel('Level name').fill('Beginner');
    await box.getByLabel('Level key').fill('beginner');
    await box.getByLabel('Reached at (points)').fill('10');
    await box.getByRole('button', { name: 'Add level' }).click();
    await box.getByRole('cell', { name: 'beginner', exact: true }).waitFor();
    await box.getByLabel('Level name').fill('Scholar');
    await box.getByLabel('Level key').fill('beginner');
    await box.getByLabel('Reached at (points)').fill('100');
    await box.getByRole('button', { name: 'Add level' }).click();
    await expect.poll(() => page.locator('#level-key-error').textContent()).toContain('already exists');
    await box.getByLabel('Level key').fill('scholar');
    await box.getByRole('button', { name: 'Add level' }).click();
    await expect.poll(() => box.locator('table.levels tbody tr').allTextContents()).toEqual(['10beginnerBeginnerDelete', '100scholarScholarDelete']);

    await box.getByLabel('Boost name').fill('Double weekend');
    await box.getByLabel('Multiplier').fill('2');
    await box.getByRole('button', { name: 'Add boost' }).click();
    await expect.poll(() => box.locator('table.boosts tbody tr').first().textContent()).toContain('Double weekend');
    await box.getByLabel('Boost name').fill('No boost');
    await box.getByLabel('Multiplier').fill('1');
    await box.getByRole('button', { name: 'Add boost' }).click();
    await expect.poll(() => page.locator('#boost-multiplier-error').textContent()).toContain('multiplier must not be 1');
    await d.shot('points-configuration');

    await box.getByRole('button', { name: 'Delete level Scholar' }).click();
    await expect.poll(() => box.locator('table.levels tbody tr').count()).toBe(1);
    const levels = (await s.request('GET', `/admin/v1/points/${systemId}/levels`)).body as { key: string }[];
    expect(levels.map((l) => l.key)).toEqual(['beginner']);
    const triggers = (await s.request('GET', `/admin/v1/points/${systemId}/triggers`)).body;
    expect(triggers).toMatchObject([{ type: 'user_creation', points: 5, status: 'active' }, { type: 'metric', metricThreshold: 2, points: 5 }]);
    expect((await s.request('GET', `/admin/v1/points/${systemId}/boosts`)).body).toMatchObject([{ name: 'Double weekend', multiplier: 2, status: 'active' }]);
  });
});
