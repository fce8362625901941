/**
 * A board's shards on the dashboard's leaderboards page, in a real browser: the field disabled,
 * with the reason, while the board is capped; an uncapped board created in 3 shards (the Admin API
 * keeps them, the list says so, its rankings read the whole run); the count fixed once the board
 * has started, while the rest of it still saves; a board that never ran with its count changed,
 * then capped (saved in one ranking).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('the dashboard\'s board shards', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: false, clock: 'manual' }); });
  afterAll(async () => { await d?.close(); });

  const board = async (key: string) => ((await d.s.request('GET', '/admin/v1/leaderboards?limit=100')).body as
    { key: string; id: string; maxParticipants: number | null; shards?: number; name: string }[]).find((b) => b.key === key);

  it('sets shards on an uncapped board only, and keeps them once it has started', async () => {
    const { page, s } = d;
    await s.setClock('2026-03-02T12:00:00Z');
    await s.metrics('quizzes');
    await d.open('Leaderboards');
    const form = page.getByRole('form', { name: 'New leaderboard' });
    const shards = form.getByLabel('Shards');
    // Capped (the default 100): one ranking, said why.
    expect(await shards.isDisabled()).toBe(true);
    expect(await shards.inputValue()).toBe('1');
    expect(await form.locator('#board-shards-hint').textContent()).toMatch(/^A capped board keeps one ranking/);
    await form.getByLabel(/^Participants/).fill('');
    expect(await shards.isEnabled()).toBe(true);
    expect(await form.locator('#board-shards-hint').textContent()).toMatch(/^Rankings each run is spread over \(1 to 64\)/);
    await form.getByLabel('Name').fill('Spread');
    await form.getByLabel('Key').fill('spread');
    await form.getByLabel('Ranks the metric').selectOption({ label: 'Metric quizzes' });
    await shards.fill('3');
    await form.getByRole('button', { name: 'Create leaderboard' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'spread', exact: true }) });
    await expect.poll(() => row.getByRole('cell').allTextContents()).toContain('every participant, in 3 shards');
    expect(await board('spread')).toMatchObject({ maxParticipants: null, shards: 3, status: 'active' });

    // Its rankings are the whole run's.
    for (const [user, value] of [['ann', 4], ['bob', 9], ['cid', 1], ['dee', 6]] as const) await s.event('quizzes', { id: user, name: user.toUpperCase() }, value);
    await page.getByRole('button', { name: 'Rankings of Spread' }).click();
    await expect.poll(() => page.locator('table.rankings tbody tr').allTextContents()).toEqual(['1BOB9', '2DEE6', '3ANN4', '4CID1']);

    // Started: the count is fixed, the rest saves.
    await page.getByRole('button', { name: 'Edit leaderboard Spread' }).click();
    const edit = page.getByRole('form', { name: /^Edit leaderboard / });
    expect(await edit.getByLabel('Shards').inputValue()).toBe('3');
    expect(await edit.getByLabel('Shards').isDisabled()).toBe(true);
    await edit.getByLabel('Name', { exact: true }).fill('Spread wide');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect(await board('spread')).toMatchObject({ name: 'Spread wide', shards: 3 });
    await edit.getByRole('button', { name: 'Close' }).click();
    await d.shot('leaderboard-shards');
  });

  it('changes the count of a board that never ran, and caps it in one ranking', async () => {
    const { page, s } = d;
    const created = await s.request('POST', '/admin/v1/leaderboards', { body: [{
      name: 'Later', key: 'later', rankBy: 'metric', metricKey: 'quizzes', maxParticipants: null, shards: 2, status: 'inactive',
    }] });
    expect(created.status, created.text).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: 'Edit leaderboard Later' }).click();
    const edit = page.getByRole('form', { name: 'Edit leaderboard Later' });
    const shards = edit.getByLabel('Shards');
    expect(await shards.inputValue()).toBe('2');
    await shards.fill('5');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect(await board('later')).toMatchObject({ shards: 5 });
    // A cap turns the field to one ranking: the board is saved capped, in one.
    await edit.getByLabel('Participants (at most)').fill('50');
    expect(await shards.isDisabled()).toBe(true);
    expect(await shards.inputValue()).toBe('1');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await board('later'))?.maxParticipants).toBe(50);
    expect((await board('later'))?.shards).toBeUndefined();
  });
});
