/**
 * A user's data rights on the dashboard's user page, in a real browser: **Export** saves the
 * user's export as `user-<id>.json` (the document the Admin API answers, the user's events in it);
 * **Erase** asks first (Cancel erases nothing), then erases the user, shows nothing more of them,
 * and follows the erasure until the workers are done.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s user page: data rights', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('exports a user as a file, and erases them once confirmed', async () => {
    const { page, s } = d;
    await s.setClock('2026-06-01T10:00:00Z');
    await s.metrics('lessons');
    const first = await s.event('lessons', { id: 'ann', name: 'Ann', email: 'ann@example.test' }, 1);
    const second = await s.event('lessons', 'ann', 2);
    await s.event('lessons', { id: 'bob', name: 'Bob' }, 5);

    await d.open('Users');
    await page.getByLabel('User id').fill('ann');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: 'Ann' }).waitFor();
    const part = page.getByRole('region', { name: 'Data rights' });

    const [download] = await Promise.all([page.waitForEvent('download'), part.getByRole('button', { name: 'Export' }).click()]);
    expect(download.suggestedFilename()).toBe('user-ann.json');
    const saved = readFileSync((await download.path())!, 'utf8');
    const doc = JSON.parse(saved) as { user: { id: string; email: string }; events: { body: { e?: string } }[] };
    expect(doc.user).toMatchObject({ id: 'ann', email: 'ann@example.test' });
    expect(doc.events.map((e) => e.body.e)).toEqual([first.eventId, second.eventId]);
    expect(saved).not.toContain('Bob');
    await expect.poll(() => part.getByRole('alert').textContent()).toBe('Exported: user-ann.json.');

    // Cancel erases nothing.
    await part.getByRole('button', { name: 'Erase' }).click();
    expect(await d.confirm('Cancel')).toContain('Erase the user ann?');
    expect((await s.request('GET', '/api/users/ann')).status).toBe(200);

    await part.getByRole('button', { name: 'Erase' }).click();
    await d.confirm('Erase');
    const status = part.getByRole('status', { name: 'Erasure' });
    await expect.poll(() => status.textContent()).toMatch(/^Erasing/);
    // What the page showed of Ann goes at once: her name, email and parts; the erasure stays followed.
    await page.getByRole('status', { name: 'Erased user' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Ann', exact: true }).count()).toBe(0);
    expect(await page.locator('#user-profile').textContent()).not.toContain('ann@example.test');
    expect(await page.getByRole('region', { name: 'Streak' }).count()).toBe(0);
    expect((await s.request('GET', '/api/users/ann')).status).toBe(404);
    // The workers finish it (the drain archives the erasure's entry first); the page follows.
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return status.textContent();
    }, { timeout: 20_000 }).toMatch(/^Erased: \d+ Redis keys/);
    expect(await part.getByRole('button', { name: 'Erase' }).isDisabled()).toBe(true);
    expect((await s.request('GET', '/api/users/bob')).status).toBe(200);
    await d.shot('user-erased');
  });
});
