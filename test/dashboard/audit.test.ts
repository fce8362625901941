/**
 * The dashboard's Audit page in a real browser (test/dashboard/browser.ts), against the real server
 * and workers: the Admin API's writes newest first with their tenant's name, a refused one with its status, a body opened
 * without its secrets, found by key and by operation, a page at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s audit page', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true }); });
  afterAll(async () => { await d?.close(); });

  it('lists the Admin API\'s writes, finds them by key and operation, and pages through them', async () => {
    const { page, s } = d;
    const made = await s.request('POST', '/admin/v1/api-keys', { body: [{ name: 'Deploy script', kind: 'admin' }] });
    expect(made.status, made.text).toBe(201);
    const script = made.body.created[0] as { id: string; key: string };
    const tenant = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme-audit', name: 'Acme' }] });
    expect(tenant.status, tenant.text).toBe(201);
    const as = (method: string, path: string, body?: unknown) => s.request(method, path, { key: script.key, ...(body === undefined ? {} : { body }) });
    for (let i = 0; i < 27; i++) expect((await as('POST', '/admin/v1/metrics', [{ name: `Metric ${i}`, key: `metric-${i}` }])).status).toBe(201);
    expect((await as('DELETE', '/admin/v1/metrics')).status).toBe(400);
    const batch = await s.request('POST', '/admin/v1/metrics/events', {
      key: script.key, tenant: 'acme-audit', body: [{ key: 'metric-0', user: { id: 'ada', deviceTokens: ['device-secret'] }, value: 1 }],
    });
    expect(batch.status, batch.text).toBe(202);
    await s.api.audit.settle();
    await s.workers!.testing.auditNow();

    await d.open('Audit');
    const rows = page.locator('table.audit tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    // Newest first: the batch, the refused delete.
    expect(await rows.nth(0).locator('td').nth(2).textContent()).toBe('POST /admin/v1/metrics/events');
    // Its tenant by name, not by id.
    await expect.poll(() => rows.nth(0).locator('td').nth(5).textContent()).toBe('Acme');
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual([expect.any(String), 'Deploy script', 'DELETE /admin/v1/metrics', '400', '—', 'account', expect.any(String)]);
    await rows.nth(0).getByText('Body').click();
    const body = await rows.nth(0).locator('pre').textContent();
    expect(JSON.parse(body!)).toEqual([{ key: 'metric-0', user: { id: 'ada', deviceTokens: '[redacted]' }, value: 1 }]);

    // By key and operation: the script's 27 creations, 25 then 2.
    await page.getByLabel('Key', { exact: true }).selectOption({ label: 'Deploy script' });
    await page.getByLabel('Operation').fill('POST /admin/v1/metrics');
    const newest = (await s.request('GET', '/admin/v1/metrics?limit=100')).body.find((m: { key: string }) => m.key === 'metric-26').id as string;
    await page.getByRole('button', { name: 'Find' }).click();
    // The first row the newest creation: the page found, not the one before.
    await expect.poll(() => rows.nth(0).locator('td').nth(4).textContent()).toBe(newest);
    expect(await page.getByRole('status').textContent()).toBe('Writes 1 to 25');
    expect(await rows.locator('td:nth-child(3)').allTextContents()).toEqual(Array(25).fill('POST /admin/v1/metrics'));
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Writes 26 to 27');
    expect(await rows.count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Writes 1 to 25');
    await d.shot('audit');
  });
});
