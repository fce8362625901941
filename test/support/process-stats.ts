/**
 * What a process of the tests' own uses, read from Linux's /proc: its CPU time (schedstat, in
 * nanoseconds), its resident memory now and at its peak (VmRSS, VmHWM), and the processes it
 * started (an api primary's api processes). The suites that check a server stays healthy run it as
 * `laurel api` (test/support/api-processes.ts) and read its api processes here: a request that
 * sends one into a loop shows as CPU used while idle and memory that grows, and `killAll` ends
 * such a process, which SIGTERM would not reach.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessSample {
  pid: number;
  /** CPU time used so far, ms. */
  cpuMs: number;
  /** Resident memory now, MiB. */
  rssMiB: number;
  /** The most resident memory it ever had, MiB. */
  peakMiB: number;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The processes `pid` started, and theirs, by their parent pids in /proc/<pid>/stat. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last ')'.
    if (stat !== null) parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, of] of parent) {
      if (of === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/** What `pid` uses now; null once it has exited. */
export function sample(pid: number): ProcessSample | null {
  const sched = read(`/proc/${pid}/schedstat`);
  const status = read(`/proc/${pid}/status`);
  if (sched === null || status === null) return null;
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { pid, cpuMs: Number(sched.split(' ')[0]) / 1e6, rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

/** Whether `pid` still runs (a zombie does not). */
export function running(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/**
 * The CPU each of `pids` used over the next `ms` (ms of CPU), with its memory after: a process at
 * rest uses a few ms a second, one stuck in a loop about `ms`.
 */
export async function idleUse(pids: number[], ms: number): Promise<{ pid: number; cpuMs: number; after: ProcessSample | null }[]> {
  const before = pids.map(sample);
  await new Promise((r) => setTimeout(r, ms));
  return pids.map((pid, i) => {
    const after = sample(pid);
    return { pid, cpuMs: after === null || before[i] === null ? 0 : after.cpuMs - before[i]!.cpuMs, after };
  });
}

/** SIGKILLs each of `pids` still running: processes the test started (a primary's api processes). */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
