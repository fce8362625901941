/**
 * One account per process of the times Postgres cannot serve the workers (away, refusing, busy:
 * src/postgres/pool.ts isPostgresUnavailable): the first failure logs one warning naming Postgres,
 * the failures after it are counted and logged at most once per `everyMs`, as Redis's outages are
 * (src/redis/outage.ts). The workers' jobs that need Postgres run again on their schedules; what
 * they would have written waits (the event log's entries in Redis).
 */
import type { Logger } from 'pino';

export class PostgresOutage {
  private readonly log: Logger;
  private readonly everyMs: number;
  private lastLine = 0;
  private unlogged = 0;
  /** Every failure counted here since the process started (`laurel_store_errors_total`). */
  failures = 0;

  constructor(log: Logger, everyMs = 30_000) {
    this.log = log;
    this.everyMs = everyMs;
  }

  /** A job that failed because Postgres could not serve it. */
  failed(err: unknown, what: string): void {
    const now = Date.now();
    this.failures++;
    this.unlogged++;
    if (now - this.lastLine < this.everyMs) return;
    this.log.warn({ err: err instanceof Error ? err.message : String(err), what, failures: this.unlogged },
      'Postgres is busy or cannot be reached; the workers retry on their schedules');
    this.lastLine = now;
    this.unlogged = 0;
  }
}
