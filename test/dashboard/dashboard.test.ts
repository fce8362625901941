/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core against the real
 * server (which serves the built dashboard at /dashboard), the Admin and Application APIs behind
 * it. A person signs in with the admin key, creates a metric and a leaderboard through the forms,
 * sees an error next to the field it concerns, watches the rankings and a user's page after events
 * sent through the API, and switches tenant. Screenshots of each page go to test-output/dashboard/
 * (not committed).
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';
import { answerConfirmation } from './browser.js';

const SHOTS = 'test-output/dashboard';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the dashboard', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    s = await startTestServer({ workers: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('serves the page and its files with caching headers, and the page for its own routes', async () => {
    const index = await fetch(`${s.url}/dashboard/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await fetch(`${s.url}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${s.url}/dashboard/users`)).headers.get('content-type')).toMatch(/^text\/html/);
    expect((await fetch(`${s.url}/dashboard`)).headers.get('content-type')).toMatch(/^text\/html/);
    const missing = await fetch(`${s.url}/dashboard/assets/gone-123.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: expect.stringContaining('gone-123.js') });
  });

  it('refuses a key that is not an admin key, then signs in with the admin key', async () => {
    await page.goto(`${s.url}/dashboard/`);
    await page.getByLabel('Admin API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#admin-key-error').textContent()).toContain('not an admin key');
    await shot('sign-in');
    await page.getByLabel('Admin API key').fill(s.settings.adminKey!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Metrics' }).waitFor();
    await expect.poll(() => page.getByText('No metrics yet.').count()).toBe(1);
  });

  it('creates a metric through the form, and shows a refusal next to its field', async () => {
    await page.getByLabel('Name').fill('Lessons');
    await page.getByLabel('Key').fill('lessons');
    await page.getByRole('button', { name: 'Create metric' }).click();
    await page.getByRole('cell', { name: 'lessons', exact: true }).waitFor();
    // The same key again: the Admin API's issue, under the key.
    await page.getByLabel('Name').fill('Lessons again');
    await page.getByLabel('Key').fill('lessons');
    await page.getByRole('button', { name: 'Create metric' }).click();
    await expect.poll(() => page.locator('#metric-key-error').textContent()).toContain('already exists');
    expect(await page.locator('#metric-name-error').textContent()).toBe('');
    await shot('metrics');
    const listed = (await s.request('GET', '/admin/v1/metrics')).body as { key: string }[];
    expect(listed.map((m) => m.key)).toEqual(['lessons']);
  });

  it('creates an active leaderboard, and its rankings and a user\'s page follow the events sent through the API', async () => {
    await page.getByRole('link', { name: 'Leaderboards' }).click();
    await page.getByRole('heading', { name: 'Leaderboards' }).waitFor();
    await page.getByLabel('Name').fill('Top learners');
    await page.getByLabel('Key').fill('top-learners');
    await page.getByLabel('Ranks the metric').selectOption({ label: 'Lessons' });
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await expect.poll(() => page.getByText('Nobody ranks yet.').count()).toBe(1);
    await s.event('lessons', { id: 'ann', name: 'Ann' }, 3);
    await s.event('lessons', { id: 'bob', name: 'Bob' }, 5);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const rows = page.locator('table.rankings tbody tr');
    await expect.poll(() => rows.allTextContents()).toEqual(['1Bob5', '2Ann3']);
    await shot('leaderboards');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('User id').fill('ann');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: 'Ann' }).waitFor();
    expect(await page.locator('dl').first().textContent()).toContain('ann');
    await page.getByLabel('User id').fill('nobody');
    await page.getByRole('button', { name: 'Find' }).click();
    await expect.poll(() => page.locator('#user-id-error').textContent()).toContain('No user "nobody"');
    await shot('users');
  });

  it('draws the analytics from the archived event log', async () => {
    await s.workers!.testing.drainNow();
    const today = new Date().toISOString().slice(0, 10);
    const api = await s.request('GET', `/admin/v1/analytics?from=${today}&to=${today}`);
    expect(api.body).toMatchObject({
      from: today, to: today,
      days: [{ date: today, events: 2, activeUsers: 2, weeklyActiveUsers: 2, newUsers: 2, completions: 0, byMetric: { lessons: 2 } }],
      retention: { days: 14, cohortFrom: null, cohortTo: null, control: { users: 0, retained: 0 }, rest: { users: 0, retained: 0 } },
    });
    expect((await s.request('GET', '/admin/v1/analytics?from=2026-02-30')).body).toMatchObject({ error: expect.stringContaining('from must be a date') });
    expect((await s.request('GET', '/admin/v1/analytics?from=2026-05-02&to=2026-05-01')).status).toBe(400);
    expect((await s.request('GET', '/admin/v1/analytics?from=2024-01-01&to=2026-01-01')).status).toBe(400);
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Analytics' }).waitFor();
    await page.locator('.uplot canvas').first().waitFor();
    await expect.poll(() => page.locator('table.analytics tbody tr').allTextContents()).toEqual([`${today}22220Lessons: 2`]);
    await shot('analytics');
  });

  it('creates an achievement whose completions follow the events, and sets the streak rule', async () => {
    await page.getByRole('link', { name: 'Achievements' }).click();
    await page.getByRole('heading', { name: 'Achievements' }).waitFor();
    await expect.poll(() => page.getByText('No achievements yet.').count()).toBe(1);
    await page.getByLabel('Name').fill('Five lessons');
    await page.getByLabel('Key').fill('five');
    await page.getByLabel('When the metric').selectOption({ label: 'Lessons' });
    await page.getByLabel('Reaches the total').fill('5');
    await page.getByRole('button', { name: 'Create achievement' }).click();
    await page.getByRole('cell', { name: 'five', exact: true }).waitFor();
    // The same key again: refused by the Admin API, the message under the key.
    await page.getByLabel('Name').fill('Five again');
    await page.getByLabel('Key').fill('five');
    await page.getByRole('button', { name: 'Create achievement' }).click();
    await expect.poll(() => page.locator('#achievement-key-error').textContent()).toContain('already exists');
    // bob has 5 lessons already: the backfill completes it for him; then cid reaches 5.
    await s.workers!.testing.achievementsIdle();
    await s.event('lessons', { id: 'cid', name: 'Cid' }, 5);
    await page.reload();
    await expect.poll(async () => (await page.locator('table.achievements tbody tr').allTextContents())[0]).toMatch(/^fiveFive lessonsLessons reaches 52/);
    await shot('achievements');
    // The other triggers: one completed through the API, and a composite of both.
    await page.getByLabel('Completed when').selectOption('api');
    await page.getByLabel('Name').fill('Onboarded');
    await page.getByLabel('Key').fill('onboarded');
    await page.getByRole('button', { name: 'Create achievement' }).click();
    await page.getByRole('cell', { name: 'onboarded', exact: true }).waitFor();
    await page.getByLabel('Completed when').selectOption('achievement');
    await page.getByLabel('Name').fill('All of it');
    await page.getByLabel('Key').fill('all-of-it');
    await page.getByLabel('Achievements to complete').selectOption([{ label: 'Five lessons' }, { label: 'Onboarded' }]);
    await page.getByRole('button', { name: 'Create achievement' }).click();
    await page.getByRole('cell', { name: 'all-of-it', exact: true }).waitFor();
    const stored = (await s.request('GET', '/admin/v1/achievements?limit=100')).body as { key: string; trigger: string; achievementIds?: string[] }[];
    expect(stored.find((a) => a.key === 'onboarded')).toMatchObject({ trigger: 'api' });
    expect(stored.find((a) => a.key === 'all-of-it')?.achievementIds).toHaveLength(2);
    await shot('achievements-kinds');
    // Deleted from its row (the composite first: the others are its parts).
    await page.getByRole('button', { name: 'Delete achievement all-of-it' }).click();
    expect(await answerConfirmation(page, 'Delete')).toContain('Nobody has completed it yet.');
    await expect.poll(() => page.getByRole('cell', { name: 'all-of-it', exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Streak' }).click();
    await page.getByLabel('Frequency').selectOption('weekly');
    await page.getByLabel('Extended by the metric').selectOption({ label: 'Lessons' });
    await page.getByLabel('At least, per period').fill('2');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => page.getByRole('form', { name: 'Streak rule' }).getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/admin/v1/streaks/settings')).body).toMatchObject({ frequency: 'weekly', metrics: [{ threshold: 2 }] });
    await shot('streak');
  });

  it('scopes what it shows to the tenant chosen', async () => {
    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
    await page.reload();
    await page.getByRole('link', { name: 'Leaderboards' }).click();
    await page.getByRole('button', { name: 'Rankings' }).click();
    // ann, bob and cid in the default tenant.
    await expect.poll(() => page.locator('table.rankings tbody tr').count()).toBe(3);
    await page.getByLabel('Tenant').selectOption({ label: 'Acme' });
    await page.getByRole('button', { name: 'Rankings' }).click();
    await shot('tenant');
    await expect.poll(() => page.getByText('Nobody ranks yet.').count()).toBe(1);
    // At phone width the page still shows its form and table.
    await page.setViewportSize({ width: 390, height: 800 });
    await shot('leaderboards-phone');
    expect(await page.getByRole('button', { name: 'Create leaderboard' }).isVisible()).toBe(true);
  });

  it('creates a points system, and shows how the users spread over its totals', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel('Tenant').selectOption({ label: 'Default' });
    await page.getByRole('link', { name: 'Points' }).click();
    await page.getByRole('heading', { name: 'Points', exact: true }).waitFor();
    await page.getByLabel('Name').fill('XP');
    await page.getByLabel('Key').fill('xp');
    await page.getByLabel('Awards points for the metric').selectOption({ label: 'Lessons' });
    await page.getByLabel('Points per unit').fill('10');
    await page.getByRole('button', { name: 'Create points system' }).click();
    await page.getByRole('cell', { name: 'xp', exact: true }).waitFor();
    await s.event('lessons', { id: 'dee', name: 'Dee' }, 2);
    await page.reload();
    await expect.poll(() => page.locator('table.points tbody tr').first().textContent()).toContain('11 to 20 points: 1 user');
    await shot('points');
  });
});
