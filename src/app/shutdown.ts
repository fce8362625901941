/**
 * A graceful stop on SIGINT/SIGTERM: each closer in turn (the api's requests in flight first), then
 * exit with 0, or 1 when a closer failed (the others still run). An api process started by a
 * primary (src/app/processes.ts) also stops when its primary is gone (the IPC channel closed), so
 * none is left behind when the primary is killed.
 */
import type { Logger } from 'pino';

export type Closer = () => Promise<void>;

/**
 * Longest a process's shutdown may take: the requests in flight get up to 10 s (src/http/server.ts),
 * the rest is bounded on its own (closing a connection to a Redis that is down does not wait for
 * it). Past this the process exits anyway: what it acknowledged is in Redis already.
 */
export const SHUTDOWN_LIMIT_MS = 15_000;

export interface ShutdownOptions {
  /** Longest the closers may take (SHUTDOWN_LIMIT_MS). */
  limitMs?: number;
  /** Also stop when the parent's IPC channel closes (an api process of a primary). */
  withParent?: boolean;
}

export function onSignals(log: Logger, closers: Closer[], opts: ShutdownOptions = {}): void {
  const limitMs = opts.limitMs ?? SHUTDOWN_LIMIT_MS;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    log.info({ signal }, 'laurel shutting down');
    setTimeout(() => {
      log.warn({ ms: Date.now() - started }, 'laurel stopped before its connections were closed (shutdown took too long)');
      process.exit(0);
    }, limitMs).unref();
    (async () => {
      let failed = false;
      for (const close of closers) {
        try {
          await close();
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
