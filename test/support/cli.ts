/**
 * The built command line (`dist/src/cli.js`, as `npm start` runs it) started as a child process,
 * for the tests of processes: what it writes is collected, and `killCliProcesses()` ends those of
 * the test file still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CLI = 'dist/src/cli.js';

export interface CliRun {
  child: ChildProcess;
  /** What it wrote so far, stdout and stderr together. */
  output: () => string;
  /** The same, as its non-empty lines. */
  lines: () => string[];
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];

/**
 * Runs `laurel <args>` with this process's environment, HOST=127.0.0.1, LAUREL_API_PROCESSES=1 (one
 * api process, whatever the machine's cores, unless `env` asks for more) and then `env` over them.
 */
export function runCli(args: string[], env: Record<string, string>): CliRun {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does)`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, HOST: '127.0.0.1', LAUREL_API_PROCESSES: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, lines: () => out.split('\n').filter(Boolean), exited };
}

/** SIGKILLs every process `runCli` started (in this test file) that is still running. */
export function killCliProcesses(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
