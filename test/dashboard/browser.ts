/**
 * The dashboard's browser tests' setup: the real server (with its workers), Debian's chromium
 * driven by playwright-core, a page signed in with the admin key, and screenshots kept in
 * test-output/dashboard/ (not committed). Anything the page's Content-Security-Policy blocks fails
 * the file when it closes.
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { deletePostgresRows, startTestServer, type StartOptions, type TestServer } from '../support/server.js';
import { HANG_MS } from '../support/hang.js';

const SHOTS = 'test-output/dashboard';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Dashboard {
  s: TestServer;
  browser: Browser;
  page: Page;
  /** A full-page screenshot, test-output/dashboard/<name>.png. */
  shot(name: string): Promise<unknown>;
  /** Follows the navigation's link to a page and waits for its heading. */
  open(title: string): Promise<void>;
  /**
   * Answers the confirmation a destructive action opened (a modal dialog) with its button `action`
   * and waits for it to close; returns what it said (its title and what will be lost).
   */
  confirm(action: string): Promise<string>;
  close(): Promise<void>;
}

/** Answers the confirmation dialog open on `page` with its button `action`; returns what it said. */
export async function answerConfirmation(page: Page, action: string): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const said = (await dialog.textContent()) ?? '';
  await dialog.getByRole('button', { name: action, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  return said;
}

/** A moment as the page shows it (words.ts `moment`): in the browser's locale and zone. */
export function shown(page: Page, iso: string): Promise<string> {
  return page.evaluate((at) => new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }), iso);
}

export async function openDashboard(opts: StartOptions = { workers: true }): Promise<Dashboard> {
  mkdirSync(SHOTS, { recursive: true });
  const s = await startTestServer(opts);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // What the page's Content-Security-Policy blocked (docs/operations.md, "Pages"): close() fails on any.
  const blocked: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && m.text().includes('Content Security Policy')) blocked.push(m.text());
  });
  // A step that waits in vain fails with its locator, before the test's own timeout: a bound for a
  // hang, not for a speed (a page beside a CPU hog waits many times its quiet time).
  page.setDefaultTimeout(HANG_MS / 2);
  await page.goto(`${s.url}/dashboard/`);
  await page.getByLabel('Admin API key').fill(s.settings.adminKey!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Metrics' }).waitFor();
  return {
    s, browser, page,
    shot: (name) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true }),
    open: async (title) => {
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
      await page.getByRole('heading', { name: title, exact: true, level: 1 }).waitFor();
    },
    confirm: (action) => answerConfirmation(page, action),
    close: async () => {
      await browser.close();
      await s.close();
      await deletePostgresRows(s.settings, [s.prefix]);
      if (blocked.length > 0) throw new Error(`the dashboard's Content-Security-Policy blocked: ${blocked.join('\n')}`);
    },
  };
}
