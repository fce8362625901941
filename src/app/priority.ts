/**
 * The workers yield the cores to the api (docs/operations.md, "Several api processes"): where they
 * run (the primary of `laurel start`, or `laurel workers`), their thread's scheduling priority is
 * lowered to `LAUREL_WORKERS_NICE` (a nice value, 0 to 19) once they have started, so that a burst
 * of their passes waits while an api process has requests to run. On Linux a nice value is a
 * thread's: the primary's other threads keep theirs, and the api processes it forks later (one
 * restarted) inherit the lowered one, which each api process raises back to 0 as it starts where
 * the system lets it (root, or CAP_SYS_NICE; else it says so and runs on).
 */
import { getPriority, setPriority } from 'node:os';
import type { Logger } from 'pino';

/** The calling thread's nice value set to `nice` (0: left as it is). */
export function lowerWorkersPriority(nice: number, log: Logger): void {
  if (nice === 0) return;
  try {
    setPriority(0, Math.max(getPriority(0), nice));
  } catch (err) {
    log.warn({ err, nice }, 'the workers\' priority could not be lowered (LAUREL_WORKERS_NICE); they run at the api\'s');
  }
}

/** An api process forked by a primary whose workers lowered its priority: back to 0 where allowed. */
export function apiPriority(log: Logger): void {
  if (getPriority(0) <= 0) return;
  try {
    setPriority(0, 0);
  } catch (err) {
    log.warn({ err, nice: getPriority(0) }, 'this api process runs at the nice value it inherited from the workers\' primary (raising it back needs root or CAP_SYS_NICE)');
  }
}
