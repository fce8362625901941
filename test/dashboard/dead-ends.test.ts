/**
 * The dashboard without dead ends, each place as a new user expects it: a grouped
 * board's rankings offering its groups (no raw refusal); the Live page naming users and calling
 * "new" only those who entered; the run choices in plain words (weekly, monthly); each board's list
 * row saying what it ranks, how it groups and whether it is a league; an achievement's key optional, the derived one shown;
 * counts, moments and notification types in words; the charts' legends giving the last day's figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { openDashboard, shown, type Dashboard } from './browser.js';

describe('the dashboard without dead ends', () => {
  let d: Dashboard;
  let ids: Record<string, string>;
  beforeAll(async () => {
    d = await openDashboard({ workers: true });
    ids = { ...await d.s.metrics('lessons', 'reps'), ...await d.s.attributes('user', 'plan') };
  });
  afterAll(async () => { await d?.close(); });

  it('offers a grouped board\'s groups by the values seen, and never shows the refusal of a missing group', async () => {
    const { page, s } = d;
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'By plan', key: 'by-plan', rankBy: 'metric', metricId: ids.lessons, breakdownAttributes: [ids.plan], start: '2020-01-01', status: 'active',
    });
    await s.event('lessons', { id: 'ann', name: 'Ann', attributes: { plan: 'pro' } }, 3);
    await s.event('lessons', { id: 'bob', name: 'Bob', attributes: { plan: 'pro' } }, 5);
    await s.event('lessons', { id: 'cid', name: 'Cid', attributes: { plan: 'free' } }, 9);
    await s.workers!.testing.drainNow();
    await expect.poll(async () => (await s.request('GET', '/admin/v1/users?userAttributes=plan:free')).body.users?.length).toBe(1);
    await d.open('Leaderboards');
    await page.getByRole('button', { name: 'Rankings of By plan' }).click();
    const card = page.locator('div.card[aria-label="Rankings of By plan"]');
    const rows = card.locator('table.rankings tbody tr');
    // The first group seen is shown at once.
    await expect.poll(() => rows.allTextContents()).toEqual(['1Cid9']);
    expect(await card.getByLabel('Group: plan').inputValue()).toBe('free');
    expect(await card.locator('#run-group-plan-hint').textContent()).toBe('Users are ranked apart by their plan: free, pro.');
    await card.getByLabel('Group: plan').fill('pro');
    await card.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual(['1Bob5', '2Ann3']);
    // No group: the page asks for one, and sends nothing the Application API would refuse.
    await card.getByLabel('Group: plan').fill('');
    await expect.poll(() => card.getByRole('status').textContent()).toBe('Choose a group: this board ranks its users apart by plan.');
    expect(await card.getByRole('button', { name: 'Refresh' }).isDisabled()).toBe(true);
    expect(await card.textContent()).not.toMatch(/userAttributes|Nobody ranks yet/);
    await d.shot('dead-ends-groups');
  });

  it('names users on the Live page, and calls "new" only those who entered', async () => {
    const { page, s } = d;
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Reps', key: 'reps', rankBy: 'metric', metricId: ids.reps, start: '2020-01-01', status: 'active',
    });
    // Ranked before the page opens, while no socket follows anything.
    await s.event('reps', { id: 'u-ann', name: 'Ann' }, 3);
    await s.event('reps', { id: 'u-bob', name: 'Bob' }, 5);
    await expect.poll(async () => (await s.request('GET', '/api/leaderboards/reps')).body.rankings?.length).toBe(2);
    await d.open('Live');
    await page.getByLabel('Leaderboard').selectOption({ label: 'Reps' });
    await page.locator('[data-following]').waitFor();
    await s.event('reps', { id: 'u-cat', name: 'Cat' }, 4);
    // The top 10 comes after the moves of the same pass: Cat's, and any of Ann and Bob, are shown by then.
    await expect.poll(() => page.getByRole('table', { name: 'Top 10' }).locator('tbody tr').allTextContents()).toEqual(['1Bob5', '2Cat4', '3Ann3']);
    const moves = page.getByRole('table', { name: 'Moves' }).locator('tbody tr');
    const cells = async () => Promise.all((await moves.all()).map(async (r) => (await r.locator('td').allTextContents()).slice(1).join(' ')));
    expect(await cells()).toEqual(['Cat new → 2 – → 4']);
    // Ann moves: from the place the page saw her in.
    await s.event('reps', { id: 'u-ann', name: 'Ann' }, 3);
    await expect.poll(async () => (await moves.first().locator('td').allTextContents()).slice(1).join(' ')).toBe('Ann 3 → 1 3 → 6');
    await d.shot('dead-ends-live');
  });

  it('offers the runs in plain words and describes each board truthfully in the list', async () => {
    const { page, s } = d;
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Evenings', key: 'evenings', rankBy: 'metric', metricId: ids.lessons, startTime: '18:00', endTime: '22:00', start: '2020-01-01', status: 'active',
    });
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Cohorts', key: 'cohorts', rankBy: 'metric', metricId: ids.lessons, runUnit: 'day', runInterval: 7, start: '2020-01-06', status: 'active',
      league: { cohortSize: 30, tiers: [{ key: 'bronze', name: 'Bronze', promote: 5, demote: 0 }, { key: 'silver', name: 'Silver', promote: 0, demote: 5 }] },
    });
    await d.open('Leaderboards');
    const repeat = page.getByLabel('Starts a new run');
    expect(await repeat.locator('option').allTextContents()).toEqual([
      'Never (one run)', 'Daily', 'Weekly (from a Monday)', 'Monthly', 'Yearly', 'Every N days', 'Every N months', 'Every N years',
    ]);
    const create = async (name: string, key: string, runs: string) => {
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Key').fill(key);
      await page.getByLabel('Ranks the metric').selectOption({ label: 'Metric lessons' });
      await repeat.selectOption({ label: runs });
      // A preset says its interval: no N to type.
      expect(await page.locator('#board-interval').count()).toBe(0);
      await page.getByRole('button', { name: 'Create leaderboard' }).click();
      await page.getByRole('cell', { name: key, exact: true }).waitFor();
    };
    await create('Week', 'week', 'Weekly (from a Monday)');
    await create('Month', 'month', 'Monthly');
    const boards = (await s.request('GET', '/admin/v1/leaderboards?limit=100')).body as { key: string }[];
    expect(boards.find((b) => b.key === 'week')).toMatchObject({ runUnit: 'day', runInterval: 7 });
    expect(boards.find((b) => b.key === 'month')).toMatchObject({ runUnit: 'month', runInterval: 1 });
    const row = (key: string) => page.locator('table.boards tbody tr').filter({ has: page.getByRole('cell', { name: key, exact: true }) });
    const ranks = (key: string) => row(key).locator('td').nth(2).textContent();
    expect(await ranks('week')).toBe('the sum of Metric lessons in each run');
    expect(await row('week').locator('td').nth(3).textContent()).toMatch(/^weekly from /);
    expect(await row('month').locator('td').nth(3).textContent()).toMatch(/^monthly from /);
    expect(await ranks('by-plan')).toBe('the total of Metric lessons, in groups by plan');
    expect(await ranks('evenings')).toBe('the sum of Metric lessons from 18:00 to 22:00 each day, since its start');
    // A league says so, with its tiers and cohorts.
    expect(await row('cohorts').locator('td').nth(5).textContent()).toBe('a league: 2 tiers, cohorts of 30');
    // The edit form shows a weekly board's runs as it was made.
    await page.getByRole('button', { name: 'Edit leaderboard Week' }).click();
    const form = page.getByRole('form', { name: 'Edit leaderboard Week' });
    expect(await form.getByLabel('Starts a new run').inputValue()).toBe('day:7');
    await d.shot('dead-ends-boards');
  });

  it('makes an achievement\'s key optional, showing the key the Admin API derives from the name', async () => {
    const { page, s } = d;
    await d.open('Achievements');
    const form = page.getByRole('form', { name: 'New achievement' });
    await form.getByLabel('Name').fill('First Lesson!');
    const key = form.getByLabel('Key (optional)');
    expect(await key.getAttribute('placeholder')).toBe('first-lesson');
    expect(await key.getAttribute('required')).toBeNull();
    await form.getByLabel('When the metric').selectOption({ label: 'Metric lessons' });
    await form.getByRole('button', { name: 'Create achievement' }).click();
    await page.getByRole('cell', { name: 'first-lesson', exact: true }).waitFor();
    expect((await s.request('GET', '/admin/v1/achievements?limit=100')).body).toMatchObject([{ key: 'first-lesson', name: 'First Lesson!' }]);
    // Completed through the API, it needs its key: the Admin API asks for it.
    await form.getByLabel('Completed when').selectOption('api');
    expect(await form.getByLabel('Key', { exact: true }).getAttribute('required')).not.toBeNull();
  });

  it('says counts, moments and notification types in words', async () => {
    const { page, s } = d;
    // One user in a tenant of its own: "1 user".
    await adminCreateOne(s, '/admin/v1/tenants', { customerId: 'solo', name: 'Solo' });
    expect((await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'one' }, value: 1 }, tenant: 'solo' })).status).toBe(201);
    await s.workers!.testing.drainNow();
    await page.reload();
    await page.getByLabel('Tenant').selectOption({ label: 'Solo' });
    await d.open('Analytics');
    await expect.poll(() => page.getByText(/of the 1 user active in the range/).count()).toBe(1);
    // A user's creation, in the browser's locale and zone.
    await d.open('Users');
    await page.getByLabel('User id').fill('one');
    await page.getByRole('button', { name: 'Find' }).click();
    const created = (await s.request('GET', '/api/users/one', { tenant: 'solo' })).body.created as string;
    const profile = page.locator('#user-profile dl').first();
    await expect.poll(() => profile.textContent()).toContain(`Created${await shown(page, created)}`);
    expect(await profile.textContent()).not.toContain(created);
    await d.open('Notifications');
    expect(await page.getByLabel('Sent on').locator('option').allTextContents()).toEqual(['achievement completed', 'streak reminder', 'reactivation', 'recap']);
  });

  it('gives the last day\'s figures in a chart\'s legend when the pointer is not on it', async () => {
    const { page } = d;
    await page.getByLabel('Tenant').selectOption({ label: 'Solo' });
    await d.open('Analytics');
    const legend = page.locator('figure.chart-figure').first().locator('.u-legend');
    const values = () => legend.locator('.u-value').allTextContents();
    // Day, Events, Completions: the last day's, today's one event, which completed First Lesson!.
    await expect.poll(values).toEqual([new Date().toISOString().slice(0, 10), '1', '1']);
    const chart = page.locator('figure.chart-figure').first().locator('.u-over');
    await chart.hover({ position: { x: 5, y: 5 } });
    // The first day's, 13 days ago: nothing.
    await expect.poll(async () => (await values()).slice(1)).toEqual(['0', '0']);
    await page.mouse.move(0, 0);
    await expect.poll(values).toEqual([new Date().toISOString().slice(0, 10), '1', '1']);
  });
});
