/**
 * Batch events (`POST /admin/v1/metrics/events`) as stored: each batch is cut into one chunk per
 * partition of the users its items concern, and each chunk is written, in one script of that
 * partition's slot (lua/batchAdd-3.lua), to the partition's batch queue (a stream the workers
 * consume) and to the partition's event log as a `batch` entry (which the log drain archives, so a
 * restore can queue again what Redis lost). The chunk is one JSON string, the same in both:
 *
 *   {"b": batch id, "t": tenant, "n": items in the whole batch, "x": when its progress is
 *    forgotten (ms), "ts": when it was accepted (ms), "i": [item, ...]}
 *   item: {"i": index in the batch, "m": metric id, "mk": metric key, "u": the user object as
 *          sent, "v": value, "a"?: event attributes, "k"?: idempotency key, "o"?: when it happened
 *          (ms: its occurredAt, src/domain/event-time.ts)}
 *
 * The log entry has the queue entry's id after the body (`q`): a restore queues again the chunks
 * the restored queue had not seen (src/engine/durability/batches-from-log.ts).
 *
 * An item applied is an ordinary event (its log entry names the item: `"b":"<batch id>:<index>"`).
 * An item sent without an idempotency key is applied with one of its own, `itemKey`, which no
 * client can send (a control character leads it: keys sent are printable ASCII), kept until the
 * chunk is acknowledged: a worker that dies part-way through a chunk leaves the items it applied
 * marked, and the chunk taken again applies only the others.
 */
import type { UpsertedUser } from './users.js';

/** Items in a batch, at most (Trophy's limit). */
export const MAX_BATCH_ITEMS = 1000;

/** How long a batch's progress can be read after it was accepted. */
export const BATCH_STATUS_MS = 24 * 3_600_000;

/** One item as queued. */
export interface QueuedItem {
  /** Its index in the batch as sent. */
  i: number;
  /** The metric's id, and its key (for the messages of an item whose metric is gone). */
  m: string;
  mk: string;
  u: UpsertedUser;
  v: number;
  a?: Record<string, string> | null;
  k?: string;
  /** When it happened (ms), as its `occurredAt` said; absent: when the workers apply it. */
  o?: number;
}

/** A batch's items of one partition, as queued and logged. */
export interface BatchChunk {
  /** The batch's id. */
  b: string;
  /** The tenant. */
  t: string;
  /** Items in the whole batch. */
  n: number;
  /** When the batch's progress is forgotten (ms). */
  x: number;
  /** When the batch was accepted (ms, the service's clock). */
  ts: number;
  i: QueuedItem[];
  /** 1: a history import's (src/domain/import.ts): its events are imported ones. */
  im?: 1;
}

/** The idempotency key an item sent without one is applied with (never one a client can send). */
export function itemKey(batchId: string, index: number): string {
  return `\u001fb:${batchId}:${index}`;
}

/** How an item's event names it in the log (`"b"`), and back. */
export function itemRef(batchId: string, index: number): string {
  return `${batchId}:${index}`;
}

export function refParts(ref: string): { batchId: string; index: number } | null {
  const colon = ref.lastIndexOf(':');
  if (colon <= 0) return null;
  const index = Number(ref.slice(colon + 1));
  return Number.isInteger(index) && index >= 0 ? { batchId: ref.slice(0, colon), index } : null;
}

/** A queue entry's (or a `batch` log entry's) chunk, parsed; null when it is not one. */
export function chunkOf(json: string): BatchChunk | null {
  try {
    const c = JSON.parse(json) as BatchChunk;
    return typeof c.b === 'string' && typeof c.t === 'string' && Array.isArray(c.i) ? c : null;
  } catch {
    return null;
  }
}
