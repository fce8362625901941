/**
 * The bound on the batch queues (docs/api.md, "Batch events"): a batch that would take the items
 * waiting past `maxWaiting` is refused with 503 `batch_backlog_full` and `Retry-After`, nothing
 * accepted, so that acceptance cannot outrun the workers until Redis runs out of memory. The
 * backlog is read from Redis (src/engine/batches/status.ts) at most once a second per process, so
 * the bound is approximate by about a second of acceptance across the api processes.
 */
import { fail } from '../../lib/errors.js';
import type { Context } from '../context.js';
import { batchBacklog, type BatchBacklog } from './status.js';

/** How long a read of the backlog is used before it is read again. */
const READ_EVERY_MS = 1000;
/** What a refused client is told to wait (s). */
const RETRY_AFTER_S = 5;

export class BacklogGate {
  private readonly deps: Pick<Context, 'redis' | 'keys'>;
  private readonly maxWaiting: number;
  private last: { at: number; backlog: Promise<BatchBacklog> } | null = null;
  /** Items this process accepted since its last read (added to what it read). */
  private acceptedSince = 0;

  constructor(deps: Pick<Context, 'redis' | 'keys'>, maxWaiting: number) {
    this.deps = deps;
    this.maxWaiting = maxWaiting;
  }

  /** Throws the 503 when `items` more would take the queues past the bound. */
  async admit(items: number): Promise<void> {
    const now = Date.now();
    if (this.last === null || now - this.last.at >= READ_EVERY_MS) {
      const backlog = batchBacklog(this.deps, now);
      this.last = { at: now, backlog };
      this.acceptedSince = 0;
      backlog.catch(() => { this.last = null; });
    }
    const { waiting } = await this.last.backlog;
    if (waiting + this.acceptedSince + items > this.maxWaiting) {
      const err = fail('batch_backlog_full', String(waiting + this.acceptedSince), String(this.maxWaiting), String(RETRY_AFTER_S));
      err.headers = { 'Retry-After': String(RETRY_AFTER_S) };
      throw err;
    }
    this.acceptedSince += items;
  }
}
