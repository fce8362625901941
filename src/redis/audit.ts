/**
 * The audit log's queue (`<prefix>:{au}:q`, src/redis/keys.ts): a stream, one entry per Admin API
 * write answered (field `e`, the entry's JSON: src/domain/audit.ts), which the workers copy into
 * Postgres and then delete (src/engine/audit/drain.ts). Deleting by id lets two drainers take the
 * same entries: each copy is kept once (its id), and nothing is deleted that was not copied.
 */
import type { AuditEntry } from '../domain/audit.js';
import type { RedisClient } from './client.js';

/**
 * Queues entries in one round trip (a pipeline of XADDs, in order); answers, for each entry, the
 * error that kept Redis from taking it, or null.
 */
export async function queueAuditEntries(redis: RedisClient, queue: string, entries: AuditEntry[]): Promise<(Error | null)[]> {
  const pipeline = redis.pipeline();
  for (const entry of entries) pipeline.xadd(queue, '*', 'e', JSON.stringify(entry));
  const results = (await pipeline.exec()) ?? [];
  return entries.map((_, i) => (results[i] === undefined ? new Error('no answer') : results[i][0]));
}

/** The oldest `count` entries queued, with their stream ids (an entry that is not one is skipped). */
export async function queuedAuditEntries(redis: RedisClient, queue: string, count: number): Promise<{ streamIds: string[]; entries: AuditEntry[] }> {
  const read = (await redis.xrange(queue, '-', '+', 'COUNT', count)) as [string, string[]][];
  const entries: AuditEntry[] = [];
  for (const [, fields] of read) {
    const i = fields.indexOf('e');
    if (i >= 0 && i % 2 === 0) entries.push(JSON.parse(fields[i + 1]) as AuditEntry);
  }
  return { streamIds: read.map(([id]) => id), entries };
}

/** Deletes queued entries once Postgres holds them. */
export async function dropAuditEntries(redis: RedisClient, queue: string, streamIds: string[]): Promise<void> {
  if (streamIds.length > 0) await redis.xdel(queue, ...streamIds);
}

/** How many entries wait in the queue (the workers' gauge). */
export function auditQueueLength(redis: RedisClient, queue: string): Promise<number> {
  return redis.xlen(queue);
}
