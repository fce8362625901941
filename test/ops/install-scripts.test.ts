/**
 * `npm install` prints no warning about install scripts: every dependency that has one is listed in
 * package.json's `allowScripts` (npm 11's review of install scripts, blocking from npm 12), so
 * what runs at install is what was reviewed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('leaves no dependency\'s install script unreviewed', async () => {
  const { stdout } = await run('npm', ['install-scripts', 'ls'], { encoding: 'utf8' });
  expect(stdout.trim()).toBe('No packages with unreviewed install scripts.');
});
