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
});
