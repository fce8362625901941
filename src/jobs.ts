/**
 * Jobs the api hands to the workers (never on the event path). The BullMQ queue and its
 * connection are created on first use, so an api that never enqueues holds no extra connection.
 */
import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { createClient, type RedisClient } from './redis/client.js';
import type { Keys } from './redis/keys.js';
import type { Settings } from './settings.js';

export const ACHIEVEMENTS_QUEUE = 'achievements';

export interface BackfillJob {
  achievementId: string;
}

export class Jobs {
  private readonly settings: Settings;
  private readonly keys: Keys;
  private readonly log: Logger;
  private connection: RedisClient | null = null;
  private queue: Queue | null = null;

  constructor(settings: Settings, keys: Keys, log: Logger) {
    this.settings = settings;
    this.keys = keys;
    this.log = log;
  }

  private achievements(): Queue {
    if (this.queue === null) {
      this.connection = createClient(this.settings, { maxRetriesPerRequest: null, connectionName: 'laurel-jobs' });
      this.connection.on('error', (err) => this.log.warn({ err: err.message }, 'jobs redis connection error'));
      this.queue = new Queue(ACHIEVEMENTS_QUEUE, { connection: this.connection, prefix: this.keys.queuePrefix });
    }
    return this.queue;
  }

  /** Completes an achievement for the users who already qualify; one job per configuration version. */
  async backfill(achievementId: string, version: number): Promise<void> {
    const job: BackfillJob = { achievementId };
    await this.achievements().add('backfill', job, {
      jobId: `backfill-${achievementId}-${version}`,
      removeOnComplete: 100,
      removeOnFail: 500,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
    });
  }

  async close(): Promise<void> {
    await this.queue?.close();
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }
}
