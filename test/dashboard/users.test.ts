/**
 * A user's page in a real browser, under the manual clock: the streak calendar with a freeze that
 * bridged a missed day, points with the newest awards (a negative one signed once) and the level, the user's leaderboard
 * positions, preferences, and the notifications due (suppressed here: no SMTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreate, createAchievements, putStreakSettings } from '../support/admin.js';
import { openDashboard, shown, type Dashboard } from './browser.js';

describe('the dashboard\'s user page', () => {
  let d: Dashboard;
  beforeAll(async () => { d = await openDashboard({ workers: true, clock: 'manual', env: { LAUREL_SMTP_URL: '' } }); });
  afterAll(async () => { await d?.close(); });

  it('shows a user\'s streak calendar, points, positions, preferences and notifications', async () => {
    const { page, s } = d;
    await s.setClock('2026-06-01T10:00:00Z');
    const { lessons } = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }], freezes: { initial: 1, max: 2, autoEarnInterval: 0, autoEarnAmount: 0 } });
    const points = await s.request('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp',
      levels: [{ name: 'Beginner', key: 'beginner', points: 10 }, { name: 'Scholar', key: 'scholar', points: 100 }],
      triggers: [{ type: 'metric', metricKey: 'lessons', metricThreshold: 1, points: 10, status: 'active' }] }] });
    expect(points.status, points.text).toBe(201);
    // Lives: 3 at the start, one spent a lesson (a negative award shows as -1).
    const lives = await s.request('POST', '/admin/v1/points', { body: [{ name: 'Lives', key: 'lives',
      triggers: [{ type: 'user_creation', points: 3, status: 'active' }, { type: 'metric', metricKey: 'lessons', metricThreshold: 1, points: -1, status: 'active' }] }] });
    expect(lives.status, lives.text).toBe(201);
    const board = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Top learners', key: 'top', rankBy: 'metric', metricKey: 'lessons', status: 'active' }] });
    expect(board.status, board.text).toBe(201);
    await createAchievements(s, [{ name: 'First', key: 'first', trigger: 'metric', metricId: lessons, metricValue: 1 }]);
    await adminCreate(s, '/admin/v1/notifications/templates', [{ key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Hi', text: 'x' } as never]);
    await s.request('PUT', '/admin/v1/notifications/settings', { body: { defaultTimeZone: 'UTC', publicUrl: 'https://acme.test' } });

    // ann: June 1st and 2nd, misses the 3rd (a freeze bridges it), the 4th; bob: more lessons on the 1st.
    await s.event('lessons', { id: 'ann', name: 'Ann', email: 'ann@example.test', tz: 'UTC' }, 1);
    await s.event('lessons', { id: 'bob', name: 'Bob', tz: 'UTC' }, 5);
    await s.workers!.testing.drainNow();
    await s.setClock('2026-06-01T17:00:00Z');
    await s.workers!.testing.notifyNow();
    await s.setClock('2026-06-02T10:00:00Z');
    await s.event('lessons', 'ann', 1);
    await s.setClock('2026-06-04T10:00:00Z');
    await s.event('lessons', 'ann', 1);
    expect((await s.request('PATCH', '/api/users/ann/preferences', { body: { notifications: { recap: [] } } })).status).toBe(200);

    await d.open('Users');
    await page.getByLabel('User id').fill('ann');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: 'Ann' }).waitFor();
    const part = (name: string) => page.getByRole('region', { name });
    await expect.poll(() => part('Streak').locator('p').first().textContent()).toBe('3 (daily), lost after 2026-06-05; freezes held: 0 of 2');
    const cells = part('Streak').locator('ol.calendar li');
    await expect.poll(() => cells.count()).toBe(28);
    expect(await cells.evaluateAll((li) => li.slice(-4).map((x) => `${x.className}:${x.textContent}`)))
      .toEqual(['on:06-011', 'on:06-022', 'frozen:06-03❄', 'on:06-043']);
    await expect.poll(() => part('Points').locator('tbody tr').allTextContents()).toEqual([
      'XP30Beginner+10 (metric, 2026-06-04), +10 (metric, 2026-06-02), +10 (metric, 2026-06-01)',
      expect.stringMatching(/^Lives0—-1 \(metric, 2026-06-04\), -1 \(metric, 2026-06-02\), -1 \(metric, 2026-06-01\), \+3 \(user_creation, 2026-06-01\)$/),
    ]);
    await expect.poll(() => part('Leaderboards').locator('tbody tr').allTextContents()).toEqual([expect.stringMatching(/^Top learners23/)]);
    await expect.poll(() => part('Preferences').locator('dl').textContent()).toBe('recapnoneOwn streak rulenone (the tenant\'s)');
    // Changed from the page: recap by email on again, push off for streak reminders.
    expect(await part('Preferences').getByLabel('recap by email').isChecked()).toBe(false);
    expect(await part('Preferences').getByLabel('streak reminder by push').isChecked()).toBe(true);
    await part('Preferences').getByLabel('recap by email').check();
    await part('Preferences').getByLabel('streak reminder by push').uncheck();
    await part('Preferences').getByRole('button', { name: 'Save preferences' }).click();
    await expect.poll(() => part('Preferences').getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', '/api/users/ann/preferences')).body.notifications).toEqual({
      achievement_completed: ['email', 'push'], streak_reminder: ['email'], reactivation: ['email', 'push'], recap: ['email'],
    });
    await expect.poll(() => part('Notifications').locator('tbody tr').allTextContents())
      .toEqual([`${await shown(page, '2026-06-01T17:00:00Z')}achievement completedemailannsuppressed (no transport)—`]);
    await d.shot('user');
  });

  it('shows the user\'s clock beside their zone, and says when it waits for a zone the user moved west to', async () => {
    const { page, s } = d;
    await s.setClock('2026-06-10T12:00:00Z');
    await s.event('lessons', { id: 'wes', tz: 'Pacific/Kiritimati' }, 1); // 02:00 on the 11th there
    const clock = page.locator('#user-clock');
    const open = async (id: string) => {
      await page.getByLabel('User id').fill(id);
      await page.getByRole('button', { name: 'Find' }).click();
      await page.locator(`[aria-label="User ${id}"]`).waitFor();
    };
    await open('wes');
    await expect.poll(() => clock.textContent()).toBe('2026-06-11, 02:00 hour');
    expect((await s.request('PATCH', '/api/users/wes', { body: { tz: 'Pacific/Pago_Pago' } })).status).toBe(200); // 01:00 on the 10th
    await open('ann');
    await open('wes');
    await expect.poll(() => clock.textContent()).toBe('2026-06-11, 02:00 hour (ahead of their zone, which it waits for: they moved west)');
  });

  it('fits a phone\'s width: no page scrolls sideways at 375 pixels', async () => {
    const { page } = d;
    await page.setViewportSize({ width: 375, height: 800 });
    const overflow = () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;
    // Ann's page (every section filled: her notification was settled by the first test's pass, not
    // left to the workers' schedule), then the others.
    await page.getByLabel('User id').fill('ann');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('[aria-label="User ann"]').waitFor();
    await page.getByRole('region', { name: 'Notifications' }).locator('tbody tr').waitFor();
    expect(await overflow(), 'Users').toBe(0);
    await d.shot('phone-user');
    for (const title of ['Metrics', 'Attributes', 'Achievements', 'Streak', 'Points', 'Leaderboards', 'Analytics', 'Tenants', 'API keys', 'Webhooks', 'Notifications']) {
      await d.open(title);
      // Its lists loaded (no network idleness to wait for: a busy machine kept it from coming in time).
      await expect.poll(() => page.getByText('Loading…').count(), { message: `${title}: still loading` }).toBe(0);
      expect(await overflow(), title).toBe(0);
    }
    await d.shot('phone-notifications');
    await d.open('Points');
    await page.getByRole('button', { name: 'Configure XP' }).click();
    await page.getByRole('region', { name: 'Configuration of XP' }).locator('table.levels').waitFor();
    expect(await overflow(), 'Points, a system configured').toBe(0);
    await d.open('Leaderboards');
    await page.getByRole('button', { name: 'Rankings' }).click();
    await page.locator('table.rankings').waitFor();
    expect(await overflow(), 'Leaderboards, rankings').toBe(0);
    await d.shot('phone-leaderboards');
  });
});
