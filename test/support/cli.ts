/**
 * The built command line (`dist/src/cli.js`, as `npm start` runs it) started as a child process,
 * for the tests of processes: what it writes is collected, and `killCliProcesses()` ends those of
 * the test file still running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { HANG_MS } from './hang.js';

export const CLI = 'dist/src/cli.js';

export interface CliRun {
  child: ChildProcess;
  /** What it wrote so far, stdout and stderr together. */
  output: () => string;
  /** The same, as its non-empty lines. */
  lines: () => string[];
  /**
   * The lines holding `text` once there are `count` of them (1 unless given). Each process of an
   * installation logs behind its own back, so a line may reach the output after what it
   * announces was seen elsewhere (a port that answers, another process's line): a test waits for
   * the line it reads. Fails, with the output, if the command exits first or HANG_MS pass.
   */
  saying: (text: string, count?: number) => Promise<string[]>;
  /** Its exit code (null if a signal ended it), once its output has all come in. */
  exited: Promise<number | null>;
}

const SAYING_MS = HANG_MS;

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
  const lines = () => out.split('\n').filter(Boolean);
  const waiting = new Set<() => void>();
  const took = (d: Buffer) => {
    out += d;
    for (const check of waiting) check();
  };
  child.stdout!.on('data', took);
  child.stderr!.on('data', took);
  // Once its output has all come in ('exit' may come before the last of it).
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const saying = (text: string, count = 1) => new Promise<string[]>((resolve, reject) => {
    const settle = (done: () => void) => {
      waiting.delete(check);
      clearTimeout(timer);
      done();
    };
    const check = () => {
      const found = lines().filter((l) => l.includes(text));
      if (found.length >= count) settle(() => resolve(found));
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`${count} line(s) saying "${text}" not written in ${SAYING_MS} ms: ${out}`))), SAYING_MS);
    waiting.add(check);
    void exited.then((code) => settle(() => reject(new Error(`exited (${code}) before ${count} line(s) said "${text}": ${out}`))));
    check();
  });
  return { child, output: () => out, lines, saying, exited };
}

/** SIGKILLs every process `runCli` started (in this test file) that is still running. */
export function killCliProcesses(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
