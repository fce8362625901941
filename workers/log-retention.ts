/**
 * Queue `log-retention` (src/engine/durability/log-retention.ts): every hour, while
 * LAUREL_LOG_RETENTION_DAYS is set, the archived event log's entries older than that deleted.
 * Without the setting the queue does not run, and a schedule an earlier start left is removed.
 */
import { pruneLog } from '../src/engine/durability/log-retention.js';
import { LOG_RETENTION_QUEUE } from '../src/engine/jobs.js';
import { every, OnePass, type QueueSpec } from './queue.js';

/** How often the entries past their retention are deleted. */
export const LOG_RETENTION_MS = 3_600_000;

export const logRetentionQueue: QueueSpec<{
  /** Deletes the archived entries past the retention now; answers how many rows. */
  pruneLogNow(): Promise<number>;
}> = {
  name: LOG_RETENTION_QUEUE,
  failure: 'log retention job failed; the next pass deletes what is left',
  schedules: () => [every(LOG_RETENTION_QUEUE, LOG_RETENTION_MS, 'prune')],
  runs: (settings) => settings.logRetentionDays !== null,
  start({ svc, pool, log, settings }) {
    const prune = new OnePass(() => pruneLog(svc, pool));
    return {
      async process() {
        const n = await prune.run();
        if (n > 0) log.info({ rows: n, days: settings.logRetentionDays }, 'archived event log past its retention deleted');
        return n;
      },
      testing: () => ({ pruneLogNow: () => prune.run() }),
    };
  },
};
