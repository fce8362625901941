/**
 * A batch of metric events accepted (docs/api.md, "Batch events"; src/domain/batches.ts): its items cut
 * into one chunk per partition of their users, in their order, each chunk written to the
 * partition's batch queue and event log in one script of the partition's slot
 * (lua/batchAdd-3.lua); the batch's record in its own slot, and the partitions in the work set the
 * workers watch. Answered once every write is done: the items are then as durable as an event's
 * log entry. On one Redis the writes are one transaction (all or none); on a Cluster each
 * partition's chunk is written on its own node, so a write that fails (503) may leave some chunks
 * accepted: items sent again with their idempotency keys are applied once.
 */
import { uuidv7 } from '../../domain/ids.js';
import { BATCH_STATUS_MS, type BatchChunk, type QueuedItem } from '../../domain/batches.js';
import type { Context } from '../context.js';
import * as batchAdd from '../../redis/scripts/batchAdd.js';

export interface AcceptedBatch {
  batchId: string;
  accepted: number;
}

export async function acceptBatch(
  deps: Pick<Context, 'redis' | 'keys' | 'clock'>, tenant: string, items: readonly QueuedItem[],
  /** A history import's items (src/domain/import.ts): their events are imported ones. */
  imported = false,
  /** Its id when it is given (an import's, noted first); else a new one. */
  batchId = uuidv7(Date.now()),
): Promise<AcceptedBatch> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  // The progress expires on the wall clock (a manual clock may be anywhere).
  const expires = Date.now() + BATCH_STATUS_MS;
  const byPartition = new Map<number, QueuedItem[]>();
  for (const item of items) {
    const p = keys.partitionOf(tenant, item.u.id);
    let list = byPartition.get(p);
    if (list === undefined) byPartition.set(p, (list = []));
    list.push(item);
  }
  const record = keys.batch(batchId).record;
  const chunks = [...byPartition].map(([p, list]) => {
    const chunk: BatchChunk = { b: batchId, t: tenant, n: items.length, x: expires, ts: now, i: list };
    if (imported) chunk.im = 1;
    return { p, json: JSON.stringify(chunk), n: list.length };
  });
  const partitions = chunks.map((c) => String(c.p));
  if (!redis.isCluster) {
    const multi = redis.multi();
    multi.hset(record, 'n', String(items.length), 't', tenant, 'at', String(now), 'x', String(expires)).pexpireat(record, expires);
    for (const c of chunks) {
      const q = keys.partitionBatches(c.p);
      batchAdd.queue(multi, { ...q, log: keys.partitionLog(c.p) }, c.json, c.n);
    }
    multi.sadd(keys.batchWork, ...partitions);
    for (const [err] of (await multi.exec()) ?? []) if (err) throw err;
  } else {
    await redis.multi().hset(record, 'n', String(items.length), 't', tenant, 'at', String(now), 'x', String(expires)).pexpireat(record, expires).exec()
      .then((r) => { for (const [err] of r ?? []) if (err) throw err; });
    await Promise.all(chunks.map((c) => {
      const q = keys.partitionBatches(c.p);
      return batchAdd.run(redis, { ...q, log: keys.partitionLog(c.p) }, c.json, c.n);
    }));
    // After the chunks: a worker that finds a partition in the set finds its chunk.
    await redis.sadd(keys.batchWork, ...partitions);
  }
  return { batchId, accepted: items.length };
}
