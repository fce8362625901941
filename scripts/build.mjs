#!/usr/bin/env node
/**
 * laurel's build, only what is stale: `npm install` (prepare), `npm run build`, `npm start` and
 * `npm test` run it. Each part (the server's TypeScript, the dashboard) has its inputs; a hash of
 * their paths and contents is kept in dist/.build-stamps.json once the part is built, and a part
 * whose hash is that one and whose output is there is not built again: no compiler starts.
 *
 *   node scripts/build.mjs            builds the stale parts
 *   node scripts/build.mjs --force    builds every part
 *   node scripts/build.mjs --check    builds nothing; exit 1 when a part is stale
 *
 * Plain JavaScript, so that it runs before anything is compiled (its types: build.d.mts).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the stamps are kept, below the root. */
export const STAMPS = 'dist/.build-stamps.json';

const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** laurel's parts: what each reads, the file that shows it was built, and its commands. */
export const PARTS = [
  {
    name: 'server',
    inputs: ['package-lock.json', 'tsconfig.json', 'vitest.config.ts', 'src', 'workers', 'bench', 'test'],
    output: 'dist/src/cli.js',
    commands: [[NPX, 'tsc', '-p', 'tsconfig.json']],
  },
  {
    name: 'dashboard',
    // The server's answers' shapes, which the dashboard imports (dashboard/src/types.ts), and laurel's
    // live updates client (src/client/), which its Live page bundles.
    inputs: ['package-lock.json', 'dashboard', 'src/model/views.ts', 'src/model/entities.ts', 'src/client'],
    output: 'dist/dashboard/index.html',
    commands: [[NPX, 'tsc', '-p', 'dashboard/tsconfig.json'], [NPX, 'vite', 'build', '--config', 'dashboard/vite.config.ts']],
  },
];

/** Every file below `path` (itself when a file), sorted, relative to `root` with `/`. */
function filesOf(root, path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  const out = [];
  for (const name of readdirSync(full).sort()) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    out.push(...filesOf(root, `${path}/${name}`));
  }
  return out;
}

/** A hash of the inputs' paths and contents (not their times: a checkout rewrites those). */
export function inputHash(root, inputs) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap((i) => filesOf(root, i))) {
    hash.update(file.split(sep).join('/')).update('\0').update(readFileSync(join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

export function readStamps(root) {
  try {
    const stamps = JSON.parse(readFileSync(join(root, STAMPS), 'utf8'));
    return typeof stamps === 'object' && stamps !== null ? stamps : {};
  } catch {
    return {};
  }
}

function writeStamps(root, stamps) {
  mkdirSync(dirname(join(root, STAMPS)), { recursive: true });
  writeFileSync(join(root, STAMPS), `${JSON.stringify(stamps, null, 2)}\n`);
}

/** Why `part` needs building (a sentence), or null when it is current. */
export function staleness(root, part, stamps = readStamps(root)) {
  if (!existsSync(join(root, part.output))) return `${part.output} is missing`;
  if (stamps[part.name] === undefined) return 'never built by this script';
  if (stamps[part.name] !== inputHash(root, part.inputs)) return 'its sources changed';
  return null;
}

/**
 * Builds the stale parts of `root` (every part with `force`), each part's hash stamped once its
 * commands succeeded (taken before they ran: a source changed meanwhile leaves it stale). Answers
 * what it built and why; throws when a command fails.
 */
export function build({ root, parts = PARTS, force = false, log = (line) => process.stdout.write(`${line}\n`) }) {
  const stamps = readStamps(root);
  const built = [];
  for (const part of parts) {
    const why = force ? 'asked to' : staleness(root, part, stamps);
    if (why === null) {
      log(`build: ${part.name} is current`);
      continue;
    }
    log(`build: ${part.name} (${why})`);
    const hash = inputHash(root, part.inputs);
    for (const [command, ...args] of part.commands) {
      const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
      if (r.status !== 0) throw new Error(`build: ${part.name} failed: ${[command, ...args].join(' ')} exited with ${r.status ?? r.signal}`);
    }
    stamps[part.name] = hash;
    writeStamps(root, stamps);
    built.push({ part: part.name, why });
  }
  return built;
}

const main = resolve(fileURLToPath(import.meta.url)) === resolve(process.argv[1] ?? '');
if (main) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--force' && a !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`usage: node scripts/build.mjs [--force | --check] (not ${unknown.join(' ')})\n`);
    process.exit(2);
  }
  if (args.includes('--check')) {
    const stale = PARTS.flatMap((p) => {
      const why = staleness(root, p);
      return why === null ? [] : [`${p.name} (${why})`];
    });
    process.stdout.write(stale.length === 0 ? 'build: current\n' : `build: stale: ${stale.join(', ')}\n`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  try {
    build({ root, force: args.includes('--force') });
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
