/**
 * A graceful stop on SIGINT/SIGTERM: each closer in turn (the api's requests in flight first), then
 * exit with 0, or 1 when a closer failed (the others still run). Each closer is told the instant by
 * which the whole stop must be done, so that what it waits for fits in the process's limit. A
 * second signal (a second or more after the first: a terminal and `npm` deliver one Ctrl-C twice at
 * once) exits at once. Past the limit the process exits anyway; should its event loop be stuck
 * (nothing in laurel spins, but a library could), a thread of its own kills it a little later. An
 * api process started by a primary (src/app/processes.ts) also stops when its primary is gone (the
 * IPC channel closed), so none is left behind when the primary is killed; its primary, not a second
 * signal, cuts its stop short.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/** A step of the stop; `deadline` (ms since the epoch) is when the whole stop must be done. */
export type Closer = (deadline: number) => Promise<void>;

/**
 * Longest a process's shutdown may take: the requests in flight get up to 10 s (src/http/server.ts),
 * the workers' running jobs what is left of it (workers/stop.ts), the rest is bounded on its own
 * (closing a connection to a Redis that is down does not wait for it). Past this the process exits
 * anyway: what it acknowledged is in Redis already, and the workers' unfinished jobs and claims go
 * back to the queues.
 */
export const SHUTDOWN_LIMIT_MS = 15_000;

/** What the closers leave of the limit for the last log line and the exit. */
const EXIT_MARGIN_MS = 500;

/** A second signal this soon after the first is the same one delivered twice (a terminal's and npm's). */
const SAME_SIGNAL_MS = 1000;

/** How long after the limit the watchdog thread kills a process whose event loop never let it exit. */
const WATCHDOG_GRACE_MS = 2000;

export interface ShutdownOptions {
  /** Longest the closers may take (SHUTDOWN_LIMIT_MS). */
  limitMs?: number;
  /** Also stop when the parent's IPC channel closes (an api process of a primary). */
  withParent?: boolean;
}

/**
 * A thread that SIGKILLs this process `ms` from now unless it has exited: the limit's timer runs on
 * the event loop, which a stuck loop never reaches. Unref'd, so it keeps nothing alive.
 */
function armWatchdog(ms: number): void {
  const code = `setTimeout(() => process.kill(${process.pid}, 'SIGKILL'), ${ms});`;
  try {
    new Worker(code, { eval: true }).unref();
  } catch {
    // No thread (out of memory, say): the limit's timer alone.
  }
}

/**
 * Stops on a signal with `closers`. Given as a promise (a command still starting), a signal that
 * comes first stops what was started, in order, once the start is done: a process starting may
 * answer already (an api process's /ready) before it is wholly started. A start that failed stops
 * with 1.
 */
export function onSignals(log: Logger, closers: Closer[] | Promise<Closer[]>, opts: ShutdownOptions = {}): void {
  // A start that fails with no signal is the command's own error.
  Promise.resolve(closers).catch(() => undefined);
  const limitMs = opts.limitMs ?? SHUTDOWN_LIMIT_MS;
  let started = 0;
  const stop = (signal: string) => {
    if (started !== 0) {
      if (opts.withParent || signal === 'primary gone' || Date.now() - started < SAME_SIGNAL_MS) return;
      log.warn({ signal, ms: Date.now() - started }, 'laurel stopped at once (a second signal): what was running is left to the queues and leases');
      process.exit(1);
    }
    started = Date.now();
    const deadline = started + limitMs - EXIT_MARGIN_MS;
    log.info({ signal }, 'laurel shutting down');
    setTimeout(() => {
      log.warn({ ms: Date.now() - started }, 'laurel stopped before its connections were closed (shutdown took too long)');
      process.exit(0);
    }, limitMs).unref();
    armWatchdog(limitMs + WATCHDOG_GRACE_MS);
    (async () => {
      let failed = false;
      let started: Closer[] = [];
      try {
        started = await closers;
      } catch (err) {
        failed = true;
        log.error({ err }, 'shutdown: the start had failed');
      }
      for (const close of started) {
        try {
          await close(deadline);
        } catch (err) {
          failed = true;
          log.error({ err }, 'shutdown failed');
        }
      }
      return failed;
    })().then((failed) => {
      if (!failed) log.info({ ms: Date.now() - started }, 'laurel stopped');
      process.exit(failed ? 1 : 0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (opts.withParent) {
    process.on('disconnect', () => stop('primary gone'));
    // The primary may have gone while this process was starting.
    if (!process.connected) stop('primary gone');
  }
}
