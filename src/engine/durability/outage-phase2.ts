/**
 * Phase 2 of the events whose phase 1 ran but whose phase 2 (the user's departure from old
 * breakdown groups, the leaderboard placements) failed on Redis's connection: the request answers
 * 201 with no leaderboards (a 503 would have a client without an Idempotency-Key send it again, and
 * a retry with its key is a replay, which places nothing). Kept in the process: the departure made
 * again (src/engine/leaderboards/leave-groups.ts, ordered by the same log entry id), then placed
 * again from the user's state (src/engine/durability/replay-phase2.ts replayEvent: absolute values,
 * ordered by the event's log entry id, so placing an event whose phase 2 did run after all changes
 * nothing) once Redis answers again. Bounded: past MAX_PENDING the oldest are forgotten (the user's
 * next event places them); a process that dies meanwhile leaves them to the log drainer
 * (src/engine/durability/liveness.ts).
 */
import type { Context } from '../context.js';
import type { PendingDeparture, Placements } from '../deps.js';
import { leaveGroups } from '../leaderboards/leave-groups.js';
import { retryDelay } from '../../redis/client.js';
import { isConnectionError } from '../../redis/outage.js';
import type { LoggedEvent } from '../../model/log.js';
import { replayEvent } from './replay-phase2.js';

export const MAX_PENDING = 10_000;

interface Pending {
  /** The event's placements (null: it ranks on no board). */
  e: LoggedEvent | null;
  tenant: string;
  userId: string;
  leave?: PendingDeparture;
}

export class PendingPlacements implements Placements {
  private readonly deps: Pick<Context, 'redis' | 'keys' | 'store' | 'log'>;
  /** By the event's log entry id. */
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;
  private attempts = 0;
  private forgotten = 0;
  private closed = false;

  constructor(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'log'>) {
    this.deps = deps;
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * An event whose phase 2 failed on the connection: placed again once Redis answers (after the
   * user's departure from their old groups, when its identification moved them).
   */
  add(e: LoggedEvent | null, seq: string, tenant: string, userId: string, leave?: PendingDeparture): void {
    if (this.closed) return;
    this.pending.set(seq, { e, tenant, userId, leave });
    if (this.pending.size > MAX_PENDING) {
      this.pending.delete(this.pending.keys().next().value as string);
      this.forgotten++;
    }
    this.schedule();
  }

  /**
   * The user leaves the groups of the breakdown values an identification changed (leaveGroups);
   * when that fails on Redis's connection, once it answers again, followed by the placements of
   * `e` (the event that made the change, when it ranks). False when it was put off.
   */
  async leave(
    tenant: string, userId: string, moved: string, current: Map<string, string> | null, tz: string, now: number, seq: string,
    e: LoggedEvent | null = null,
  ): Promise<boolean> {
    try {
      await leaveGroups(this.deps, tenant, userId, moved, current, tz, now, seq);
      return true;
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      this.add(e, seq, tenant, userId, { moved, tz, now });
      return false;
    }
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
    for (const [seq, { e, tenant, userId, leave }] of [...this.pending]) {
      if (this.closed) return;
      try {
        if (leave !== undefined) {
          await leaveGroups(this.deps, tenant, userId, leave.moved, null, leave.tz, leave.now, seq);
          // Made: a later failure of the placements does not repeat it.
          this.pending.set(seq, { e, tenant, userId });
        }
        if (e !== null) await replayEvent(this.deps, e, seq);
        placed++;
      } catch (err) {
        if (isConnectionError(err)) {
          this.schedule();
          return;
        }
        this.deps.log.warn({ err, user: userId }, 'leaderboard placement after a Redis outage failed');
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
