/**
 * Queue `snapshot`: a snapshot of Redis into Postgres every LAUREL_SNAPSHOT_INTERVAL
 * (src/engine/durability/snapshot.ts): full the first time, then what changed since. One at a time per
 * installation, however many worker processes run (BullMQ runs a scheduled job once).
 */
import { takeSnapshot, type SnapshotResult } from '../src/engine/durability/snapshot.js';
import { SNAPSHOT_QUEUE } from '../src/engine/jobs.js';
import { every, type QueueSpec } from './queue.js';

export const snapshotQueue: QueueSpec<{
  /** Takes a snapshot now (full: of every user), beside the scheduled ones. */
  snapshotNow(full?: boolean): Promise<SnapshotResult | null>;
  /** Resolves once no scheduled snapshot waits or runs (the first is due as the workers start). */
  snapshotIdle(timeoutMs?: number): Promise<void>;
}> = {
  name: SNAPSHOT_QUEUE,
  failure: 'snapshot failed',
  schedules: (settings) => [every(SNAPSHOT_QUEUE, settings.snapshotIntervalMs, 'snapshot')],
  start: ({ svc, pool, log }) => ({
    async process() {
      const r = await takeSnapshot(svc, pool);
      if (r === null) log.debug('a new installation: nothing to snapshot yet');
      else log.info(r, 'snapshot taken');
      return r;
    },
    testing: (q) => ({ snapshotNow: (full = false) => takeSnapshot(svc, pool, full), snapshotIdle: (timeoutMs = 10_000) => q.idle(timeoutMs) }),
  }),
};
