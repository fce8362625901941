/**
 * The dashboard's edit forms in a real browser (test/dashboard/browser.ts), against the real server:
 * achievements, leaderboards, and a points system's triggers, levels and boosts. Each is edited as
 * a person would, the change checked through the Admin API, and a refused edit's message found
 * under the field it concerns.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, createAchievements } from '../support/admin.js';
import { openDashboard, type Dashboard } from './browser.js';

/**
 * A field's error with the card's own lines beside it (its form error and status), so that a
 * failing wait says what the card showed instead (a save taken, nothing changed, another error).
 */
async function cardText(card: Locator, fieldError: string): Promise<string> {
  const [field, form, status] = await Promise.all([
    card.page().locator(fieldError).textContent(), card.getByRole('alert').last().textContent(), card.getByRole('status').textContent(),
  ]);
  return `field: ${field ?? ''} | form: ${form ?? ''} | status: ${status ?? ''}`;
}

describe('the dashboard\'s edit forms', () => {
  let d: Dashboard;
  let ids: Record<string, string>;
  beforeAll(async () => {
    d = await openDashboard();
    ids = {
      ...await d.s.metrics('lessons', 'quizzes'),
      ...await d.s.attributes('user', 'plan'),
      ...await d.s.attributes('event', 'source'),
    };
  });
  afterAll(async () => { await d?.close(); });

  it('edits an achievement: its texts, total, event and user attribute filters; a key in use is refused under the key', async () => {
    const { page, s } = d;
    const made = await createAchievements(s, [
      { name: 'Five lessons', key: 'five', trigger: 'metric', metricId: ids.lessons, metricValue: 5 },
      { name: 'Ten lessons', key: 'ten', trigger: 'metric', metricId: ids.lessons, metricValue: 10 },
    ]);
    await d.open('Achievements');
    await page.getByRole('button', { name: 'Edit achievement five' }).click();
    const form = page.getByRole('form', { name: 'Edit achievement five' });
    await expect.poll(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe('Five lessons');
    // The form takes the focus: the keyboard goes on from there.
    expect(await form.getByLabel('Name', { exact: true }).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await form.getByLabel('Name', { exact: true }).fill('Three quizzes');
    await form.getByLabel('When the metric').selectOption({ label: 'Metric quizzes' });
    await form.getByLabel('Reaches the total').fill('3');
    await form.getByLabel('Description').fill('Three quizzes from the app');
    await form.getByLabel('Badge image URL').fill('https://example.com/three.png');
    await form.getByRole('button', { name: 'Add a filter: Counts only events with' }).click();
    await form.getByLabel('Counts only events with 1: value').fill('app');
    await form.getByRole('button', { name: 'Add a filter: Only users with' }).click();
    await form.getByLabel('Only users with 1: value').fill('pro');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    await d.shot('achievement-edit');
    expect((await s.request('GET', `/admin/v1/achievements/${made.five}`)).body).toMatchObject({
      key: 'five', name: 'Three quizzes', description: 'Three quizzes from the app', badge: { url: 'https://example.com/three.png' },
      metricId: ids.quizzes, metricValue: 3,
      eventAttributes: [{ attributeId: ids.source, attributeValue: 'app' }],
      userAttributes: [{ attributeId: ids.plan, attributeValue: 'pro' }],
    });
    await page.getByRole('cell', { name: 'Three quizzes', exact: true }).waitFor();

    // A filter removed, and a key in use: refused, the message under the key.
    await form.getByRole('button', { name: 'Remove Only users with 1' }).click();
    await form.getByLabel('Key', { exact: true }).fill('ten');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#achievement-edit-key-error').textContent()).toContain('already exists');
    expect(await page.locator('#achievement-edit-name-error').textContent()).toBe('');
    expect((await s.request('GET', `/admin/v1/achievements/${made.five}`)).body).toMatchObject({ key: 'five', userAttributes: [{ attributeValue: 'pro' }] });
    await form.getByLabel('Key', { exact: true }).fill('three');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', `/admin/v1/achievements/${made.five}`)).body).toMatchObject({ key: 'three', userAttributes: [] });
    await form.getByRole('button', { name: 'Close' }).click();
    expect(await form.count()).toBe(0);
    // The focus is back on the button that opened the form.
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Edit achievement three');
  });

  it('edits a leaderboard: everything while inactive; while active, what its state lets change; a size lowered is refused under the size', async () => {
    const { page, s } = d;
    const draft = await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Draft', key: 'draft', rankBy: 'metric', metricId: ids.lessons, status: 'inactive' });
    const live = await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Live', key: 'live', rankBy: 'metric', metricId: ids.lessons, status: 'active', maxParticipants: 100 });
    await d.open('Leaderboards');

    await page.getByRole('button', { name: 'Edit leaderboard Draft' }).click();
    // The form's name follows the board's (renamed when saved).
    const form = page.getByRole('form', { name: /^Edit leaderboard / });
    await form.getByLabel('Name', { exact: true }).fill('Weekly quizzes');
    await form.getByLabel('Key', { exact: true }).fill('weekly-quizzes');
    await form.getByLabel('Description').fill('Who does the most quizzes');
    await form.getByLabel('Ranks the metric').selectOption({ label: 'Metric quizzes' });
    await form.getByLabel('Starts a new run').selectOption('day');
    await form.getByLabel('N', { exact: true }).fill('7');
    await form.getByLabel('Groups users by').selectOption({ label: 'plan' });
    await form.getByLabel('Ends on (optional)').fill('2099-12-31');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', `/admin/v1/leaderboards/${draft.id}`)).body).toMatchObject({
      name: 'Weekly quizzes', key: 'weekly-quizzes', description: 'Who does the most quizzes', status: 'inactive', metricId: ids.quizzes,
      runUnit: 'day', runInterval: 7, breakdownAttributes: [ids.plan], end: '2099-12-31',
    });
    await page.getByRole('cell', { name: 'weekly-quizzes', exact: true }).waitFor();
    await form.getByRole('button', { name: 'Close' }).click();

    // Active: what it ranks, its key and its runs are fixed; its size may rise, not fall.
    await page.getByRole('button', { name: 'Edit leaderboard Live' }).click();
    await expect.poll(() => form.getAttribute('aria-label')).toBe('Edit leaderboard Live');
    expect(await form.getByLabel('Key', { exact: true }).isDisabled()).toBe(true);
    expect(await form.getByLabel('Ranks the metric').isDisabled()).toBe(true);
    expect(await form.getByLabel('Starts on (optional)').isDisabled()).toBe(true);
    await form.getByLabel('Name', { exact: true }).fill('Live ranking');
    await form.getByLabel('Participants (at most)').fill('200');
    await form.getByLabel('Each day from (optional)').fill('08:00');
    await form.getByLabel('Each day until (optional)').fill('20:00');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', `/admin/v1/leaderboards/${live.id}`)).body).toMatchObject({
      name: 'Live ranking', key: 'live', status: 'active', maxParticipants: 200, startTime: '08:00', endTime: '20:00',
    });
    await form.getByLabel('Participants (at most)').fill('50');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#board-edit-size-error').textContent()).toContain('maxParticipants can only rise');
    expect(await form.getByRole('status').textContent()).toBe('');
    await d.shot('leaderboard-edit');
    expect((await s.request('GET', `/admin/v1/leaderboards/${live.id}`)).body).toMatchObject({ maxParticipants: 200 });
    // Paused while the form is open: what may change follows (a board that has been active keeps what it ranks, not its key).
    await page.getByRole('button', { name: 'Pause Live ranking' }).click();
    expect(await d.confirm('Pause')).toContain('Pause the leaderboard Live ranking?');
    await expect.poll(() => form.getByLabel('Key', { exact: true }).isDisabled()).toBe(false);
    await form.getByLabel('Participants (at most)').fill('200');
    await form.getByLabel('Key', { exact: true }).fill('live-ranking');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', `/admin/v1/leaderboards/${live.id}`)).body).toMatchObject({ key: 'live-ranking', status: 'inactive' });
  });

  it('edits a points system\'s trigger (with its filters), level and boost; each refusal under its field', async () => {
    const { page, s } = d;
    const system = await adminCreateOne(s, '/admin/v1/points', {
      name: 'Stars', key: 'stars',
      triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }],
      levels: [{ name: 'Beginner', key: 'beginner', points: 10 }, { name: 'Expert', key: 'expert', points: 100 }],
      boosts: [{ name: 'Double', start: '2026-01-01', multiplier: 2 }],
    });
    const path = (child: string) => `/admin/v1/points/${system.id}/${child}`;
    await d.open('Points');
    await page.getByRole('button', { name: 'Configure Stars' }).click();
    const box = page.getByRole('region', { name: 'Configuration of Stars' });

    await box.getByRole('button', { name: 'Edit trigger every 1 of Metric lessons' }).click();
    const trigger = box.getByRole('form', { name: /^Edit trigger / });
    await trigger.getByLabel('Points', { exact: true }).fill('0');
    await trigger.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#trigger-edit-points-error').textContent()).toBe('points must not be 0');
    await trigger.getByLabel('Points', { exact: true }).fill('5');
    await trigger.getByLabel('Status').selectOption('inactive');
    await trigger.getByLabel('Metric', { exact: true }).selectOption({ label: 'Metric quizzes' });
    await trigger.getByLabel('For every (units)').fill('2');
    await trigger.getByRole('button', { name: 'Add a filter: Counts only events with' }).click();
    await trigger.getByLabel('Counts only events with 1: value').fill('app');
    await trigger.getByRole('button', { name: 'Add a filter: Only users with' }).click();
    await trigger.getByLabel('Only users with 1: value').fill('pro');
    await trigger.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => trigger.getByRole('status').textContent()).toBe('Saved.');
    expect(await page.locator('#trigger-edit-points-error').textContent()).toBe('');
    expect((await s.request('GET', path('triggers'))).body).toMatchObject([{
      type: 'metric', points: 5, status: 'inactive', metricId: ids.quizzes, metricThreshold: 2,
      eventAttributes: [{ attributeId: ids.source, attributeValue: 'app' }], userAttributes: [{ attributeId: ids.plan, attributeValue: 'pro' }],
    }]);
    await box.getByRole('cell', { name: 'every 2 of Metric quizzes', exact: true }).waitFor();
    await trigger.getByRole('button', { name: 'Close' }).click();

    await box.getByRole('button', { name: 'Edit level Beginner' }).click();
    const level = box.getByRole('form', { name: /^Edit level / });
    await level.getByLabel('Level key').fill('expert');
    await level.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => cardText(level, '#level-edit-key-error')).toMatch(/^field: .*already exists/);
    await level.getByLabel('Level name').fill('Novice');
    await level.getByLabel('Level key').fill('novice');
    await level.getByLabel('Reached at (points)').fill('20');
    await level.getByLabel('Description').fill('The first steps');
    await level.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => level.getByRole('status').textContent()).toBe('Saved.');
    expect((await s.request('GET', path('levels'))).body).toEqual(expect.arrayContaining([
      expect.objectContaining({ key: 'novice', name: 'Novice', points: 20, description: 'The first steps' }),
    ]));
    await level.getByRole('button', { name: 'Close' }).click();

    await box.getByRole('button', { name: 'Edit boost Double' }).click();
    const boost = box.getByRole('form', { name: /^Edit boost / });
    await boost.getByLabel('Multiplier').fill('1');
    await boost.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => cardText(boost, '#boost-edit-multiplier-error')).toMatch(/^field: multiplier must not be 1 \|/);
    await boost.getByLabel('Boost name').fill('Triple');
    await boost.getByLabel('Multiplier').fill('3');
    await boost.getByLabel('To (day, optional)').fill('2099-01-31');
    await boost.getByLabel('Rounding').selectOption('up');
    await boost.getByRole('button', { name: 'Add a filter: Only users with' }).click();
    await boost.getByLabel('Only users with 1: value').fill('pro');
    await boost.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => boost.getByRole('status').textContent()).toBe('Saved.');
    await d.shot('points-edit');
    expect((await s.request('GET', path('boosts'))).body).toMatchObject([{
      name: 'Triple', multiplier: 3, start: '2026-01-01', end: '2099-01-31', rounding: 'up', userAttributes: [{ attributeId: ids.plan, attributeValue: 'pro' }],
    }]);
  });

  it('takes the focus as it opens, before anything else can: a field chosen at once keeps it', async () => {
    const { page, s } = d;
    await createAchievements(s, [{ name: 'Quick', key: 'quick', trigger: 'metric', metricId: ids.lessons, metricValue: 1 }]);
    await d.open('Achievements');
    await page.getByRole('button', { name: 'Edit achievement quick' }).waitFor();
    // The form opened and its Key chosen as soon as it is there, as fast hands (or a test) may: the
    // form's own focus on its first field must not come after, moving the typing elsewhere.
    // (A string: the tests are typed without the DOM's names.)
    const focused = await page.evaluate(`(async () => {
      const key = new Promise((resolve) => {
        const seen = new MutationObserver(() => {
          const el = document.getElementById('achievement-edit-key');
          if (el !== null) { seen.disconnect(); resolve(el); }
        });
        seen.observe(document.body, { childList: true, subtree: true });
      });
      document.querySelector('[aria-label="Edit achievement quick"]').click();
      (await key).focus();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return document.activeElement?.id;
    })()`);
    expect(focused).toBe('achievement-edit-key');
    await page.getByRole('form', { name: 'Edit achievement quick' }).getByRole('button', { name: 'Close' }).click();
  });
});
