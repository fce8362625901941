/**
 * Queue `audit` (src/engine/audit/drain.ts): every second, the audit log's entries queued in
 * Redis copied into Postgres (`drain`); every hour, those older than LAUREL_AUDIT_RETENTION_DAYS
 * deleted (`prune`).
 */
import { drainAudit, pruneAudit } from '../src/engine/audit/drain.js';
import { AUDIT_QUEUE } from '../src/engine/jobs.js';
import { every, OnePass, type QueueSpec } from './queue.js';

/** How often the entries past their retention are deleted. */
export const AUDIT_PRUNE_MS = 3_600_000;

export const auditQueue: QueueSpec<{
  /** Copies the queued entries into Postgres now; answers how many. */
  auditNow(): Promise<number>;
  /** Deletes the entries past their retention now; answers how many. */
  pruneAuditNow(): Promise<number>;
}> = {
  name: AUDIT_QUEUE,
  failure: 'audit job failed; the entries wait in Redis',
  schedules: () => [
    every(AUDIT_QUEUE, 1000, 'drain'),
    { id: `${AUDIT_QUEUE}-prune-every-${AUDIT_PRUNE_MS}ms`, every: AUDIT_PRUNE_MS, job: 'prune', opts: { removeOnComplete: 10, removeOnFail: 100 } },
  ],
  start({ svc, pool, log }) {
    const drain = new OnePass(() => drainAudit(svc, pool));
    const prune = new OnePass(() => pruneAudit(svc, pool));
    return {
      async process(job) {
        const n = job.name === 'prune' ? await prune.run() : await drain.run();
        if (n > 0) log.debug({ entries: n, job: job.name }, job.name === 'prune' ? 'audit entries past their retention deleted' : 'audit entries copied');
        return n;
      },
      testing: () => ({ auditNow: () => drain.run(), pruneAuditNow: () => prune.run() }),
    };
  },
};
