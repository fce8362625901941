/**
 * What takes the partitions' event logs besides their archive: a consumer the log drainer
 * (src/engine/log-drain/drain.ts) hands every entry it archives. Each feature declares its own in a
 * file of src/engine/log-drain/ (the replay of dead processes' phase 2, the analytics, the
 * notifications, the webhooks), listed in src/engine/log-drain/consumers.ts; the drain knows none
 * of them by name. (The live publisher follows the logs itself, as they are appended:
 * docs/architecture.md says why.)
 *
 * A drain pass goes through each consumer's steps in the list's order, one step for every consumer
 * before the next step: every entry taken, then `plan` (reads and plans, awaited), then `write`
 * (what Redis holds before the archive's transaction: written twice, it changes nothing), then
 * `written`, then the archive's transaction with each consumer's `archive` step. An entry's
 * consumers are done with it exactly when the archive holds it: a pass that fails before is made
 * again, whole.
 */
import type pg from 'pg';
import type { Deps } from '../deps.js';
import { eventActivity, mayComplete, type EventActivity, type LogBody } from '../../model/log.js';
import type { ArchiveStep } from '../../postgres/log-archive.js';
import { isConnectionError } from '../../redis/outage.js';

/** What a drainer gives its consumers. */
export interface DrainContext {
  deps: Deps;
  pool: pg.Pool;
  /** The drainer's figures (src/engine/log-drain/drain.ts DrainStats) a consumer adds to. */
  stats: { backfilled: number };
  /** Called once a pass has put webhook deliveries in their queues (the workers' sender claims them at once). */
  queued: (() => void) | undefined;
}

/** A feature's consumer of the log, as listed in src/engine/log-drain/consumers.ts. */
export interface LogConsumer {
  name: string;
  /** This drainer's consumer, kept from one drain to the next. */
  start(ctx: DrainContext): DrainerConsumer;
}

export interface DrainerConsumer {
  /** Before a drain reads anything: false, the drain waits (its entries wait in Redis). */
  ready?(): Promise<boolean>;
  /** One drain, from its first pass to its end (`nowMs`: the drain's wall time). */
  drain(nowMs: number): Promise<ConsumerDrain>;
}

export interface ConsumerDrain {
  /** One pass over a group of partitions, made once its entries are read, from the configuration then. */
  pass(): ConsumerPass;
  /** Once the drain's passes are archived and the logs trimmed; `whole`: it read every partition's log to its end. */
  end?(whole: boolean): Promise<void>;
}

export interface ConsumerPass {
  /** The entries of `partition` follow. */
  partition?(partition: number): void;
  take(entry: LogEntry): void;
  /** Once every entry is taken: reads and plans, awaited in the consumers' order. */
  plan?(): Promise<void>;
  /** Then what Redis holds before the archive's transaction, in the consumers' order. */
  write?(): Promise<void>;
  /** Once every consumer's writes are made. */
  written?(): void;
  /** What the archive's transaction writes for this consumer; undefined: nothing. */
  archive?(): ArchiveStep | undefined;
}

/** One entry of a partition's log as a pass hands it to the consumers. */
export class LogEntry {
  private seen: EventActivity | null | undefined = undefined;
  private completing: boolean | undefined = undefined;

  constructor(
    readonly id: string,
    readonly kind: string,
    /** The stream entry's fields: the kind, the body, then the fields the script added. */
    readonly fields: string[],
    /** The body as archived: one JSON object, the added fields put back in. */
    readonly body: string,
    /** The body parsed (every entry is, once, for the analytics rollups). */
    readonly parsed: LogBody,
  ) {}

  /** An event's user, day and streak read without parsing (src/model/log.ts eventActivity), read once. */
  activity(): EventActivity | null {
    if (this.seen === undefined) this.seen = eventActivity(this.fields);
    return this.seen;
  }

  /** Whether the entry may carry achievement completions (src/model/log.ts mayComplete), looked at once. */
  completes(): boolean {
    this.completing ??= mayComplete(this.kind, this.fields);
    return this.completing;
  }
}

/**
 * What the entries call for (notifications' deliveries, webhooks' deliveries), planned by `make`.
 * Redis's connection failing fails the pass (it is made again, as the read before it would have
 * failed); any other fault is logged and plans nothing, rather than hold up the log's archive.
 */
export async function planned<T>(deps: Deps, what: string, count: number, make: () => Promise<T[]>): Promise<T[]> {
  if (count === 0) return [];
  try {
    return await make();
  } catch (err) {
    if (isConnectionError(err)) throw err;
    deps.log.error({ err, entries: count }, `${what} not planned for these entries`);
    return [];
  }
}
