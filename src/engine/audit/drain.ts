/**
 * The workers' part of the audit log (docs/api.md, "Audit log"): the entries the api processes
 * queued in Redis (src/engine/audit/record.ts) copied into Postgres and then deleted from the
 * queue, every second, each kept once however many workers copy it (src/redis/audit.ts); and the
 * entries older than LAUREL_AUDIT_RETENTION_DAYS deleted, every hour.
 */
import type pg from 'pg';
import { auditQueueLength, dropAuditEntries, queuedAuditEntries } from '../../redis/audit.js';
import { insertAuditEntries, pruneAuditEntries } from '../../postgres/audit.js';
import type { Context } from '../context.js';

/** Entries copied per statement. */
const BATCH = 500;
/** Batches a pass copies at most: the rest waits for the next pass. */
const PASS_BATCHES = 20;

const DAY_MS = 86_400_000;

/** Copies the queued entries into Postgres; answers how many. */
export async function drainAudit(deps: Pick<Context, 'redis' | 'keys' | 'settings'>, pool: pg.Pool): Promise<number> {
  const queue = deps.keys.auditQueue;
  let n = 0;
  for (let i = 0; i < PASS_BATCHES; i++) {
    const { streamIds, entries } = await queuedAuditEntries(deps.redis, queue, BATCH);
    if (streamIds.length === 0) break;
    await insertAuditEntries(pool, deps.settings.prefix, entries);
    await dropAuditEntries(deps.redis, queue, streamIds);
    n += entries.length;
    if (streamIds.length < BATCH) break;
  }
  return n;
}

/** How many entries wait in Redis to be copied (the workers' metrics). */
export function auditBacklog(deps: Pick<Context, 'redis' | 'keys'>): Promise<number> {
  return auditQueueLength(deps.redis, deps.keys.auditQueue);
}

/** Deletes the entries older than the retention (on laurel's clock); answers how many. */
export function pruneAudit(deps: Pick<Context, 'clock' | 'settings'>, pool: pg.Pool): Promise<number> {
  return pruneAuditEntries(pool, deps.settings.prefix, deps.clock.now() - deps.settings.auditRetentionDays * DAY_MS);
}
