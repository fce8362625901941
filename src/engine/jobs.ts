/**
 * Jobs the api hands to the workers (never on the event path). The BullMQ queue and its
 * connection are created on first use, so an api that never enqueues holds no extra connection.
 */
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { closeClient, createClient, type RedisClient } from '../redis/client.js';
import type { RedisOutage } from '../redis/outage.js';
import type { Keys } from '../redis/keys.js';
import type { Settings } from '../lib/settings.js';

/*
 * The workers' queues, every name in one place: the api enqueues into the first three, and each
 * file of workers/ declares the processor and the schedule of one (workers/queues.ts lists them).
 */
/** Achievements: the backfill of an achievement activated or changed. */
export const ACHIEVEMENTS_QUEUE = 'achievements';
/** Time triggers: the periodic accrual of due awards, and the backfill when a trigger appears. */
export const POINTS_TIME_QUEUE = 'points-time';
/** Anniversary achievements: the pass over the users whose anniversary may have come, and the backfill when they change. */
export const ANNIVERSARIES_QUEUE = 'anniversaries';
/** Leaderboards: the finalisation of runs every time zone has finished. */
export const LEADERBOARDS_QUEUE = 'leaderboards';
/** The configuration copied into Postgres at each change. */
export const CONFIG_COPY_QUEUE = 'config-copy';
/** The partitions' event logs archived into Postgres, and what the entries call for. */
export const LOG_DRAIN_QUEUE = 'log-drain';
/** The audit log copied into Postgres, and pruned. */
export const AUDIT_QUEUE = 'audit';
/** The archived event log pruned past its retention. */
export const LOG_RETENTION_QUEUE = 'log-retention';
/** Snapshots of Redis into Postgres. */
export const SNAPSHOT_QUEUE = 'snapshot';
/** Notifications due, sent. */
export const NOTIFICATIONS_QUEUE = 'notifications';
/** Webhook deliveries due, sent. */
export const WEBHOOKS_QUEUE = 'webhooks';

export interface BackfillJob {
  achievementId: string;
}

const JOB_OPTIONS = { removeOnComplete: 100, removeOnFail: 500, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };

export class Jobs {
  private readonly settings: Settings;
  private readonly keys: Keys;
  private readonly log: Logger;
  private readonly outage: RedisOutage | null;
  private connection: RedisClient | null = null;
  private readonly queues = new Map<string, Queue>();

  constructor(settings: Settings, keys: Keys, log: Logger, outage: RedisOutage | null = null) {
    this.settings = settings;
    this.outage = outage;
    this.keys = keys;
    this.log = log;
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      if (this.connection === null) {
        this.connection = createClient(this.settings, { maxRetriesPerRequest: null, connectionName: 'laurel-jobs' });
        if (this.outage) this.outage.watch(this.connection, 'laurel-jobs');
        else this.connection.on('error', (err) => this.log.warn({ err: err.message }, 'jobs redis connection error'));
      }
      queue = new Queue(name, { connection: this.connection, prefix: this.keys.queuePrefix });
      // Without a listener an error event is printed with its stack to stderr, once per retry.
      queue.on('error', (err) => {
        if (this.outage) this.outage.warn(this.log, err, `jobs queue ${name} error`);
        else this.log.warn({ err, queue: name }, 'jobs queue error');
      });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Completes an achievement for the users who already qualify; one job per configuration version. */
  async backfill(achievementId: string, version: number): Promise<void> {
    const job: BackfillJob = { achievementId };
    await this.queue(ACHIEVEMENTS_QUEUE).add('backfill', job, { ...JOB_OPTIONS, jobId: `backfill-${achievementId}-${version}` });
  }

  /** Puts every user in the due sets, so that a new or re-activated time trigger reaches them all. */
  async timeBackfill(version: number): Promise<void> {
    await this.queue(POINTS_TIME_QUEUE).add('backfill', {}, { ...JOB_OPTIONS, jobId: `time-backfill-${version}` });
  }

  /**
   * Puts every user in the anniversary due sets, so that an anniversary achievement activated or
   * changed reaches them all; one job per configuration version.
   */
  async anniversaryBackfill(version: number): Promise<void> {
    await this.queue(ANNIVERSARIES_QUEUE).add('backfill', {}, { ...JOB_OPTIONS, jobId: `anniversary-backfill-${version}` });
  }

  /** Does not wait on a Redis that is down: a queue's close would wait for it to come back. */
  async close(): Promise<void> {
    const down = this.connection !== null && this.connection.status !== 'ready';
    for (const queue of this.queues.values()) {
      if (down) void queue.disconnect().catch(() => undefined);
      else await queue.close();
    }
    if (this.connection) await closeClient(this.connection);
  }
}
