/**
 * Importing a history from the dashboard's Users page in a real browser, against the real server
 * with its workers, under the manual clock: a file with an item the import refuses shows the
 * refusal under the file and applies nothing; a file of past events in no order is applied, its
 * progress followed to the end, and the user's totals and streak are those of the days the events
 * happened (checked through the APIs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

describe('importing a history from the dashboard', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('refuses a file with an item it cannot apply, then imports one and follows it to the end', async () => {
    const { page, s } = d;
    await s.setClock('2026-06-01T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    const event = (day: string, extra: Record<string, unknown> = {}) => ({ key: 'lessons', user: { id: 'ana', tz: 'UTC' }, value: 2, occurredAt: `2026-05-${day}T09:00:00Z`, ...extra });
    await d.open('Users');
    const form = page.getByRole('form', { name: 'Import history' });

    await form.getByLabel('File of events').setInputFiles({
      name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify([event('10'), { key: 'lessons', user: { id: 'ana' }, value: 1 }])),
    });
    await form.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => page.locator('#import-file-error').textContent()).toMatch(/^Item 1: .*occurredAt/);
    expect((await s.request('GET', '/api/users/ana')).status).toBe(404);

    const lines = [event('12'), event('10'), event('11')].map((e) => JSON.stringify(e)).join('\n');
    await form.getByLabel('File of events').setInputFiles({ name: 'history.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines) });
    await form.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('history.ndjson: 3 of 3 applied, 0 failed. Done.');
    expect(await page.locator('#import-file-error').textContent()).toBe('');
    expect(await form.locator('progress').evaluate((p) => [(p as unknown as { value: number }).value, (p as unknown as { max: number }).max])).toEqual([3, 3]);
    expect((await s.request('GET', '/api/users/ana/metrics/lessons')).body.current).toBe(6);
    const streak = (await s.request('GET', '/api/users/ana/streak?historyPeriods=30')).body;
    expect(streak.streakHistory.find((h: { periodStart: string }) => h.periodStart === '2026-05-12')).toMatchObject({ length: 3 });
    await d.shot('users-import');
  });
});
