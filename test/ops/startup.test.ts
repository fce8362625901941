/**
 * The command line as an operator runs it (the built `dist/src/cli.js`, as `npm start` does):
 * failing fast without Redis, the first admin key, `laurel keys create`, graceful shutdown.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { killCliProcesses, runCli, type CliRun } from '../support/cli.js';
import { deletePostgresRows, deletePrefix } from '../support/server.js';
import { listeningPorts, portOf } from '../support/listening.js';
import { HANG_MS } from '../support/hang.js';
import { loadSettings } from '../../src/lib/settings.js';

const prefixes: string[] = [];

afterAll(async () => {
  killCliProcesses();
  const settings = loadSettings();
  for (const p of prefixes) await deletePrefix(settings, p);
  // `laurel start` runs the workers, which copy the configuration into Postgres.
  await deletePostgresRows(settings, prefixes);
});


/** `laurel <args>`, logging warnings and worse unless `env` says otherwise. */
const run = (args: string[], env: Record<string, string>): CliRun => runCli(args, { LOG_LEVEL: 'warn', ...env });

async function waitReady(port: number, run: CliRun): Promise<void> {
  const until = Date.now() + HANG_MS;
  while (Date.now() < until) {
    if (run.child.exitCode !== null) throw new Error(`exited early: ${run.output()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready: ${run.output()}`);
}

function newPrefix(): string {
  const p = `t${randomBytes(5).toString('hex')}`;
  prefixes.push(p);
  return p;
}

describe('laurel start-up', () => {
  it('fails fast when Redis is unreachable, says how to get one, and listens on nothing', async () => {
    // PORT=0 and info: any api process that came to listen would say so, with its port.
    const r = run(['start'], { PORT: '0', REDIS_URL: 'redis://127.0.0.1:1', LAUREL_PREFIX: newPrefix(), LOG_LEVEL: 'info' });
    const code = await r.exited;
    expect(code).toBe(1);
    expect(r.output()).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
    expect(r.output()).toMatch(/REDIS_URL/);
    // Its whole output is in (every process that held its pipe is gone), and nothing ever listened.
    expect(r.output()).not.toMatch(/listening/);
  });

  it('refuses an option it does not know, a value missing or an argument left over, with the usage; --help shows it and does nothing', async () => {
    const env = { LAUREL_PREFIX: newPrefix() };
    const cases: [string[], RegExp, RegExp][] = [
      [['keys', 'create', '--knd', 'application'], /unknown option "--knd"/, /usage: laurel keys create \[--kind/],
      [['keys', 'create', '--kind'], /--kind needs a value/, /usage: laurel keys create/],
      [['keys', 'create', '--kind', 'application', '--tenant'], /--tenant needs a value/, /usage: laurel keys create/],
      [['keys', 'make'], /usage: laurel keys create/, /usage/],
      [['snapshot', '--ful'], /unknown option "--ful"/, /usage: laurel snapshot \[--full\]/],
      [['restore', '--forc'], /unknown option "--forc"/, /usage: laurel restore \[--force\]/],
      [['start', 'now'], /unexpected argument "now"/, /usage: laurel start/],
    ];
    // Each case is a process of its own (a second or more on a busy machine): all at once.
    const runs = cases.map(([args]) => run(args, env));
    for (const [i, [args, why, usage]] of cases.entries()) {
      const r = runs[i];
      expect(await r.exited, args.join(' ')).toBe(1);
      expect(r.output(), args.join(' ')).toMatch(why);
      expect(r.output(), args.join(' ')).toMatch(usage);
      // Nothing made: no key printed.
      expect(r.output(), args.join(' ')).not.toMatch(/lrl_/);
    }
    // A prefix Postgres has never seen: nothing to restore, said as such (not a restore of nothing).
    const typo = run(['restore'], env);
    expect(await typo.exited).toBe(1);
    expect(typo.output()).toMatch(new RegExp(`Postgres holds nothing of installation "${env.LAUREL_PREFIX}": nothing to restore \\(is LAUREL_PREFIX right\\?\\)`));
    const helps = [['keys', 'create', '--help'], ['snapshot', '--help'], ['restore', '-h']];
    const helpRuns = helps.map((args) => run(args, env));
    for (const [i, args] of helps.entries()) {
      const r = helpRuns[i];
      expect(await r.exited, args.join(' ')).toBe(0);
      expect(r.output(), args.join(' ')).toMatch(new RegExp(`^usage: laurel ${args[0]}`));
      expect(r.output(), args.join(' ')).not.toMatch(/lrl_|snapshot \d+ taken|restored/);
    }
  }, 90_000);

  it('prints its usage for no command, --help, -h and help, and starts nothing', async () => {
    const env = { LAUREL_PREFIX: newPrefix(), PORT: '1' };
    const runs = [[], ['--help'], ['-h'], ['help']].map((args) => ({ args, r: run(args, env) }));
    for (const { args, r } of runs) {
      // No command: exit 1 (it did nothing); asked for: exit 0.
      expect(await r.exited, args.join(' ')).toBe(args.length === 0 ? 1 : 0);
      expect(r.output(), args.join(' ')).toMatch(/^usage: laurel <command> \[options\]/);
      for (const command of ['start', 'api', 'workers', 'keys create', 'snapshot', 'restore', 'loadtest']) expect(r.output()).toContain(`  ${command}`);
      expect(r.output(), args.join(' ')).not.toMatch(/listening|snapshot \d+ taken/);
    }
    const unknown = run(['strat'], env);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toMatch(/unknown command "strat".*laurel --help/);
  });

  it('refuses a Node.js it does not run on, saying which it runs on, before it loads anything', async () => {
    // Node.js 24 as the process sees it (uWebSockets.js has no binary for it).
    const fake = Buffer.from('Object.defineProperty(process.versions, "node", { value: "24.1.0" })').toString('base64');
    for (const command of ['start', 'workers']) {
      const r = run([command], { NODE_OPTIONS: `--import=data:text/javascript;base64,${fake}`, LAUREL_PREFIX: newPrefix() });
      expect(await r.exited).toBe(1);
      expect(r.output().trim()).toBe('laurel: Node.js 24.1.0 cannot run laurel: it runs on Node.js 20 (20.11 or later) or 22, the versions its ' +
        'uWebSockets.js build (uws-pack 20.0.8) has a native binary for. Install Node.js 20 (for example `nvm install 20`) and start it again.');
    }
  });

  it('refuses bad settings with a message naming the variable, and its code', async () => {
    const r = run(['api'], { BODY_LIMIT: 'lots', LAUREL_PREFIX: newPrefix() });
    expect(await r.exited).toBe(1);
    // The message, then its code (docs/operations.md, "Error codes"), and no stack.
    expect(r.output()).toMatch(/^laurel: .*BODY_LIMIT.* \[invalid_setting\]$/m);
    expect(r.output()).not.toMatch(/^\s+at /m);
    const limit = run(['api'], { LAUREL_RATE_LIMIT: '100:0', LAUREL_PREFIX: newPrefix() });
    expect(await limit.exited).toBe(1);
    expect(limit.output()).toMatch(/LAUREL_RATE_LIMIT must be <requests per second>\[:<burst>\].*got "100:0"/);
  });

  it('creates and prints the first admin key once, which then works; laurel keys create adds more', async () => {
    const prefix = newPrefix();
    const env = { LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: '' };
    const first = run(['api'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
    const port = await portOf(first, 'api');
    await waitReady(port, first);
    const key = /(lrl_adm_\S+)/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    const metrics = await fetch(`http://127.0.0.1:${port}/admin/v1/metrics`, { headers: { 'x-api-key': key! } });
    expect(metrics.status).toBe(200);

    const created = run(['keys', 'create', '--kind', 'application'], env);
    expect(await created.exited).toBe(0);
    // The key is the command's whole output: nothing else (no log line) may come with it.
    expect(created.output()).toMatch(/^lrl_app_\S+\n?$/);
    const appKey = created.output().trim();
    // The running api learns of the new key through pub/sub (or its version poll).
    let asApp = 0;
    for (const until = Date.now() + 5000; Date.now() < until && asApp !== 404;) {
      asApp = (await fetch(`http://127.0.0.1:${port}/v1/users/nobody`, { headers: { 'x-api-key': appKey } })).status;
      if (asApp !== 404) await new Promise((r) => setTimeout(r, 50));
    }
    expect(asApp).toBe(404);
    const adminAsApp = await fetch(`http://127.0.0.1:${port}/admin/v1/metrics`, { headers: { 'x-api-key': appKey } });
    expect(adminAsApp.status).toBe(403);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = run(['api'], { ...env, PORT: '0', LOG_LEVEL: 'info' });
    await waitReady(await portOf(second, 'api'), second);
    expect(second.output()).not.toMatch(/lrl_adm_/);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('laurel start runs its one api process apart from the workers, which run in the primary, and stops on SIGTERM', async () => {
    const r = run(['start'], { PORT: '0', LAUREL_PREFIX: newPrefix(), LAUREL_ADMIN_KEY: 'start-test-key', LOG_LEVEL: 'info' });
    await waitReady(await portOf(r, 'processes'), r);
    const pidOf = async (what: string) => (await r.saying(what)).map((l) => (JSON.parse(l) as { pid: number }).pid);
    expect(await pidOf('laurel workers running')).toEqual([r.child.pid]);
    const api = await pidOf('laurel api listening');
    expect(api).toHaveLength(1);
    expect(api[0]).not.toBe(r.child.pid);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(r.output()).toMatch(/shutting down/);
  });

  it('laurel start stops in order on a SIGTERM that comes while it starts, its api process with it', async () => {
    const r = run(['start'], { PORT: '0', LAUREL_PREFIX: newPrefix(), LAUREL_ADMIN_KEY: 'start-test-key', LOG_LEVEL: 'info' });
    // The workers run before the api process listens: the primary is still starting.
    await r.saying('laurel workers running');
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    const stopped = r.lines().filter((l) => l.includes('"laurel stopped"')).map((l) => (JSON.parse(l) as { pid: number }).pid);
    expect(stopped).toContain(r.child.pid);
    // Its api process, had it started, stopped before it (the primary waits for it).
    for (const line of r.lines().filter((l) => l.includes('laurel api listening'))) {
      const { pid } = JSON.parse(line) as { pid: number };
      expect(stopped).toContain(pid);
    }
    // Nothing listens on the port its api process said it took, had it started (PORT=0: known from that line alone).
    for (const port of listeningPorts(r.output(), 'api')) await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });
});
