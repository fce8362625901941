/**
 * Phase 2 of the events whose phase 1 ran but whose phase 2 (the leaderboard placements) failed
 * on Redis's connection: the request answered 503, and a retry with its Idempotency-Key is a
 * replay, which places nothing. Kept in the process and placed again from the user's state
 * (src/leaderboard-rank.ts replayEvent: absolute values, ordered by the event's log entry id, so
 * placing an event whose phase 2 did run after all changes nothing) once Redis answers again.
 * Bounded: past MAX_PENDING the oldest are forgotten (the user's next event places them); a
 * process that dies meanwhile leaves them to the log drainer (src/liveness.ts).
 */
import type { Deps } from './deps.js';
import { replayEvent, type LoggedEvent } from './leaderboard-rank.js';
import { retryDelay } from './redis/client.js';
import { isConnectionError } from './redis/outage.js';

export const MAX_PENDING = 10_000;

export class PendingPlacements {
  private readonly deps: Pick<Deps, 'redis' | 'keys' | 'store' | 'log'>;
  /** By the event's log entry id. */
  private readonly pending = new Map<string, LoggedEvent>();
  private timer: NodeJS.Timeout | null = null;
  private attempts = 0;
  private forgotten = 0;
  private closed = false;

  constructor(deps: Pick<Deps, 'redis' | 'keys' | 'store' | 'log'>) {
    this.deps = deps;
  }

  get size(): number {
    return this.pending.size;
  }

  /** An event whose phase 2 failed on the connection: placed again once Redis answers. */
  add(e: LoggedEvent, seq: string): void {
    if (this.closed) return;
    this.pending.set(seq, e);
    if (this.pending.size > MAX_PENDING) {
      this.pending.delete(this.pending.keys().next().value as string);
      this.forgotten++;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, retryDelay(++this.attempts));
    this.timer.unref();
  }

  /** Places what is pending; what fails on the connection again waits for the next attempt. */
  async flush(): Promise<void> {
    let placed = 0;
    for (const [seq, e] of [...this.pending]) {
      if (this.closed) return;
      try {
        await replayEvent(this.deps, e, seq);
        placed++;
      } catch (err) {
        if (isConnectionError(err)) {
          this.schedule();
          return;
        }
        this.deps.log.warn({ err, user: e.u }, 'leaderboard placement after a Redis outage failed');
      }
      this.pending.delete(seq);
    }
    this.attempts = 0;
    if (placed > 0 || this.forgotten > 0) {
      this.deps.log.info({ placed, forgotten: this.forgotten }, 'leaderboard placements lost with the Redis connection placed again');
      this.forgotten = 0;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
