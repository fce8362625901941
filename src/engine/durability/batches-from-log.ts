/**
 * A restore's part for batch events (src/engine/durability/restore.ts, src/domain/batches.ts):
 * every chunk accepted and not yet acknowledged when Redis was lost is queued again.
 *
 * The snapshot took the partitions' batch queues after the users (src/engine/durability/snapshot.ts),
 * so a chunk the restored queue holds was not acknowledged when its users were read: the items of
 * it that were applied are in the users' state with their own keys, or in the log after the users'
 * positions, and the replay writes their keys again (restoreItemKey). Applied again, those change
 * nothing. A queue remembers the last id it gave (XADD ids only grow), so a `batch` entry of the
 * log whose queue id comes after it was accepted after the snapshot read the queue: queued again,
 * with its own id, whatever became of it since. Its users' state in the snapshot predates it, so
 * the items the replay applies again from the log are marked by their keys, and the items applied
 * that the archive never received (Redis lost them with the drain's lag) are applied once more.
 *
 * A batch's progress (lua/batchProgress-2.lua) is in the snapshot, read after the queues: a chunk
 * the restored queue does not hold had its progress noted, and one it holds notes it again when
 * applied. A chunk queued again here notes its own. The progress keys come back with their expiry,
 * which their record holds (a key restored from a dump has none).
 */
import { chunkOf, itemKey, refParts, type BatchChunk } from '../../domain/batches.js';
import { compareStreamIds } from '../../model/log.js';
import { scanKeys } from '../../redis/client.js';
import type { Context } from '../context.js';

/** An archived entry, as the restore reads it. */
export interface ArchivedEntry {
  id: string;
  partition: number;
  kind: string;
  body: string;
}

/** The chunks queued after a restore, by `<batch id>|<partition>`. */
export type QueuedChunks = Set<string>;

/** The last id a stream gave ('' when the key does not exist). */
async function lastQueueId(redis: Context['redis'], key: string): Promise<string> {
  try {
    const info = (await redis.call('XINFO', 'STREAM', key)) as unknown[];
    const i = info.indexOf('last-generated-id');
    return i >= 0 ? String(info[i + 1]) : '';
  } catch (err) {
    if (err instanceof Error && /no such key/i.test(err.message)) return '';
    throw err;
  }
}

/**
 * Queues again the chunks of the log's `batch` entries that the restored queues have not seen, sets
 * each queue's item count, and puts the partitions with chunks in the work set. Answers the chunks
 * queued now.
 */
export async function queueBatchesAgain(deps: Pick<Context, 'redis' | 'keys'>, entries: readonly ArchivedEntry[]): Promise<QueuedChunks> {
  const { redis, keys } = deps;
  const last = new Map<number, string>();
  for (const entry of entries) {
    if (entry.kind !== 'batch') continue;
    const body = JSON.parse(entry.body) as BatchChunk & { q?: string };
    const { q, ...chunk } = body;
    if (typeof q !== 'string' || chunkOf(JSON.stringify(chunk)) === null) continue;
    const queue = keys.partitionBatches(entry.partition).queue;
    let seen = last.get(entry.partition);
    if (seen === undefined) last.set(entry.partition, (seen = await lastQueueId(redis, queue)));
    if (compareStreamIds(q, seen) <= 0) continue;
    await redis.xadd(queue, q, 'c', JSON.stringify(chunk), 'n', String(chunk.i.length));
    last.set(entry.partition, q);
  }
  await expireProgress(deps);
  const queued: QueuedChunks = new Set();
  const busy: string[] = [];
  for (let p = 0; p < keys.partitions; p++) {
    const q = keys.partitionBatches(p);
    const chunks = await redis.xrange(q.queue, '-', '+');
    if (chunks.length === 0) continue;
    let items = 0;
    for (const [, fields] of chunks) {
      const chunk = chunkOf(fields[1] ?? '');
      if (chunk === null) continue;
      items += chunk.i.length;
      queued.add(`${chunk.b}|${p}`);
    }
    await redis.set(q.count, String(items));
    busy.push(String(p));
  }
  if (busy.length > 0) await redis.sadd(keys.batchWork, ...busy);
  return queued;
}

/** The batches' progress restored from the snapshot expires as it did: at its record's `x`. */
async function expireProgress(deps: Pick<Context, 'redis' | 'keys'>): Promise<void> {
  const { redis, keys } = deps;
  const now = Date.now();
  for await (const batch of scanKeys(redis, `${keys.prefix}:{b:*}`)) {
    await Promise.all(batch.map(async (record) => {
      const x = Number(await redis.hget(record, 'x'));
      const done = `${record}:d`;
      if (!(x > now)) await Promise.all([redis.del(record), redis.del(done)]);
      else await Promise.all([redis.pexpireat(record, x), redis.pexpireat(done, x)]);
    }));
  }
}

/**
 * The key of its own a replayed batch item's event is applied with: the item's, while its chunk is
 * queued (taking the chunk again then applies it once); none otherwise (nothing would delete it).
 */
export function restoreItemKey(queued: QueuedChunks, partition: number, ref: string | undefined, idempotencyKey: string | undefined): string | undefined {
  if (ref === undefined || idempotencyKey !== undefined) return undefined;
  const parts = refParts(ref);
  return parts !== null && queued.has(`${parts.batchId}|${partition}`) ? itemKey(parts.batchId, parts.index) : undefined;
}
