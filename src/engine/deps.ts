import type { LoggedEvent } from '../model/log.js';
import type { RedisOutage } from '../redis/outage.js';
import type { Context } from './context.js';

/** A departure from the groups of the breakdown values an event's identification changed. */
export interface PendingDeparture {
  /** What the script answered: '["a:<key>","<old value>",...]'. */
  moved: string;
  tz: string;
  now: number;
}

/**
 * Leaderboard placements lost with Redis's connection, placed again once it answers
 * (src/engine/durability/outage-phase2.ts).
 */
export interface Placements {
  /** An event whose phase 2 failed on the connection, placed again once Redis answers. */
  add(e: LoggedEvent | null, seq: string, tenant: string, userId: string, leave?: PendingDeparture): void;
  /** The user leaves the groups an identification changed, now or once Redis answers again (false). */
  leave(
    tenant: string, userId: string, moved: string, current: Map<string, string> | null, tz: string, now: number, seq: string,
    e?: LoggedEvent | null,
  ): Promise<boolean>;
  close(): void;
}

/** What route modules and workers are given: the engine's context and this process's pending phase 2. */
export interface Deps extends Context {
  placements: Placements;
}

/** What the api and the workers share (src/engine/services.ts connect): the context, and the connections' end. */
export interface Services extends Deps {
  /** This process's account of Redis outages: every connection reports its failures there. */
  outage: RedisOutage;
  close(): Promise<void>;
}
