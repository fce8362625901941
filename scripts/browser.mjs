#!/usr/bin/env node
/**
 * The browser the dashboard's tests drive (docs/testing.md): Debian's `chromium`, at
 * `CHROMIUM_PATH` or /usr/bin/chromium. `npm test` runs this first: where the browser is missing,
 * it installs Debian's package when it can (as root, with apt-get: what the test machines are),
 * and otherwise stops at once with the one command to run, rather than every browser test failing.
 *
 *   node scripts/browser.mjs          ensures the browser; exit 1 (saying what to run) without it
 *
 * Plain JavaScript, so that it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL = 'apt-get install -y chromium';

/** Whether a file can be run. */
function runnable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The command on PATH, or null. */
function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && runnable(join(dir, command))) return join(dir, command);
  }
  return null;
}

/** Runs apt-get with its output shown; whether it succeeded. */
function apt(aptGet, args) {
  return spawnSync(aptGet, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
}

function main() {
  if (runnable(CHROMIUM)) return 0;
  const aptGet = onPath('apt-get');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (process.env.CHROMIUM_PATH === undefined && aptGet !== null && root) {
    console.log(`browser: ${CHROMIUM} is missing; installing Debian's chromium (${INSTALL})`);
    if (!apt(aptGet, ['install', '-y', 'chromium'])) apt(aptGet, ['update']) && apt(aptGet, ['install', '-y', 'chromium']);
    if (runnable(CHROMIUM)) return 0;
  }
  console.error(`browser: the dashboard's tests drive Debian's chromium, and ${CHROMIUM} is not there.`);
  console.error(process.env.CHROMIUM_PATH === undefined
    ? `Install it with: sudo ${INSTALL}   (or set CHROMIUM_PATH to a Chromium of your own)`
    : 'CHROMIUM_PATH names no program that can be run: point it at a Chromium, or unset it for /usr/bin/chromium.');
  return 1;
}

process.exitCode = main();
