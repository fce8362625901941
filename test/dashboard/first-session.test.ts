/**
 * A first session in a real browser, as someone who has never seen laurel meets it: what the
 * console says (nothing: no 404, no invalid pattern), a key the browser checks as the Admin API
 * will and whose refusal reads as words, a leaderboard's size bound in the form, the analytics'
 * refused range under its field with the figures kept, a board's first run without a run
 * before it, a button level with its fields whatever their errors, and the freezes to start with
 * bound by the most held, a tenant's customer id, an empty range drawn, and a way past the
 * navigation for the keyboard, the webhook events' checkboxes beside their names, and a double click that creates once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, type Dashboard } from './browser.js';

describe('a first session in the dashboard', () => {
  let d: Dashboard;
  const problems: string[] = [];
  beforeAll(async () => {
    d = await openDashboard({ workers: true });
    // The refusals the tests provoke log their calls' status; anything else is a problem (a 404 for
    // a file, an invalid pattern, an exception).
    d.page.on('console', (m) => {
      const call = /\/(api|admin)\//.test(m.location().url);
      if ((m.type() === 'error' || m.type() === 'warning') && !call) problems.push(`${m.text()} (${m.location().url})`);
    });
    d.page.on('pageerror', (e) => problems.push(e.message));
    // Signed in already: load the page again, listening from its first request.
    await d.page.reload();
    await d.page.getByRole('heading', { name: 'Metrics' }).waitFor();
  });
  afterAll(async () => { await d?.close(); });

  /** The constraint the browser reports for a field (the HTML validity state's flags set). */
  const validity = (id: string) => d.page.evaluate(`(() => { const v = document.getElementById(${JSON.stringify(id)}).validity;
    return Object.keys(Object.getPrototypeOf(v)).filter((k) => k !== 'valid' && v[k]); })()`) as Promise<string[]>;

  it('checks a key as the Admin API does, says the rule under it, and words the API\'s refusal', async () => {
    const { page, s } = d;
    await page.getByLabel('Name').fill('Lessons completed');
    await page.getByLabel('Key').fill('Lessons completed');
    expect(await page.locator('#metric-key-hint').textContent()).toContain('letters, digits, _ and - only (no spaces)');
    await page.getByRole('button', { name: 'Create metric' }).click();
    expect(await validity('metric-key')).toEqual(['patternMismatch']);
    expect((await s.request('GET', '/admin/v1/metrics')).body).toEqual([]);
    // Past the browser's check (a browser without it), the Admin API's refusal in words, under the key.
    await page.evaluate("document.getElementById('metric-key').removeAttribute('pattern')");
    await page.getByRole('button', { name: 'Create metric' }).click();
    await expect.poll(() => page.locator('#metric-key-error').textContent()).toBe('key may hold letters, digits, _ and - only (no spaces)');
    await page.getByLabel('Key').fill('lessons');
    await page.getByRole('button', { name: 'Create metric' }).click();
    await page.getByRole('cell', { name: 'lessons', exact: true }).waitFor();
    // The form emptied for the next one, its error gone.
    expect(await page.getByLabel('Key').inputValue()).toBe('');
    expect(await page.locator('#metric-key-error').textContent()).toBe('');
    // Every key field has the rule: an achievement's too.
    await d.open('Achievements');
    await page.getByLabel('Key').fill('five lessons');
    await page.getByRole('button', { name: 'Create achievement' }).click();
    expect(await validity('achievement-key')).toContain('patternMismatch');
    // A composite: one part at least, said by the browser, and how to choose several said under the list.
    await page.getByLabel('Completed when').selectOption('achievement');
    await page.getByLabel('Name').fill('All of it');
    await page.getByLabel('Key').fill('all');
    await page.getByRole('button', { name: 'Create achievement' }).click();
    expect(await validity('achievement-parts')).toEqual(['valueMissing']);
    expect(await page.locator('#achievement-parts-hint').textContent()).toContain('Ctrl-click');
    await page.evaluate("document.getElementById('achievement-parts').removeAttribute('required')");
    await page.getByRole('button', { name: 'Create achievement' }).click();
    await expect.poll(() => page.locator('#achievement-parts-error').textContent()).toBe('achievementIds needs one at least');
  });

  it('bounds a leaderboard\'s size in the form as the Admin API does', async () => {
    const { page } = d;
    await d.open('Leaderboards');
    await page.getByLabel('Ranks the metric').selectOption({ label: 'Lessons completed' });
    await page.getByLabel('Name').fill('Top learners');
    await page.getByLabel('Key').fill('top-learners');
    await page.getByLabel('Participants (at most; empty: every one)').fill('5000');
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    expect(await validity('board-size')).toEqual(['rangeOverflow']);
    // Past the browser's check, the Admin API's bound in words, under the size.
    await page.evaluate("document.getElementById('board-size').removeAttribute('max')");
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await expect.poll(() => page.locator('#board-size-error').textContent()).toBe('maxParticipants must be 1000 at most');
    await page.getByLabel('Participants (at most; empty: every one)').fill('10');
    await page.getByLabel('Starts a new run').selectOption('day');
    await page.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByRole('cell', { name: 'top-learners', exact: true }).waitFor();
  });

  it('offers no run before a board\'s first, and keeps the run shown when a day has none', async () => {
    const { page, s } = d;
    // Created, the board's rankings opened, empty; an event, then Rankings again shows it.
    await expect.poll(() => page.getByText('Nobody ranks yet.').count()).toBe(1);
    await s.event('lessons', { id: 'ada', name: 'Ada' }, 3);
    await page.getByRole('button', { name: 'Rankings of Top learners' }).click();
    await expect.poll(() => page.locator('table.rankings tbody tr').allTextContents()).toEqual(['1Ada3']);
    expect(await page.getByRole('button', { name: 'Previous run' }).isDisabled()).toBe(true);
    // A day before the board's start: the browser says so; past it, the Admin API's refusal under the day.
    await page.getByLabel('Run of the day (empty: the current one)').fill('2020-01-01');
    await page.getByRole('button', { name: 'Refresh' }).click();
    expect(await validity('run-day')).toEqual(['rangeUnderflow']);
    await page.evaluate("document.getElementById('run-day').removeAttribute('min')");
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => page.locator('#run-day-error').textContent()).toContain('not found');
    expect(await page.locator('table.rankings tbody tr').allTextContents()).toEqual(['1Ada3']);
    expect(await page.getByRole('region', { name: 'Past runs' }).getByText('No past runs yet.').count()).toBe(1);
  });

  it('shows a refused range under its field, and keeps the figures of the range before', async () => {
    const { page, s } = d;
    await s.workers!.testing.drainNow();
    await d.open('Analytics');
    await expect.poll(() => page.locator('table.analytics tbody tr').count()).toBe(1);
    const to = await page.getByLabel('To', { exact: true }).inputValue();
    expect(await page.getByLabel('From', { exact: true }).getAttribute('max')).toBe(to);
    // A From after To: the browser refuses; past its check, the Admin API's refusal under From.
    await page.getByLabel('From', { exact: true }).fill('2099-01-01');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await validity('from')).toEqual(['rangeOverflow']);
    expect(await validity('to')).toEqual(['rangeUnderflow']);
    await page.evaluate("document.getElementById('from').removeAttribute('max'); document.getElementById('to').removeAttribute('min')");
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('#from-error').textContent()).toContain('from must not be after to');
    expect(await page.locator('#to-error').textContent()).toBe('');
    expect(await page.locator('table.analytics tbody tr').count()).toBe(1);
    expect(await page.getByText('No events archived in this range yet.').count()).toBe(0);
    await d.shot('first-session-analytics-refused');
  });

  it('puts a form\'s button level with its input, and keeps it there when an error shows under the field', async () => {
    const { page } = d;
    await d.open('Users');
    const find = page.getByRole('button', { name: 'Find' });
    const input = page.getByLabel('User id');
    // Measured in one frame, against the form's own top: the search above it may still be laying out.
    const layout = () => page.evaluate<{ button: number; input: number }>(`(() => {
      const form = document.querySelector('form[aria-label="Open a user by id"]');
      const middle = (e) => { const r = e.getBoundingClientRect(); return r.y + r.height / 2 - form.getBoundingClientRect().y; };
      return { button: middle(form.querySelector('button')), input: middle(document.getElementById('user-id')) };
    })()`);
    const before = await layout();
    expect(Math.abs(before.button - before.input)).toBeLessThan(3);
    await input.fill('nobody');
    await find.click();
    await expect.poll(() => page.locator('#user-id-error').textContent()).toContain('No user "nobody"');
    expect(await layout()).toEqual(before);
  });

  it('bounds the freezes to start with by the most a user holds', async () => {
    const { page } = d;
    await d.open('Streak');
    await page.getByLabel('Extended by the metric').selectOption({ label: 'Lessons completed' });
    await page.getByLabel('At most').fill('2');
    await page.getByLabel('To start with').fill('5');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    expect(await validity('freeze-initial')).toEqual(['rangeOverflow']);
    await page.getByLabel('To start with').fill('2');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => page.getByRole('form', { name: 'Streak rule' }).getByRole('status').textContent()).toBe('Saved.');
    expect((await d.s.request('GET', '/admin/v1/streaks/settings')).body.freezes).toMatchObject({ max: 2, initial: 2 });
  });

  it('checks a tenant\'s customer id as the Admin API does, and draws an empty tenant\'s days at 0', async () => {
    const { page } = d;
    await d.open('Tenants');
    await page.getByLabel('Customer id').fill('acme corp ');
    await page.getByLabel('Name', { exact: true }).fill('Acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    expect(await validity('tenant-customer')).toEqual(['patternMismatch']);
    await page.evaluate("document.getElementById('tenant-customer').removeAttribute('pattern')");
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await expect.poll(() => page.locator('#tenant-customer-error').textContent())
      .toBe('customerId may hold plain ASCII characters only (no accents), no space at either end');
    await page.getByLabel('Customer id').fill('acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('cell', { name: 'acme', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Tenant' }).selectOption({ label: 'Acme' });
    await d.open('Analytics');
    await expect.poll(() => page.getByText('No events archived in this range yet.').count()).toBe(1);
    await expect.poll(() => page.locator('.uplot canvas').count()).toBe(3);
    await d.shot('first-session-analytics-empty');
  });

  it('lets the keyboard skip the navigation to the page', async () => {
    const { page } = d;
    await d.open('Metrics');
    await page.reload();
    await page.getByRole('heading', { name: 'Metrics' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to the page');
    expect(await page.getByRole('link', { name: 'Skip to the page' }).isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('metric-name');
    expect(page.url()).toMatch(/#\/metrics$/);
  });

  it('keeps each webhook event\'s checkbox beside its name, a long one too', async () => {
    const { page } = d;
    await d.open('Webhooks');
    const labels = page.getByRole('group', { name: 'Events' }).first().locator('label');
    expect(await labels.count()).toBeGreaterThan(10);
    for (const label of await labels.all()) {
      const box = (await label.locator('input').boundingBox())!;
      const text = (await label.boundingBox())!;
      // The box on the label's first line, not alone above its name.
      expect(box.y - text.y, await label.textContent() ?? '').toBeLessThan(8);
      expect(text.height, await label.textContent() ?? '').toBeLessThan(30);
    }
  });

  it('creates once on a double click, without a refusal of the copy', async () => {
    const { page, s } = d;
    await d.open('Metrics');
    let posts = 0;
    const count = (r: { method(): string; url(): string }) => { if (r.method() === 'POST' && r.url().endsWith('/admin/v1/metrics')) posts++; };
    page.on('request', count);
    await page.getByLabel('Name').fill('Quizzes');
    await page.getByLabel('Key').fill('quizzes');
    await page.getByRole('button', { name: 'Create metric' }).dblclick();
    await page.getByRole('cell', { name: 'quizzes', exact: true }).waitFor();
    page.off('request', count);
    expect(posts).toBe(1);
    expect(await page.locator('#metric-key-error').textContent()).toBe('');
    expect(((await s.request('GET', '/admin/v1/metrics')).body as { key: string }[]).filter((m) => m.key === 'quizzes')).toHaveLength(1);
  });

  it('stacks a form\'s fields and button closely at a phone\'s width', async () => {
    const { page } = d;
    await page.setViewportSize({ width: 375, height: 800 });
    await d.open('Analytics');
    const to = (await page.getByLabel('To', { exact: true }).boundingBox())!;
    const show = (await page.getByRole('button', { name: 'Show' }).boundingBox())!;
    // The button under To's error line, not a field's flex basis further down.
    expect(show.y - (to.y + to.height)).toBeLessThan(50);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('said nothing on the console all along', () => {
    expect(problems).toEqual([]);
  });
});
