/**
 * The bench's CPU profiles (bench/cpu-profile.ts, BENCH_CPU_PROFILE): a real node process run with
 * `--cpu-prof` that spends its time in one function, and that function at the top of its profile as
 * read, by its role; the frames summed over profiles, the idle time out of the shares.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { pidOf, readProfiles, selfTimes, summed, topFrames } from '../../bench/cpu-profile.js';

const run = promisify(execFile);

describe('bench: CPU profiles (bench/cpu-profile.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'laurel-cpu-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts the function a process spends its time in at the top of its profile, by the process\'s role', async () => {
    // A fixed amount of work, not a span of time: on a busy machine the process gets less of the
    // core, and the share of its own busy time stays the same.
    const busy = 'function spinHere(n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(x + i); return x; }\n' +
      'spinHere(5e7); console.log(process.pid);';
    const { stdout } = await run(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-e', busy]);
    const pid = Number(stdout.trim());
    const read = readProfiles(dir, new Map([[pid, 'busy one']]), 'other');
    expect([...read.keys()]).toEqual(['busy one']);
    const { busyMs, frames } = topFrames(summed(read.get('busy one')!));
    expect(busyMs).toBeGreaterThan(0);
    expect(frames[0].frame).toMatch(/^spinHere /);
    expect(frames[0].share).toBeGreaterThan(0.3);
    expect(frames.every((f) => f.frame !== '(idle)')).toBe(true);
  });

  it('gives each sample the time until the next, sums frames of one name, and leaves idle out of the shares', () => {
    const frame = (functionName: string, lineNumber = 0) => ({ functionName, url: 'file:///srv/laurel/dist/src/a.js', lineNumber });
    const profile = {
      nodes: [{ id: 1, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } }, { id: 2, callFrame: frame('work', 9) }, { id: 3, callFrame: frame('work', 9) }, { id: 4, callFrame: frame('') }],
      samples: [2, 3, 1, 4],
      timeDeltas: [0, 1000, 2000, 4000],
    };
    const times = selfTimes(profile);
    expect(Object.fromEntries(times)).toEqual({ 'work dist/src/a.js:10': 3, '(idle)': 4, '(anonymous) dist/src/a.js:1': 4 });
    expect(topFrames(new Map([['(idle)', 5], ['a', 3], ['b', 1]]))).toEqual({
      busyMs: 4, frames: [{ frame: 'a', ms: 3, share: 0.75 }, { frame: 'b', ms: 1, share: 0.25 }],
    });
    expect(pidOf('CPU.20261130.043512.4242.0.001.cpuprofile')).toBe(4242);
    expect(pidOf('notes.txt')).toBeNull();
  });
});
