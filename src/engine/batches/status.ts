/**
 * What the batches' keys say: a batch's progress (`GET /admin/v1/metrics/events/{batchId}`), and
 * the work waiting in the partitions' batch queues (the `/metrics` gauges).
 */
import type { Context } from '../context.js';

export interface BatchProgress {
  accepted: number;
  /** Items applied (or found applied already: an idempotency key used before). */
  processed: number;
  /** Items that could not be applied, each with why. */
  failed: number;
  issues: { index: number; message: string }[];
}

/** A batch's progress; null when the tenant has no such batch (or it was forgotten). */
export async function batchProgress(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, batchId: string): Promise<BatchProgress | null> {
  const { redis, keys } = deps;
  const k = keys.batch(batchId);
  const results = (await redis.multi().hgetall(k.record).bitcount(k.done).exec()) ?? [];
  for (const [err] of results) if (err) throw err;
  const record = results[0][1] as Record<string, string>;
  if (record.t !== tenant) return null;
  const issues = Object.entries(record).filter(([field]) => field.startsWith('f:'))
    .map(([field, message]) => ({ index: Number(field.slice(2)), message })).sort((a, b) => a.index - b.index);
  return { accepted: Number(record.n), processed: results[1][1] as number, failed: issues.length, issues };
}

export interface BatchBacklog {
  /** Items accepted and not yet applied, in every partition's queue. */
  waiting: number;
  /** How long the oldest of them has waited (s); 0 when none waits. */
  lagSeconds: number;
}

/** The items waiting in the batch queues, and the age of the oldest (read from Redis: the whole installation's). */
export async function batchBacklog(deps: Pick<Context, 'redis' | 'keys'>, nowMs = Date.now()): Promise<BatchBacklog> {
  const { redis, keys } = deps;
  const partitions = (await redis.smembers(keys.batchWork)).map(Number).filter((p) => Number.isInteger(p) && p >= 0 && p < keys.partitions);
  const read = await Promise.all(partitions.map((p) => {
    const q = keys.partitionBatches(p);
    return Promise.all([redis.get(q.count), redis.xrange(q.queue, '-', '+', 'COUNT', 1)]);
  }));
  let waiting = 0;
  let oldest = Infinity;
  for (const [count, first] of read) {
    waiting += Math.max(0, Number(count ?? 0));
    if (first.length > 0) oldest = Math.min(oldest, Number(first[0][0].slice(0, first[0][0].indexOf('-'))));
  }
  return { waiting, lagSeconds: oldest === Infinity ? 0 : Math.max(0, (nowMs - oldest) / 1000) };
}
