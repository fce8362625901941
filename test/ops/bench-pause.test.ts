/**
 * The bench's pause of the variants not being measured (bench/pause.ts): a process and the
 * processes it started stop (state T in /proc) and go on again, on real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { pause, pausedCount, processTree, resumeAll } from '../../bench/pause.js';

/** The states of `pids` once they are all `wanted` or 2 s have passed (a signal arrives a moment later). */
async function states(pids: number[], wanted: (s: string) => boolean): Promise<string[]> {
  for (const until = Date.now() + 2000; ; await sleep(10)) {
    const now = pids.map(state);
    if (now.every(wanted) || Date.now() > until) return now;
  }
}

/** The state letter of /proc/<pid>/stat (R, S, T...). */
function state(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

describe.skipIf(process.platform !== 'linux')('the bench\'s pause of idle variants', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    resumeAll();
    for (const c of children) c.kill('SIGKILL');
  });

  it('stops a process and the ones it started, and lets them all go on', async () => {
    // A parent (a server) with a child of its own (an api process of `laurel start`).
    const parent = spawn(process.execPath, ['-e', `
      const { spawn } = require('node:child_process');
      const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      process.on('SIGTERM', () => { c.kill('SIGKILL'); process.exit(0); });
      console.log(c.pid);
      setInterval(() => {}, 1000);
    `], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(parent);
    const childPid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d) => resolve(String(d).trim()))));
    await sleep(100);
    const tree = processTree(parent.pid!);
    expect(tree).toEqual([parent.pid, childPid]);

    pause([parent.pid!]);
    expect(pausedCount()).toBe(2);
    expect(await states([parent.pid!, childPid], (x) => x === 'T')).toEqual(['T', 'T']);

    resumeAll();
    expect(pausedCount()).toBe(0);
    expect(await states([parent.pid!, childPid], (x) => x !== 'T')).not.toContain('T');
    parent.kill('SIGTERM');
    await new Promise((resolve) => parent.once('exit', resolve));
    // A process gone is skipped, not an error.
    expect(() => pause([parent.pid!])).not.toThrow();
    resumeAll();
  });
});
