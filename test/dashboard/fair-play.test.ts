/**
 * Fair play on the dashboard in a real browser, against the real server on single Redis and on the
 * Cluster: a metric's limit per user set when it is created and edited (a refusal under its field,
 * taken off again); a points trigger's cooldown and award cap added and edited, a time trigger's
 * award cap (no cooldown) added, edited and taken off; on a user's page,
 * the user excluded from the rankings (a reason, asked first; the user's positions read again) and
 * included again, a completed achievement revoked (asked first), and an event voided by its id (an
 * unknown id, then one voided already, refused under the id). Each change is checked through the
 * APIs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAchievements } from '../support/admin.js';
import { MISSING, targets } from '../support/server.js';
import { openDashboard, type Dashboard } from './browser.js';

describe.each(targets())('fair play on the dashboard (%s)', (target) => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ target, workers: true }); });
  afterAll(async () => { await d?.close(); });

  it('sets a metric\'s limit when creating and editing it, a refusal under its field', async () => {
    const { page, s } = d;
    await d.open('Metrics');
    const create = page.getByRole('form', { name: 'New metric' });
    await create.getByLabel('Name').fill('Likes');
    await create.getByLabel('Key').fill('likes');
    await create.getByLabel('Limit per user').selectOption('day');
    await create.getByLabel('Values counted at most').fill('20');
    await create.getByRole('button', { name: 'Create metric' }).click();
    const row = page.locator('table.metrics tbody tr', { hasText: 'likes' });
    await expect.poll(() => row.locator('td').allTextContents()).toEqual(['likes', 'Likes', 'a number', '20 per day', 'active', 'EditArchiveDelete']);
    const metric = async () => ((await s.request('GET', '/admin/v1/metrics?limit=100')).body as { key: string; limits?: unknown }[]).find((m) => m.key === 'likes');
    expect(await metric()).toMatchObject({ limits: { max: 20, period: 'day' } });
    // In force: 25 sent, 20 counted.
    expect(await s.event('likes', 'ann', 25)).toMatchObject({ total: 20, limited: { counted: 20, ignored: 5 } });

    await page.getByRole('button', { name: 'Edit metric likes' }).click();
    const edit = page.getByRole('form', { name: 'Edit metric likes' });
    expect(await edit.getByLabel('Limit per user').inputValue()).toBe('day');
    expect(await edit.getByLabel('Values counted at most').inputValue()).toBe('20');
    await edit.getByLabel('Values counted at most').fill('0');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#metric-edit-limit-max-error').textContent()).toMatch(/^limits\.max must be 0\.000000001 at least/);
    expect(await page.locator('#metric-edit-limit-period-error').textContent()).toBe('');
    expect(await metric()).toMatchObject({ limits: { max: 20, period: 'day' } });
    await edit.getByLabel('Values counted at most').fill('5');
    await edit.getByLabel('Limit per user').selectOption('hour');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.locator('#metric-edit-limit-max-error').textContent()).toBe('');
    expect(await metric()).toMatchObject({ limits: { max: 5, period: 'hour' } });
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('5 per hour');
    // "no limit" takes it off; the amount is then not asked.
    await edit.getByLabel('Limit per user').selectOption('');
    expect(await edit.getByLabel('Values counted at most').isDisabled()).toBe(true);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await metric())?.limits ?? null).toBe(null);
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('none');
    await d.shot('fair-play-metric');
  });

  it('adds a points trigger with a cooldown and an award cap, and edits them', async () => {
    const { page, s } = d;
    await s.metrics('shares');
    const made = await s.request('POST', '/admin/v1/points', { body: [{ name: 'Karma', key: 'karma' }] });
    expect(made.status, made.text).toBe(201);
    const systemId = (made.body as { created: { id: string }[] }).created[0].id;
    const triggers = async () => (await s.request('GET', `/admin/v1/points/${systemId}/triggers`)).body as Record<string, unknown>[];
    await d.open('Points');
    await page.getByRole('button', { name: 'Configure Karma' }).click();
    const box = page.getByRole('region', { name: 'Configuration of Karma' });
    const form = box.getByRole('form', { name: 'New trigger' });
    // Only metric and streak triggers take them.
    await form.getByLabel('Awards points for').selectOption({ label: 'A new user' });
    expect(await form.getByLabel('Cooldown (seconds, optional)').count()).toBe(0);
    await form.getByLabel('Awards points for').selectOption({ label: 'A metric' });
    await form.getByLabel('Metric', { exact: true }).selectOption({ label: 'Metric shares' });
    await form.getByLabel('Cooldown (seconds, optional)').fill('0');
    await form.getByLabel('Awards per user').selectOption('day');
    await form.getByLabel('At most').fill('5');
    await form.getByRole('button', { name: 'Add trigger' }).click();
    await expect.poll(() => page.locator('#trigger-cooldown-error').textContent()).toBe('cooldownSeconds must be 1 at least');
    expect(await triggers()).toEqual([]);
    await form.getByLabel('Cooldown (seconds, optional)').fill('60');
    await form.getByRole('button', { name: 'Add trigger' }).click();
    const row = box.locator('table.triggers tbody tr');
    await expect.poll(() => row.locator('td').allTextContents())
      .toEqual(['10', 'every 1 of Metric shares', 'none', 'once per 60 s, 5 per day', 'active', 'EditDelete']);
    expect(await page.locator('#trigger-cooldown-error').textContent()).toBe('');
    expect(await triggers()).toMatchObject([{ type: 'metric', cooldownSeconds: 60, maxAwards: { count: 5, period: 'day' } }]);

    await box.getByRole('button', { name: 'Edit trigger every 1 of Metric shares' }).click();
    const edit = box.getByRole('form', { name: /^Edit trigger / });
    expect(await edit.getByLabel('Cooldown (seconds, optional)').inputValue()).toBe('60');
    await edit.getByLabel('At most').fill('0');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#trigger-edit-max-awards-count-error').textContent()).toMatch(/^maxAwards\.count must be/);
    // The cooldown taken off (emptied), the cap raised.
    await edit.getByLabel('Cooldown (seconds, optional)').fill('');
    await edit.getByLabel('At most').fill('8');
    await edit.getByLabel('Awards per user').selectOption('week');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    const [saved] = await triggers();
    expect(saved).toMatchObject({ maxAwards: { count: 8, period: 'week' } });
    expect(saved).not.toHaveProperty('cooldownSeconds');
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('8 per week');
    await d.shot('fair-play-trigger');
  });

  it('adds a time trigger with an award cap and no cooldown, and edits the cap', async () => {
    const { page, s } = d;
    const made = await s.request('POST', '/admin/v1/points', { body: [{ name: 'Loyalty', key: 'loyalty' }] });
    expect(made.status, made.text).toBe(201);
    const systemId = (made.body as { created: { id: string }[] }).created[0].id;
    const triggers = async () => (await s.request('GET', `/admin/v1/points/${systemId}/triggers`)).body as Record<string, unknown>[];
    // The Points page read again (the test before leaves it open, listing the systems it read then).
    await d.open('Metrics');
    await d.open('Points');
    await page.getByRole('button', { name: 'Configure Loyalty' }).click();
    const box = page.getByRole('region', { name: 'Configuration of Loyalty' });
    const form = box.getByRole('form', { name: 'New trigger' });
    await form.getByLabel('Awards points for').selectOption({ label: 'Time' });
    await form.getByLabel('Every').fill('2');
    await form.getByLabel('Unit').selectOption('hours');
    // A time trigger's interval spaces its awards: no cooldown asked, a cap is.
    expect(await form.getByLabel('Cooldown (seconds, optional)').count()).toBe(0);
    await form.getByLabel('Awards per user').selectOption('day');
    await form.getByLabel('At most').fill('3');
    await form.getByRole('button', { name: 'Add trigger' }).click();
    const row = box.locator('table.triggers tbody tr');
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('3 per day');
    const [made1] = await triggers();
    expect(made1).toMatchObject({ type: 'time', timeUnit: 'hours', timeInterval: 2, maxAwards: { count: 3, period: 'day' } });
    expect(made1).not.toHaveProperty('cooldownSeconds');

    await box.getByRole('button', { name: 'Edit trigger every 2 hours' }).click();
    const edit = box.getByRole('form', { name: /^Edit trigger / });
    expect(await edit.getByLabel('Awards per user').inputValue()).toBe('day');
    expect(await edit.getByLabel('At most').inputValue()).toBe('3');
    await edit.getByLabel('At most').fill('10');
    await edit.getByLabel('Awards per user').selectOption('week');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => edit.getByRole('status').textContent()).toBe('Saved.');
    expect(await triggers()).toMatchObject([{ type: 'time', maxAwards: { count: 10, period: 'week' } }]);
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('10 per week');
    // "no cap" takes it off.
    await edit.getByLabel('Awards per user').selectOption('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await triggers())[0].maxAwards ?? null).toBe(null);
    await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('none');
  });

  it('excludes a user and includes them again, revokes an achievement and voids an event from the user\'s page', async () => {
    const { page, s } = d;
    const { lessons } = await s.metrics('lessons');
    const board = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Top', key: 'top', rankBy: 'metric', metricKey: 'lessons', status: 'active' }] });
    expect(board.status, board.text).toBe(201);
    await createAchievements(s, [{ name: 'First lesson', key: 'first-lesson', trigger: 'metric', metricId: lessons, metricValue: 1 }]);
    const first = await s.event('lessons', { id: 'bea', name: 'Bea' }, 3);
    await s.event('lessons', { id: 'cal', name: 'Cal' }, 1);
    const ranked = async () => ((await s.request('GET', '/api/leaderboards/top')).body.rankings as { userId: string }[]).map((r) => r.userId);
    expect(await ranked()).toEqual(['bea', 'cal']);

    await d.open('Users');
    await page.getByLabel('User id').fill('bea');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: 'Bea' }).waitFor();
    const profile = page.locator('#user-profile dl').first();
    const fair = page.getByRole('region', { name: 'Fair play' });
    await expect.poll(() => profile.textContent()).toContain('Rankingsranked');
    const position = page.getByRole('region', { name: 'Leaderboards' }).locator('tbody tr td').nth(1);
    await expect.poll(() => position.textContent()).toBe('1');

    // Excluded: a reason, asked first; Cancel changes nothing.
    await fair.getByLabel('Reason for an exclusion').fill('lessons sent by a script');
    await fair.getByRole('button', { name: 'Exclude', exact: true }).click();
    await d.confirm('Cancel');
    expect((await s.request('GET', '/admin/v1/users/bea/exclusion')).body.excluded).toBe(false);
    await fair.getByRole('button', { name: 'Exclude', exact: true }).click();
    expect(await d.confirm('Exclude')).toContain('They leave every leaderboard, league and streak ranking at once');
    await expect.poll(() => fair.locator('.exclusion p').first().textContent()).toMatch(/^Excluded from the rankings since .+: lessons sent by a script$/);
    await expect.poll(() => profile.textContent()).toContain('Rankingsexcluded');
    expect((await s.request('GET', '/admin/v1/users/bea/exclusion')).body).toMatchObject({ excluded: true, reason: 'lessons sent by a script' });
    expect((await s.request('GET', '/api/users/bea')).body.excluded).toBe(true);
    expect(await ranked()).toEqual(['cal']);
    // The sections below read the user again.
    await expect.poll(() => position.textContent()).toBe('not ranked');
    await d.shot('fair-play-excluded');
    await fair.getByRole('button', { name: 'Include again' }).click();
    await expect.poll(() => profile.textContent()).toContain('Rankingsranked');
    await fair.getByLabel('Reason for an exclusion').waitFor();
    expect((await s.request('GET', '/admin/v1/users/bea/exclusion')).body.excluded).toBe(false);

    // Revoked, asked first.
    const achievements = page.locator('#user-profile ul.user-achievements li');
    await expect.poll(() => achievements.count()).toBe(1);
    await page.getByRole('button', { name: 'Revoke achievement first-lesson' }).click();
    expect(await d.confirm('Revoke')).toContain('The completion leaves the user');
    await expect.poll(() => page.getByText('None yet.').count()).toBe(1);
    expect((await s.request('GET', '/api/users/bea/achievements')).body).toEqual([]);

    // Voided: an unknown id refused under the id, then the event, then the same again.
    const eventId = fair.getByLabel('Event id (as its answer gave it)');
    await eventId.fill(MISSING);
    await fair.getByLabel('Reason for voiding').fill('sent twice');
    await fair.getByRole('button', { name: 'Void event' }).click();
    await expect.poll(() => page.locator('#void-event-id-error').textContent()).not.toBe('');
    expect(await fair.getByRole('status').last().textContent()).toBe('');
    await eventId.fill(first.eventId as string);
    await fair.getByRole('button', { name: 'Void event' }).click();
    await expect.poll(() => fair.getByRole('status').last().textContent()).toMatch(/^Voided: 3 of lessons on \d{4}-\d{2}-\d{2} taken off \(total now 0\)\.$/);
    expect(await page.locator('#void-event-id-error').textContent()).toBe('');
    expect(await eventId.inputValue()).toBe('');
    expect((await s.request('GET', '/api/users/bea/metrics/lessons')).body).toMatchObject({ current: 0 });
    await eventId.fill(first.eventId as string);
    await fair.getByLabel('Reason for voiding').fill('sent twice');
    await fair.getByRole('button', { name: 'Void event' }).click();
    await expect.poll(() => page.locator('#void-event-id-error').textContent()).toMatch(/already/);
    await d.shot('fair-play-user');
  });
});
