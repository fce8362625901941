/**
 * The code a change is measured against (BENCH_BASELINE=<git revision>): that revision's tree,
 * exported with `git archive` into a directory of its own under the system's temporary directory
 * (laurel-baseline-<commit>), given this checkout's node_modules (a symbolic link) and built with
 * this checkout's TypeScript. The bench then runs each selected laurel variant twice, from this
 * checkout and from the baseline's (`<variant>@base`), in the same turns, and reports the ratio of
 * the two per round: a change's effect on the same minutes of the machine, instead of two runs'
 * figures that the shared machine moves by a tenth and more (bench/README.md).
 *
 * The export is kept and reused while its build is complete (`dist/src/cli.js`); the repository
 * itself is not touched (no worktree, no checkout).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Baseline {
  /** The revision as given. */
  revision: string;
  /** Its commit, 40 hex digits. */
  commit: string;
  /** Its tree, built, with a trailing slash (as variants.ts ROOT). */
  root: string;
  /** Set when the baseline's package-lock.json differs from this checkout's: its dependencies are not its own. */
  lockDiffers: boolean;
}

export class BaselineError extends Error {}

/** The commit `revision` names in the repository at `root`, or null. */
function commitOf(root: string, revision: string): string | null {
  const r = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`], { cwd: root, encoding: 'utf8' });
  if (r.error) throw new BaselineError(`BENCH_BASELINE needs git: ${r.error.message}`);
  const commit = r.stdout.trim();
  return r.status === 0 && /^[0-9a-f]{40}$/.test(commit) ? commit : null;
}

/** Exports and builds `revision` of the repository at `root` (once per commit), for the bench to run. */
export function prepareBaseline(root: string, revision: string): Baseline {
  if (!/^[\w./~^@{}-]+$/.test(revision)) throw new BaselineError(`BENCH_BASELINE: "${revision}" is not a git revision`);
  const commit = commitOf(root, revision);
  if (commit === null) throw new BaselineError(`BENCH_BASELINE: no commit "${revision}" in ${root}`);
  const dir = join(tmpdir(), `laurel-baseline-${commit}`);
  const built = join(dir, 'dist', 'src', 'cli.js');
  if (!existsSync(built)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', 'git archive --format=tar "$1" | tar -x -C "$2"', 'sh', commit, dir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], {
        cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      const out = String((err as { stdout?: unknown }).stdout ?? '').trim();
      rmSync(dir, { recursive: true, force: true });
      throw new BaselineError(`BENCH_BASELINE: ${revision} (${commit.slice(0, 12)}) does not build:\n${out}`);
    }
  }
  const lock = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
  return {
    revision, commit, root: `${dir}/`,
    lockDiffers: lock(join(root, 'package-lock.json')) !== lock(join(dir, 'package-lock.json')),
  };
}

/** The baseline twin's name of a variant. */
export const baselineName = (name: string): string => `${name}@base`;

/** The variant a baseline twin's name is of; null for a name that is not a twin's. */
export function twinOf(name: string): string | null {
  const suffix = baselineName('');
  return name.endsWith(suffix) ? name.slice(0, -suffix.length) : null;
}
