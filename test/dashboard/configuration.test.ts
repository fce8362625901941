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
    // The form is ready for the next one: its points back to 10.
    expect(await box.getByLabel('Points', { exact: true }).inputValue()).toBe('10');
    await box.getByLabel('Points', { exact: true }).fill('5');
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
    await expect.poll(() => box.locator('table.levels tbody tr').allTextContents()).toEqual(['10beginnerBeginnerEditDelete', '100scholarScholarEditDelete']);

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
    expect(await d.confirm('Delete')).toContain('Delete the level Scholar?');
    await expect.poll(() => box.locator('table.levels tbody tr').count()).toBe(1);
    const levels = (await s.request('GET', `/admin/v1/points/${systemId}/levels`)).body as { key: string }[];
    expect(levels.map((l) => l.key)).toEqual(['beginner']);
    const triggers = (await s.request('GET', `/admin/v1/points/${systemId}/triggers`)).body;
    expect(triggers).toMatchObject([{ type: 'user_creation', points: 5, status: 'active' }, { type: 'metric', metricThreshold: 2, points: 5 }]);
    expect((await s.request('GET', `/admin/v1/points/${systemId}/boosts`)).body).toMatchObject([{ name: 'Double weekend', multiplier: 2, status: 'active' }]);
  });

  it('creates and archives a tenant, which the switcher then offers and drops', async () => {
    const { page, s } = d;
    await d.open('Tenants');
    await expect.poll(() => page.getByText('No tenants yet: everything is in the default tenant.').count()).toBe(1);
    await page.getByLabel('Customer id').fill('acme');
    await page.getByLabel('Name').fill('Acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('cell', { name: 'acme', exact: true }).waitFor();
    await expect.poll(() => page.getByLabel('Tenant').locator('option').allTextContents()).toEqual(['Default', 'Acme']);
    await page.getByLabel('Customer id').fill('acme');
    await page.getByLabel('Name', { exact: true }).fill('Acme again');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await expect.poll(() => page.locator('#tenant-customer-error').textContent()).toContain('already exists');
    await page.getByLabel('Customer id').fill('café');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await expect.poll(() => page.locator('#tenant-customer-error').textContent()).toContain('customerId');
    await d.shot('tenants');
    await page.getByRole('button', { name: 'Archive Acme' }).click();
    expect(await d.confirm('Archive')).toContain('Tenant-ID: acme');
    await expect.poll(() => page.locator('table.tenants tbody tr').first().textContent()).toContain('archived');
    await expect.poll(() => page.getByLabel('Tenant').locator('option').allTextContents()).toEqual(['Default']);
    await page.getByRole('button', { name: 'Restore Acme' }).click();
    await expect.poll(() => page.getByLabel('Tenant').locator('option').allTextContents()).toEqual(['Default', 'Acme']);
    expect((await s.request('GET', '/admin/v1/tenants')).body).toMatchObject([{ customerId: 'acme', name: 'Acme', status: 'active' }]);
  });

  it('creates an API key shown once, which then works, and revokes it', async () => {
    const { page, s } = d;
    await d.open('API keys');
    await page.getByLabel('Name').fill('acme backend');
    await page.getByLabel('Kind').selectOption('application');
    await page.getByLabel('Bound to the tenant').selectOption({ label: 'Acme' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByRole('region', { name: 'The new key' });
    await secret.waitFor();
    expect(await secret.textContent()).toContain('will not show it again');
    const key = (await page.locator('#new-key').textContent())!;
    await d.shot('api-keys');
    // The key acts for Acme on the Application API, and is refused on the Admin API.
    const event = await s.request('POST', '/api/metrics/lessons/event', { key, body: { user: { id: 'kim' }, value: 1 } });
    expect(event.status, event.text).toBe(201);
    expect((await s.request('GET', '/api/users/kim', { tenant: 'acme' })).status).toBe(200);
    expect((await s.request('GET', '/admin/v1/metrics', { key })).status).toBe(403);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('#new-key').count()).toBe(0);
    // The key this session signed in with says so.
    expect(await page.locator('table.keys tbody tr', { hasText: 'this session\'s' }).count()).toBe(1);
    const row = page.locator('table.keys tbody tr', { hasText: 'acme backend' });
    await expect.poll(() => row.textContent()).toContain('Acme');
    await page.getByRole('button', { name: 'Revoke acme backend' }).click();
    expect(await d.confirm('Revoke')).toContain('refused (401) at once');
    await expect.poll(() => row.count()).toBe(0);
    expect((await s.request('GET', '/api/users/kim', { key })).status).toBe(401);
    // A key revoked while its box still shows it: the box goes too.
    await page.getByLabel('Name').fill('short-lived');
    await page.getByRole('button', { name: 'Create key' }).click();
    await secret.waitFor();
    await page.getByRole('button', { name: 'Revoke short-lived' }).click();
    await d.confirm('Revoke');
    await expect.poll(() => page.locator('#new-key').count()).toBe(0);
  });
});
