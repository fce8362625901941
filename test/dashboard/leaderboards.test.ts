/**
 * The leaderboards page in a real browser, under the manual clock: a daily board grouped by a user
 * attribute, its rankings in a group, the previous run's (kept after the day changed), and the
 * lifecycle actions of the spec's state table (pause, activate, a refused move, finish); the
 * past runs of a board with their winners once the workers finalised them; a board without a cap
 * created by leaving its size empty, a run's participants counted beyond the page shown, and its
 * statistics (rank changes, the values' distribution).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, batchApplied } from '../support/admin.js';
import { openDashboard, shown, type Dashboard } from './browser.js';

describe('the dashboard\'s leaderboards', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  it('shows a group\'s rankings of the current and the previous run of a daily board', async () => {
    const { page, s } = d;
    await s.setClock('2026-03-02T12:00:00Z');
    await s.metrics('lessons');
    await s.attributes('user', 'plan');
    await d.open('Leaderboards');
    await page.getByLabel('Name').fill('Daily');
    await page.getByLabel('Key').fill('daily');
    await page.getByLabel('Ranks the metric').selectOption({ label: 'Metric lessons' });
    await page.getByLabel('Starts a new run').selectOption('day');
    await page.getByLabel('N', { exact: true }).fill('1');
    await page.getByLabel('Groups users by').selectOption({ label: 'plan' });
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByRole('cell', { name: 'daily from 2026-03-02' }).waitFor();
    await s.event('lessons', { id: 'ann', name: 'Ann', attributes: { plan: 'pro' } }, 3);
    await s.event('lessons', { id: 'bob', name: 'Bob', attributes: { plan: 'pro' } }, 5);
    await s.event('lessons', { id: 'cid', name: 'Cid', attributes: { plan: 'free' } }, 9);
    await s.setClock('2026-03-03T12:00:00Z');
    await s.event('lessons', { id: 'ann', name: 'Ann', attributes: { plan: 'pro' } }, 1);

    const rows = page.locator('table.rankings tbody tr');
    const runStatus = () => page.locator('[aria-label="Rankings of Daily"]').getByRole('status').textContent();
    await page.getByLabel('Group: plan').fill('pro');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual(['1Ann1']);
    await expect.poll(runStatus).toBe('Run from 2026-03-03 to 2026-03-03; 1 participant');
    await page.getByRole('button', { name: 'Previous run' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual(['1Bob5', '2Ann3']);
    await expect.poll(runStatus).toMatch(/^Run from 2026-03-02 to 2026-03-02.*; 2 participants$/);
    await page.getByLabel('Group: plan').fill('free');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual(['1Cid9']);
    await d.shot('leaderboards-runs');
  });

  it('pauses (once on a double click), activates and finishes a board as the state table allows, and shows a refused move', async () => {
    const { page, s } = d;
    const status = () => page.locator('table.boards tbody tr').first().locator('td').nth(4).textContent();
    // A double click asks once and moves it once, and says nothing of a second move.
    let patches = 0;
    const count = (r: { method(): string; url(): string }) => { if (r.method() === 'PATCH' && r.url().endsWith('/admin/v1/leaderboards')) patches++; };
    page.on('request', count);
    await page.getByRole('button', { name: 'Pause Daily' }).dblclick();
    expect(await page.getByRole('dialog').count()).toBe(1);
    expect(await d.confirm('Pause')).toContain('events rank no one on it while it is paused');
    await expect.poll(status).toBe('inactive');
    page.off('request', count);
    expect(patches).toBe(1);
    expect(await page.locator('#board-move-error').textContent()).toBe('');
    // Scheduling needs a start ahead: this one started on 2026-03-02.
    await page.getByRole('button', { name: 'Schedule Daily' }).click();
    await expect.poll(() => page.locator('#board-move-error').textContent()).toMatch(/^Daily: .*start/);
    await page.getByRole('button', { name: 'Activate Daily' }).click();
    await expect.poll(status).toBe('active');
    expect(await page.locator('#board-move-error').textContent()).toBe('');
    // Finishing asks first, saying what ends; Cancel changes nothing.
    await page.getByRole('button', { name: 'Finish Daily' }).click();
    expect(await d.confirm('Cancel')).toMatch(/^Finish the leaderboard Daily\?Its current run ends today and becomes final.*cannot be made active again/);
    expect(await status()).toBe('active');
    await page.getByRole('button', { name: 'Finish Daily' }).click();
    await d.confirm('Finish');
    await expect.poll(status).toBe('finished');
    expect(await page.getByRole('button', { name: /^(Activate|Schedule|Pause|Finish) Daily$/ }).count()).toBe(0);
    await d.shot('leaderboards-lifecycle');
    expect((await s.request('GET', '/admin/v1/leaderboards')).body).toMatchObject([{ key: 'daily', status: 'finished' }]);
  });

  it('creates a board without a cap, says what each board ranks, and counts the participants beyond the page', async () => {
    const { page, s } = d;
    await s.metrics('quizzes');
    await page.reload();
    await page.getByLabel('Name').fill('Everyone');
    await page.getByLabel('Key').fill('everyone');
    await page.getByLabel('Ranks the metric').selectOption({ label: 'Metric quizzes' });
    await page.getByLabel(/^Participants/).fill('');
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'everyone', exact: true }) });
    await expect.poll(() => row.getByRole('cell').allTextContents()).toContain('every participant');
    const boards = (await s.request('GET', '/admin/v1/leaderboards?limit=100')).body as { key: string; maxParticipants: number | null }[];
    expect(boards.find((b) => b.key === 'everyone')).toMatchObject({ maxParticipants: null });
    expect(boards.find((b) => b.key === 'daily')).toMatchObject({ maxParticipants: 100 });
    const daily = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'daily', exact: true }) });
    expect(await daily.getByRole('cell').allTextContents()).toContain('the top 100');

    // 105 users through one batch (the workers apply it): the rankings show the first 100 and count all of them.
    // Applied before the rankings open; each click opens them anew (Loading… until they are read),
    // so a click's answer is waited for before the next.
    const items = Array.from({ length: 105 }, (_, i) => ({ key: 'quizzes', user: { id: `q${i + 1}` }, value: i + 1 }));
    await batchApplied(s, items, items.length);
    const status = page.locator('[aria-label="Rankings of Everyone"]').getByRole('status');
    await expect.poll(async () => {
      await page.getByRole('button', { name: 'Rankings of Everyone' }).click();
      await status.filter({ hasNotText: 'Loading…' }).waitFor();
      return status.textContent();
    }).toMatch(/; 105 participants, the first 100 shown$/);
    expect(await page.locator('table.rankings tbody tr').count()).toBe(100);
    await expect.poll(() => page.locator('table.rankings tbody tr').first().textContent()).toBe('1q105105');

    // The run's statistics: its participants and entries, the values 1 to 105 in buckets of 11.
    const stats = page.getByRole('region', { name: 'Statistics of the run' });
    await expect.poll(() => stats.locator('p.changes').textContent())
      .toBe('105 participants; 105 entries, 0 moves by a user\'s own value, 0 users pushed out of the full board');
    const values = stats.getByRole('table', { name: 'Values' }).locator('tr');
    expect(await values.locator('th').allTextContents()).toEqual([
      '1 to 11', '12 to 22', '23 to 33', '34 to 44', '45 to 55', '56 to 66', '67 to 77', '78 to 88', '89 to 99', '100 to 105',
    ]);
    expect(await values.locator('td.n').allTextContents()).toEqual([...Array(9).fill('11 users'), '6 users']);
    await d.shot('leaderboards-stats');
  });

  it('creates boards ranking a points system and the streak, and refuses a repeating streak board', async () => {
    const { page, s } = d;
    const ids = await s.metrics('drills');
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.drills, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    await page.reload();
    await page.getByLabel('Ranks users by').selectOption('points');
    await page.getByLabel('Name').fill('XP board');
    await page.getByLabel('Key').fill('xp-board');
    await page.getByLabel('Points system').selectOption({ label: 'XP' });
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByRole('cell', { name: 'xp-board', exact: true }).waitFor();
    await page.getByLabel('Ranks users by').selectOption('streak');
    await page.getByLabel('Name').fill('Streaks');
    await page.getByLabel('Key').fill('streaks');
    await page.getByLabel('Starts a new run').selectOption('day');
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await expect.poll(() => page.locator('#board-repeat-error').textContent()).toMatch(/perpetual/);
    await page.getByLabel('Starts a new run').selectOption('');
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByRole('cell', { name: 'streaks', exact: true }).waitFor();
    const boards = (await s.request('GET', '/admin/v1/leaderboards?limit=100')).body as { key: string; rankBy: string; pointsSystemId?: string }[];
    expect(boards.find((b) => b.key === 'xp-board')).toMatchObject({ rankBy: 'points', pointsSystemId: xp.body.created[0].id });
    expect(boards.find((b) => b.key === 'streaks')).toMatchObject({ rankBy: 'streak' });
    await d.shot('leaderboards-kinds');
  });

  it('lists a daily board\'s past runs with their winners once final, and shows a past run\'s rankings', async () => {
    const { page, s } = d;
    await s.setClock('2026-05-01T12:00:00Z');
    const { id: lessons } = (await s.request('GET', '/admin/v1/metrics?limit=100')).body.find((m: { key: string }) => m.key === 'lessons');
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Sprint', key: 'sprint', rankBy: 'metric', metricId: lessons, runUnit: 'day', runInterval: 1, start: '2026-05-01', status: 'active',
    });
    await s.event('lessons', 'bob', 5);
    await s.event('lessons', 'ann', 3);
    await s.event('lessons', 'dan', 2);
    await s.event('lessons', 'cid', 1);
    await s.setClock('2026-05-02T12:00:00Z');
    await s.event('lessons', 'eve', 4);
    // May 1st is final once every zone has finished it (36 hours after it began in UTC); May 2nd 24 hours later.
    await s.setClock('2026-05-03T13:00:00Z');
    await s.workers!.testing.finaliseNow();

    await page.reload();
    await page.getByRole('button', { name: 'Rankings of Sprint' }).click();
    const past = page.getByRole('region', { name: 'Past runs' }).locator('tbody tr');
    await expect.poll(() => past.allTextContents()).toEqual([
      `2026-05-02${await shown(page, '2026-05-03T12:00:00.000Z')}1. eve (4)Show`,
      `2026-05-01${await shown(page, '2026-05-02T12:00:00.000Z')}1. Bob (5), 2. Ann (3), 3. dan (2)Show`,
    ]);
    // The current run has no winners yet.
    expect(await page.getByLabel('Winners', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Show the run from 2026-05-01' }).click();
    await expect.poll(() => page.locator('table.rankings tbody tr').allTextContents()).toEqual(['1Bob5', '2Ann3', '3dan2', '4Cid1']);
    await expect.poll(() => page.getByLabel('Winners', { exact: true }).textContent()).toBe('Winners (final top three): 1. Bob (5), 2. Ann (3), 3. dan (2)');
    expect(await page.getByLabel('Run of the day (empty: the current one)').inputValue()).toBe('2026-05-01');
    await d.shot('leaderboards-winners');
  });
});
