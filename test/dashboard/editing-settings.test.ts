/**
 * The dashboard's edit forms of what is not configuration of the game, in a real browser
 * (test/dashboard/browser.ts) against the real server: a webhook endpoint's URL and events, a
 * notification template's user attribute filters, a tenant renamed, and keys scoped to one user.
 * Each change is checked through the API, and a refused one's message found under its field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s edit forms of webhooks, templates, tenants and keys', () => {
  let d: Dashboard;
  let plan: string;
  beforeAll(async () => {
    d = await openDashboard({ workers: false });
    ({ plan } = await d.s.attributes('user', 'plan'));
  });
  afterAll(async () => { await d?.close(); });

  it('edits a webhook endpoint\'s name, URL and events; a private address is refused under the URL', async () => {
    const { page, s } = d;
    const hook = await adminCreateOne(s, '/admin/v1/webhooks', { name: 'Receiver', url: 'https://example.com/hook', events: ['achievement.completed'] });
    await d.open('Webhooks');
    await page.getByRole('button', { name: 'Edit webhook Receiver' }).click();
    const form = page.getByRole('form', { name: /^Edit webhook / });
    await form.getByLabel('URL').fill('http://127.0.0.1/hook');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#webhook-edit-url-error').textContent()).toContain('loopback or private address');
    // No event left: the Admin API's refusal under the events.
    await form.getByLabel('URL').fill('https://hooks.example.com/laurel');
    await form.getByLabel('achievement.completed').uncheck();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#webhook-edit-events-error').textContent()).toContain('events');
    expect(await page.locator('#webhook-edit-url-error').textContent()).toBe('');
    await form.getByLabel('Name', { exact: true }).fill('Hooks');
    await form.getByLabel('points.changed').check();
    await form.getByLabel('streak.lost').check();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    await d.shot('webhook-edit');
    expect((await s.request('GET', `/admin/v1/webhooks/${hook.id}`)).body).toMatchObject({
      name: 'Hooks', url: 'https://hooks.example.com/laurel', events: ['points.changed', 'streak.lost'], status: 'active',
    });
    await page.getByRole('cell', { name: 'https://hooks.example.com/laurel', exact: true }).waitFor();
  });

  it('gives a notification template user attribute filters; a value too long is refused under the filters', async () => {
    const { page, s } = d;
    const made = await adminCreateOne(s, '/admin/v1/notifications/templates', {
      key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Well done', text: 'You did it.',
    });
    await d.open('Notifications');
    await page.getByRole('button', { name: 'Edit done' }).click();
    const edit = page.getByRole('form', { name: 'Template done' });
    await expect.poll(() => edit.getByLabel('Subject').inputValue()).toBe('Well done');
    await edit.getByRole('button', { name: 'Add a filter: Only to users with' }).click();
    await edit.getByLabel('Only to users with 1: value').fill('x'.repeat(1025));
    await edit.getByRole('button', { name: 'Save template' }).click();
    await expect.poll(() => page.locator('#tpl-userAttributes-error').textContent()).toContain('userAttributes');
    await edit.getByLabel('Only to users with 1: value').fill('pro');
    await edit.getByRole('button', { name: 'Save template' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.locator('#tpl-userAttributes-error').textContent()).toBe('');
    await d.shot('template-filters');
    expect((await s.request('GET', `/admin/v1/notifications/templates/${made.id}`)).body).toMatchObject({
      key: 'done', subject: 'Well done', userAttributes: [{ attributeId: plan, attributeValue: 'pro' }],
    });
    // Read back when the template is chosen again.
    await page.reload();
    await page.getByRole('button', { name: 'Edit done' }).click();
    await expect.poll(() => edit.getByLabel('Only to users with 1: value').inputValue()).toBe('pro');
  });

  it('renames a tenant, which the switcher then shows; a name too long is refused under the name', async () => {
    const { page, s } = d;
    const tenant = await adminCreateOne(s, '/admin/v1/tenants', { customerId: 'acme', name: 'Acme' });
    await d.open('Tenants');
    await page.getByRole('button', { name: 'Rename Acme' }).click();
    const form = page.getByRole('form', { name: 'Rename tenant acme' });
    await form.getByLabel('New name').fill('A'.repeat(256));
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#tenant-rename-error').textContent()).toContain('name must NOT have more than 255 characters');
    await form.getByLabel('New name').fill('Acme Corp');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.locator('#tenant-rename-error').textContent()).toBe('');
    await expect.poll(() => page.locator('header').getByLabel('Tenant').locator('option').allTextContents()).toEqual(['Default', 'Acme Corp']);
    expect((await s.request('GET', `/admin/v1/tenants/${tenant.id}`)).body).toMatchObject({ customerId: 'acme', name: 'Acme Corp', status: 'active' });
    // Escape closes the form.
    await form.getByLabel('New name').press('Escape');
    await expect.poll(() => form.count()).toBe(0);
  });

  it('makes a key scoped to one user, shown once, which acts for that user only, and revokes it; refusals under their fields', async () => {
    const { page, s } = d;
    await s.metrics('lessons');
    await d.open('API keys');
    const box = page.getByRole('region', { name: 'Keys for one user' });
    await box.getByLabel('For the user (id)').fill('u'.repeat(256));
    await box.getByRole('button', { name: 'Create user key' }).click();
    await expect.poll(() => page.locator('#user-key-user-error').textContent()).toBe('userId must have 1 to 255 characters');
    await box.getByLabel('For the user (id)').fill('kim');
    await box.getByRole('button', { name: 'Create user key' }).click();
    const fresh = box.getByRole('region', { name: 'The new user key' });
    await fresh.waitFor();
    expect(await page.locator('#user-key-user-error').textContent()).toBe('');
    const key = (await page.locator('#new-user-key').textContent())!;
    const id = (await page.locator('#new-user-key-id').textContent())!;
    expect(key).toMatch(/^lrl_usr_/);
    await d.shot('user-keys');
    // It acts for kim, and for no one else.
    expect((await s.request('POST', '/api/metrics/lessons/event', { key, body: { user: { id: 'kim' }, value: 1 } })).status).toBe(201);
    expect((await s.request('POST', '/api/metrics/lessons/event', { key, body: { user: { id: 'lee' }, value: 1 } })).status).toBe(403);
    await fresh.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('#new-user-key').count()).toBe(0);

    // An id with no key: refused under the id. Then kim's key, from its row.
    await box.getByLabel('Key id').fill('00000000-0000-0000-0000-000000000000');
    await box.getByRole('button', { name: 'Revoke user key' }).click();
    await d.confirm('Revoke');
    await expect.poll(() => page.locator('#user-key-id-error').textContent()).toContain('not found');
    await box.getByRole('button', { name: `Revoke the key of kim ${id}` }).click();
    expect(await d.confirm('Revoke')).toContain('for kim is refused (401)');
    await expect.poll(() => box.getByRole('status').textContent()).toBe(`Key ${id} revoked.`);
    expect(await page.locator('#user-key-id-error').textContent()).toBe('');
    expect((await s.request('POST', '/api/metrics/lessons/event', { key, body: { user: { id: 'kim' }, value: 1 } })).status).toBe(401);
  });
});
