/**
 * The webhooks and notifications pages in a real browser, under the manual clock: an endpoint
 * created through the form (its secret shown once), its deliveries to a loopback receiver and a
 * retry; the notification settings, a template written with its live preview (a refusal under its
 * field), edited, and the deliveries it leads to (suppressed: no SMTP here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAchievements } from '../support/admin.js';
import { startReceiver } from '../support/receiver.js';
import { openDashboard, shown, type Dashboard } from './browser.js';

describe('the dashboard\'s webhooks and notifications', () => {
  let d: Dashboard;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  const work = async () => { await d.s.workers!.testing.drainNow(); await d.s.workers!.testing.webhooksNow(); };
  beforeAll(async () => {
    hook = await startReceiver();
    d = await openDashboard({ workers: true, clock: 'manual', env: { LAUREL_SMTP_URL: '', LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await d.s.setClock('2026-06-01T10:00:00Z');
    const { lessons } = await d.s.metrics('lessons');
    await createAchievements(d.s, [{ name: 'First', key: 'first', trigger: 'metric', metricId: lessons, metricValue: 1 }]);
  });
  afterAll(async () => {
    await d?.close();
    await hook?.close();
  });

  it('creates a webhook endpoint, shows its secret once, lists its deliveries and retries one', async () => {
    const { page, s } = d;
    await d.open('Webhooks');
    await expect.poll(() => page.getByText('No webhook endpoints yet.').count()).toBe(1);
    await page.getByLabel('Name').fill('Receiver');
    await page.getByLabel('URL').fill('ftp://example.com/hook');
    await page.getByLabel('achievement.completed').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => page.locator('#webhook-url-error').textContent()).toBe('url must use http or https');
    await page.getByLabel('URL').fill(hook.url('/hook'));
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = page.getByRole('region', { name: 'The signing secret' });
    await secret.waitFor();
    const first = await page.locator('#webhook-secret').textContent();
    expect(first).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('#webhook-secret').count()).toBe(0);
    await page.getByRole('cell', { name: 'Receiver', exact: true }).waitFor();

    hook.answer('/hook', 500);
    await s.event('lessons', 'ada', 1);
    await work();
    await page.getByRole('button', { name: 'Deliveries to Receiver' }).click();
    const rows = page.locator('table.deliveries tbody tr');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringMatching(/achievement\.completedadapending1500Retry$/)]);
    await page.getByRole('button', { name: /^Retry achievement\.completed/ }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Deliveries to Receiver' }).getByRole('status').textContent()).toBe('achievement.completed to be sent again.');
    await work();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringMatching(/achievement\.completedadadelivered2200Retry$/)]);
    expect(hook.at('/hook')).toHaveLength(2);
    await d.shot('webhooks');
    await page.getByRole('button', { name: 'Turn off Receiver' }).click();
    expect(await d.confirm('Turn off')).toContain('not sent to it later');
    await expect.poll(() => page.locator('table.webhooks tbody tr').first().textContent()).toContain('inactive');
    // A new secret, shown once.
    await page.getByRole('button', { name: 'Rotate the secret of Receiver' }).click();
    expect(await d.confirm('Rotate secret')).toContain('for 24 hours only');
    await page.locator('#webhook-secret').waitFor();
    const second = await page.locator('#webhook-secret').textContent();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
  });

  it('saves the notification settings, writes a template with its live preview, edits it, and lists the deliveries', async () => {
    const { page, s } = d;
    await d.open('Notifications');
    const settings = page.getByRole('form', { name: 'Notification settings' });
    await expect.poll(() => settings.getByLabel('Time zone of users without one').inputValue()).toBe('America/New_York');
    await settings.getByLabel('Emails from').fill('not an address');
    await settings.getByLabel('Public URL (the links in emails)').fill('https://acme.test');
    await settings.getByLabel('Time zone of users without one').fill('UTC');
    await settings.getByRole('button', { name: 'Save the settings' }).click();
    await expect.poll(() => page.locator('#ns-from-error').textContent()).toContain('must be an email address');
    await settings.getByLabel('Emails from').fill('Acme <hello@acme.test>');
    await settings.getByRole('button', { name: 'Save the settings' }).click();
    await expect.poll(() => settings.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/notifications/settings')).body)
      .toMatchObject({ defaultTimeZone: 'UTC', publicUrl: 'https://acme.test', email: { from: 'Acme <hello@acme.test>' } });

    const editor = page.getByRole('form', { name: 'New template' });
    const preview = page.getByRole('region', { name: 'Preview' });
    await editor.getByLabel('Key').fill('done');
    await editor.getByLabel('Subject').fill('Well done, {{ user.name }}');
    await editor.getByLabel('Text part').fill('You completed {{ achievement.name }}. {{ nope }}');
    await editor.getByLabel('HTML part').fill('<p>{{ achievement.name | upcase }}</p>');
    await expect.poll(() => preview.locator('.preview-subject').textContent()).toBe('subject: Well done, Ada');
    await expect.poll(() => preview.locator('.preview-text').textContent()).toBe('text: You completed First lesson. ');
    await expect.poll(() => preview.locator('iframe').getAttribute('srcdoc')).toBe('<p>FIRST LESSON</p>');
    // A filter that does not exist: the preview says so at once.
    await editor.getByLabel('Subject').fill('Hi {{ user.name | shout }}');
    await expect.poll(() => preview.getByRole('alert').textContent()).toContain('subject: undefined filter: shout');
    await editor.getByLabel('Subject').fill('Well done, {{ user.name }}');
    // A variable the type does not have: the Admin API refuses it, under its field.
    await editor.getByRole('button', { name: 'Create template' }).click();
    await expect.poll(() => page.locator('#tpl-text-error').textContent()).toContain('text names "nope"');
    await editor.getByLabel('Text part').fill('You completed {{ achievement.name }}.');
    await editor.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('cell', { name: 'done', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit done' }).click();
    const edit = page.getByRole('form', { name: 'Template done' });
    await expect.poll(() => edit.getByLabel('Subject').inputValue()).toBe('Well done, {{ user.name }}');
    await edit.getByLabel('Subject').fill('Bravo, {{ user.name }}');
    await edit.getByRole('button', { name: 'Save template' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/notifications/templates')).body)
      .toMatchObject([{ key: 'done', status: 'active', subject: 'Bravo, {{ user.name }}', text: 'You completed {{ achievement.name }}.' }]);
    await d.shot('notifications');

    // An achievement completed in the morning: its email is due at 17:00, and without SMTP it is suppressed.
    await s.event('lessons', { id: 'bea', email: 'bea@example.test' }, 1);
    await s.workers!.testing.drainNow();
    await s.setClock('2026-06-01T17:00:00Z');
    await s.workers!.testing.notifyNow();
    await page.getByLabel('User id').fill('bea');
    const rows = page.locator('table.notification-deliveries tbody tr');
    await expect.poll(async () => {
      await page.getByRole('button', { name: 'Show' }).click();
      return rows.allTextContents();
    }).toEqual([`${await shown(page, '2026-06-01T17:00:00Z')}achievement completedemailbeasuppressed (no transport)—`]);
    // Deleted from its row: the editor goes back to a new template.
    await page.getByRole('button', { name: 'Delete done' }).click();
    expect(await d.confirm('Delete')).toContain('no_template');
    await expect.poll(() => page.getByRole('cell', { name: 'done', exact: true }).count()).toBe(0);
    expect((await s.request('GET', '/admin/v1/notifications/templates')).body).toEqual([]);
  });
});
