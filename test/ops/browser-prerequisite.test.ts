/**
 * The browser the dashboard's tests need (scripts/browser.mjs, run first by `npm test`): present,
 * it says nothing and lets the tests run; missing where it cannot be installed (CHROMIUM_PATH
 * naming nothing), it stops at once with exit 1 and says what to do, instead of every browser
 * test failing with a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (env: Record<string, string>) => {
  const r = spawnSync(process.execPath, ['scripts/browser.mjs'], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
};

describe('the browser prerequisite of npm test', () => {
  it('lets the tests run when the browser is there', () => {
    const r = run({ CHROMIUM_PATH: '/bin/sh' });
    expect(r).toMatchObject({ status: 0, out: '', err: '' });
  });

  it('stops at once, saying what to do, when the browser named is not there', () => {
    const r = run({ CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(r.status).toBe(1);
    expect(r.err).toContain('/nonexistent/chromium is not there');
    expect(r.err).toContain('CHROMIUM_PATH');
  });
});
