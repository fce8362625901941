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
});
