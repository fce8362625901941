/**
 * `npm start` as the README runs it, on a current build: it compiles nothing (scripts/build.mjs
 * finds every part current, and the build's files are left as they were), serves `/ready` and the
 * dashboard, answers with a request id its log line about the request holds, and stops on a
 * SIGTERM to npm.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.mjs';
import { loadSettings } from '../../src/lib/settings.js';
import { deletePostgresRows, deletePrefix } from '../support/server.js';
import { listeningPort } from '../support/listening.js';

const ROOT = join(import.meta.dirname, '..', '..');
const prefix = `t${randomBytes(5).toString('hex')}`;
let stop: (() => Promise<void>) | null = null;

beforeAll(() => {
  // Whatever is stale is built now (nothing, after `npm test`'s own build), so that `npm start` finds it current.
  build({ root: ROOT, log: () => undefined });
}, 120_000);

afterAll(async () => {
  await stop?.();
  const settings = loadSettings();
  await deletePrefix(settings, prefix);
  await deletePostgresRows(settings, [prefix]);
});

describe('npm start on a current build', () => {
  it('runs no compiler and serves /ready and the dashboard', async () => {
    const built = ['dist/src/cli.js', 'dist/dashboard/index.html'].map((f) => statSync(join(ROOT, f)).mtimeMs);
    // Its own process group: npm, its shell and laurel's processes are stopped together.
    const child = spawn('npm', ['start'], {
      cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: `k-${prefix}`, LOG_LEVEL: 'info' },
    });
    let out = '';
    child.stdout!.on('data', (d) => { out += d; });
    child.stderr!.on('data', (d) => { out += d; });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    stop = async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // The group is gone already.
      }
      await exited;
    };

    // PORT=0: laurel takes the kernel's pick, and its primary says which once its api processes listen.
    let port = 0;
    for (const until = Date.now() + 60_000; ;) {
      expect(child.exitCode, out).toBeNull();
      port = port === 0 ? listeningPort(out, 'processes') : port;
      const ready = port === 0 ? null : await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null);
      if (ready?.status === 200) break;
      if (Date.now() > until) throw new Error(`npm start did not get ready: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // An api process per core but the one the workers run on (one on this 2-core machine).
    const listening = out.split('\n').find((l) => l.includes('"laurel api processes listening"'));
    expect(listening, out).toBeDefined();
    expect((JSON.parse(listening!) as { processes: number }).processes).toBe(Math.max(1, availableParallelism() - 1));
    expect(out).toContain('build: server is current');
    expect(out).toContain('build: dashboard is current');
    expect(out).not.toMatch(/build: (server|dashboard) \(/);
    expect(['dist/src/cli.js', 'dist/dashboard/index.html'].map((f) => statSync(join(ROOT, f)).mtimeMs)).toEqual(built);
    // Every answer carries its request's id, and the api's line about the request holds it.
    const refused = await fetch(`http://127.0.0.1:${port}/v1/no-such-route`);
    expect(refused.status).toBe(404);
    const reqId = refused.headers.get('x-request-id');
    expect(reqId).toMatch(/^[0-9a-f]{10}-[0-9a-z]+$/);
    const said = () => out.split('\n').find((l) => l.includes(`"reqId":"${reqId}"`));
    await expect.poll(() => said() !== undefined).toBe(true);
    expect(JSON.parse(said()!)).toMatchObject({ component: 'http', msg: 'request refused', status: 404, url: '/v1/no-such-route' });
    const page = await fetch(`http://127.0.0.1:${port}/dashboard/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app"');
    // SIGTERM to npm reaches laurel (the start script execs node): it stops as it would alone.
    // (npm itself may exit by the signal or with laurel's 0: what counts is that laurel stops.)
    child.kill('SIGTERM');
    await exited;
    const group = () => { try { process.kill(-child.pid!, 0); return 'running'; } catch { return 'gone'; } };
    await expect.poll(group, { timeout: 20_000 }).toBe('gone');
    expect(out).not.toMatch(/laurel: /);
    await expect.poll(() => fetch(`http://127.0.0.1:${port}/health`).then(() => 'listening', () => 'stopped')).toBe('stopped');
  }, 120_000);
});
