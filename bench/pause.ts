/**
 * The variants not being measured, paused (SIGSTOP) for another's turn and let go on (SIGCONT)
 * after it (BENCH_PAUSE_IDLE=1; not the default). Every variant of a round runs from the round's
 * start to its end, and an idle one is not idle: its workers pass over the log's partitions every
 * second, its webhooks' and notifications' passes run, it snapshots. In the published run of fifteen
 * variants that background took a quarter and more of every variant's requests a second
 * (docs/performance.md). Paused, a variant runs almost only in its own turns, so the work its
 * timers keep for the wall clock (a snapshot every 5 minutes, a pass each second) all falls due in
 * them: measured in a full run, the variants without workers gained 3 to 5 points against the trivial
 * script and those with workers lost 6 (Postgres 13.7 µs an event against 3.6: the snapshots). A
 * turn lasts seconds, inside the locks of what is paused (BullMQ's 30 s, renewed once it goes on).
 */
import { childPids } from './cpu.js';

/** `pid` and every process under it that runs now (the api processes of `laurel start`). */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...childPids(all[i]!));
  return all;
}

const paused = new Set<number>();

/** Stops the process trees of `roots`; one gone meanwhile is skipped. */
export function pause(roots: number[]): void {
  for (const root of roots) {
    for (const pid of processTree(root)) {
      try {
        process.kill(pid, 'SIGSTOP');
        paused.add(pid);
      } catch { /* exited meanwhile */ }
    }
  }
}

/** Lets every process `pause` stopped go on. */
export function resumeAll(): void {
  for (const pid of paused) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch { /* exited meanwhile */ }
  }
  paused.clear();
}

/** How many processes are paused now. */
export function pausedCount(): number {
  return paused.size;
}
