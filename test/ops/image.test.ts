/**
 * The Docker image, built without a Docker engine: the Dockerfile's steps replayed from a clean
 * context (`git archive HEAD`, less what .dockerignore leaves out) into a folder per stage (COPY
 * as COPY copies, RUN through `sh -c` in the stage's WORKDIR with its ENV), then what the last
 * stage would run (ENTRYPOINT and CMD) started there: `start` serves /ready, an event and the
 * dashboard; `workers` answers its health endpoint. Slow (a whole `npm ci` and build): the one
 * test of its file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/lib/settings.js';
import { deletePostgresRows, deletePrefix } from '../support/server.js';
import { portOf } from '../support/listening.js';

const ROOT = join(import.meta.dirname, '..', '..');
const settings = loadSettings();
const prefixes: string[] = [];
const children: ReturnType<typeof spawn>[] = [];
let work: string | null = null;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const p of prefixes) await deletePrefix(settings, p);
  await deletePostgresRows(settings, prefixes);
  if (work !== null) rmSync(work, { recursive: true, force: true });
});

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions: comments dropped, continued lines joined. */
export function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).map((l) => {
    const space = l.indexOf(' ');
    return { op: l.slice(0, space).toUpperCase(), args: l.slice(space + 1).trim() };
  });
}

interface Stage {
  name: string;
  base: string;
  dir: string;
  /** The stage's WORKDIR (an absolute path in the image), the folder `dir` stands for. */
  workdir: string;
  env: Record<string, string>;
  exposed: string[];
  entrypoint: string[];
  cmd: string[];
}

/** The environment of a replayed RUN: this one's, less npm's own variables (an `npm test` above would leak its config), and the stage's ENV. */
function runEnv(stage: Stage): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.toLowerCase().startsWith('npm_') && !k.startsWith('VITEST') && k !== 'NODE_ENV') env[k] = v;
  return { ...env, ...stage.env };
}

/** Replays every step; answers the stages, the last one what the image runs. */
function replay(dockerfile: string, context: string, into: string): Stage[] {
  const stages: Stage[] = [];
  let stage: Stage | null = null;
  for (const { op, args } of instructions(dockerfile)) {
    if (op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (m === null) throw new Error(`FROM ${args}: not understood`);
      const name = m[2] ?? String(stages.length);
      stage = { name, base: m[1], dir: join(into, `stage-${name}`), workdir: '/', env: {}, exposed: [], entrypoint: [], cmd: [] };
      mkdirSync(stage.dir, { recursive: true });
      stages.push(stage);
      continue;
    }
    if (stage === null) throw new Error(`${op} before FROM`);
    const s: Stage = stage;
    switch (op) {
      case 'WORKDIR':
        s.workdir = args;
        break;
      case 'ENV': {
        for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) s.env[m[1]] = m[2].replace(/^"|"$/g, '');
        break;
      }
      case 'COPY': {
        const parts = args.split(/\s+/);
        const from = parts[0].startsWith('--from=') ? parts.shift()!.slice('--from='.length) : null;
        const dest = parts.pop()!;
        const source = from === null ? null : stages.find((x) => x.name === from);
        if (from !== null && source === undefined) throw new Error(`COPY --from=${from}: no such stage`);
        const target = join(s.dir, dest);
        for (const src of parts) {
          // A path in another stage's image, under its WORKDIR; or a path of the context.
          const path = source == null ? join(context, src) : join(source.dir, src.startsWith(source.workdir) ? src.slice(source.workdir.length) : src);
          if (!existsSync(path)) throw new Error(`COPY ${args}: ${src} does not exist (in ${source?.name ?? 'the context'})`);
          const isDir = readdirSafe(path) !== null;
          if (isDir) cpSync(path, target, { recursive: true, verbatimSymlinks: true });
          else cpSync(path, dest.endsWith('/') || parts.length > 1 ? join(target, basename(src)) : target, { verbatimSymlinks: true });
        }
        break;
      }
      case 'RUN': {
        const r = spawnSync('sh', ['-c', args], { cwd: s.dir, env: runEnv(s), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        if (r.status !== 0) throw new Error(`RUN ${args} exited with ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
        break;
      }
      case 'USER':
        break;
      case 'EXPOSE':
        s.exposed.push(...args.split(/\s+/));
        break;
      case 'ENTRYPOINT':
        s.entrypoint = JSON.parse(args) as string[];
        break;
      case 'CMD':
        s.cmd = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(`${op}: the replay does not know this instruction (test/ops/image.test.ts): keep the Dockerfile to the ones it replays`);
    }
  }
  return stages;
}

function readdirSafe(path: string): string[] | null {
  try {
    return readdirSync(path);
  } catch {
    return null;
  }
}

/** A clean context: the committed tree, less what .dockerignore names. */
function cleanContext(into: string): string {
  const context = join(into, 'context');
  mkdirSync(context, { recursive: true });
  const r = spawnSync('sh', ['-c', `git -C "${ROOT}" archive --format=tar HEAD | tar -x -C "${context}"`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git archive failed: ${r.stderr}`);
  const ignored = readFileSync(join(context, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  for (const pattern of ignored) {
    if (pattern.includes('*')) {
      const re = new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`);
      for (const name of readdirSync(context)) if (re.test(name)) rmSync(join(context, name), { recursive: true, force: true });
    } else {
      rmSync(join(context, pattern), { recursive: true, force: true });
    }
  }
  return context;
}

/** Runs what the image runs, with `command` for CMD when given; answers its output so far. */
function run(image: Stage, command: string[] | null, env: Record<string, string>): { output: () => string; child: ReturnType<typeof spawn> } {
  const [program, ...args] = [...image.entrypoint, ...(command ?? image.cmd)];
  expect(program).toBe('node');
  const child = spawn(process.execPath, args, { cwd: image.dir, env: { ...runEnv(image), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  return { output: () => out, child };
}

async function readyAt(url: string, what: { output: () => string; child: ReturnType<typeof spawn> }): Promise<void> {
  for (const until = Date.now() + 60_000; ;) {
    if (what.child.exitCode !== null) throw new Error(`exited with ${what.child.exitCode}: ${what.output()}`);
    if ((await fetch(url).catch(() => null))?.status === 200) return;
    if (Date.now() > until) throw new Error(`${url} not ready: ${what.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the Docker image, its steps replayed', () => {
  it('builds from a clean context and serves the api, the dashboard and the workers, and runs loadtest', { timeout: 15 * 60_000 }, async () => {
    work = mkdtempSync(join(tmpdir(), 'laurel-image-'));
    const context = cleanContext(work);
    expect(existsSync(join(context, 'dashboard', 'tsconfig.json'))).toBe(true);
    const stages = replay(readFileSync(join(context, 'Dockerfile'), 'utf8'), context, work);
    const image = stages[stages.length - 1];
    expect(image.base).toMatch(/^node:20-/);
    expect(image.exposed).toContain('3000');
    // It runs the build's output with production packages only.
    expect(existsSync(join(image.dir, 'dist', 'src', 'cli.js'))).toBe(true);
    expect(existsSync(join(image.dir, 'dist', 'dashboard', 'index.html'))).toBe(true);
    expect(existsSync(join(image.dir, 'src'))).toBe(false);
    expect(existsSync(join(image.dir, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(image.dir, 'node_modules', 'prom-client'))).toBe(true);

    // `start`, the image's command: the api processes (one per CPU) and the workers.
    const prefix = `t${randomBytes(5).toString('hex')}`;
    prefixes.push(prefix);
    const adminKey = `k-${prefix}`;
    // PORT=0 and info: the primary says which port the kernel picked once its api processes listen.
    const api = run(image, null, { PORT: '0', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey, LOG_LEVEL: 'info' });
    const port = await portOf(api, 'processes');
    const base = `http://127.0.0.1:${port}`;
    await readyAt(`${base}/ready`, api);
    const headers = { 'x-api-key': adminKey, 'content-type': 'application/json' };
    const metric = await fetch(`${base}/admin/v1/metrics`, { method: 'POST', headers, body: JSON.stringify([{ name: 'Lessons', key: 'lessons' }]) });
    expect(metric.status).toBe(201);
    const event = await fetch(`${base}/api/metrics/lessons/event`, { method: 'POST', headers, body: JSON.stringify({ user: { id: 'ada' }, value: 1 }) });
    expect(event.status).toBe(201);
    expect(((await event.json()) as { total: number }).total).toBe(1);
    const page = await fetch(`${base}/dashboard/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    expect((await fetch(`${base}${script}`)).status).toBe(200);

    // `workers`, as docker-compose.yml runs them, with their health endpoint.
    const workers = run(image, ['workers'], { LAUREL_PREFIX: prefix, LAUREL_WORKERS_PORT: '0', LOG_LEVEL: 'info' });
    const healthPort = await portOf(workers, 'workers');
    await readyAt(`http://127.0.0.1:${healthPort}/ready`, workers);
    expect(await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text()).toMatch(/^laurel_log_drain_passes_total\{outcome="ok"\} \d+$/m);

    // `loadtest`, from the image, against the image's own api (docs/load-testing.md): a tenant and
    // configuration of its own, removed after; exit 0 on its verdict.
    const load = run(image, ['loadtest', '--url', base, '--key', adminKey, '--rate', '20', '--duration', '1'], {});
    const loadExit = await new Promise((resolve) => load.child.once('exit', resolve));
    expect(loadExit, load.output()).toBe(0);
    expect(load.output()).toMatch(/^PASS$/m);
    expect(load.output()).toMatch(/^removed the run's tenant and configuration/m);

    for (const c of [workers.child, api.child]) {
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGTERM');
      await exited;
      expect(c.exitCode).toBe(0);
    }
  });
});
