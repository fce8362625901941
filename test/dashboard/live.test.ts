/**
 * The dashboard's Live page in a real browser (Debian's chromium): a board chosen, its moves and
 * its top 10 shown as events happen, over the live updates WebSocket of the server serving the page
 * (the browser's own WebSocket and laurel's client, src/client/live.ts), with the workers running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s live page', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true }); });
  afterAll(async () => { await d?.close(); });

  it('shows a board\'s moves and top 10 as events happen', async () => {
    const { page, s } = d;
    await s.metrics('lessons');
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Weekly lessons', key: 'weekly', rankBy: 'metric', metricKey: 'lessons', status: 'active', start: '2020-01-01' }],
    });
    expect(board.status, board.text).toBe(201);
    await d.open('Live');
    await page.getByLabel('Leaderboard').selectOption({ label: 'Weekly lessons' });
    await expect.poll(() => page.locator('[data-state]').textContent()).toBe('open');
    // The subscription answered: what follows is sent.
    await page.locator('[data-following]').waitFor();
    await s.event('lessons', 'ann', 3);
    await s.event('lessons', 'bob', 5);
    const moves = page.getByRole('table', { name: 'Moves' }).locator('tbody tr');
    await expect.poll(() => moves.count()).toBeGreaterThanOrEqual(2);
    await expect.poll(async () => (await moves.allTextContents()).some((t) => t.includes('bob') && t.includes('new → 1'))).toBe(true);
    await expect.poll(() => page.getByRole('table', { name: 'Top 10' }).locator('tbody tr').allTextContents()).toEqual(['1bob5', '2ann3']);
    await s.event('lessons', 'ann', 4);
    await expect.poll(async () => (await moves.first().textContent()) ?? '').toMatch(/ann2 → 13 → 7/);
    await expect.poll(() => page.getByRole('table', { name: 'Top 10' }).locator('tbody tr').allTextContents()).toEqual(['1ann7', '2bob5']);
    await d.shot('live');
  });
});
