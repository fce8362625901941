/**
 * The queues of the deliveries the log calls for (docs/webhooks.md): one Redis stream per
 * endpoint, on a slot of its own (`<prefix>:{whq:<endpoint>}:q`, src/redis/keys.ts), beside the
 * log and with its persistence. The log drain puts each entry's deliveries in before it archives
 * the entry, once (lua/webhookEnqueue-2.lua: the queue's marks skip what it took already, so a
 * drain made again adds nothing); a sender claims them through the stream's consumer group (XREADGROUP:
 * each delivery to one process, and held in its pending list until taken out), attempts them,
 * records how they ended in Postgres in bulk (src/postgres/webhooks/sent.ts), and only then takes
 * them out (lua/webhookAck-1.lua). A claim expires: deliveries a process held for longer than the
 * lease without taking them out (it died) are claimed again by another (XAUTOCLAIM) and sent again
 * under the same `webhook-id`, unless their record shows they were attempted already. A process
 * that stops gives back what it did not start (its claims marked expired at once).
 */
import { sentTogether } from '../../redis/coalesce.js';
import { listIn } from '../../lib/lists.js';
import type { Context } from '../context.js';
import * as webhookAck from '../../redis/scripts/webhookAck.js';
import * as webhookEnqueue from '../../redis/scripts/webhookEnqueue.js';

/** The consumer group of every queue: the senders. */
export const GROUP = 's';
/** Deliveries per enqueue call at most (a call never splits one entry's deliveries). */
const PER_CALL = 400;

type Deps = Pick<Context, 'redis' | 'keys'>;

/** A delivery of the log for an endpoint's queue. */
export interface QueuedDelivery {
  endpointId: string;
  /** The partition of its log entry, and the entry's id (`<ms>-<seq>`). */
  partition: number;
  entryId: string;
  eventId: string;
  type: string;
  tenant: string;
  userId: string;
  /** When it was made (ms, the service's clock). */
  created: number;
  body: string;
}

/** A delivery as claimed from a queue: its stream id, and what was queued. */
export type ClaimedDelivery = Omit<QueuedDelivery, 'endpointId' | 'partition' | 'entryId'> & { streamId: string };

/**
 * A delivery as its queue holds it, one field (`d`): a JSON list of what names it (webhook-id,
 * type, tenant, user id, when made), a line break, the body. One field, not one each: every field
 * is a string Redis writes, answers and ioredis reads, for every delivery (JSON has no raw line
 * break, so the first one ends the list).
 */
export function packDelivery(d: Pick<QueuedDelivery, 'eventId' | 'type' | 'tenant' | 'userId' | 'created' | 'body'>): string {
  return `${JSON.stringify([d.eventId, d.type, d.tenant, d.userId, d.created])}\n${d.body}`;
}

/** A packed delivery (packDelivery) as claimed. */
export function unpackDelivery(streamId: string, packed: string): ClaimedDelivery {
  const nl = packed.indexOf('\n');
  const [eventId, type, tenant, userId, created] = JSON.parse(packed.slice(0, nl)) as [string, string, string, string, number];
  return { streamId, eventId, type, tenant, userId, created, body: packed.slice(nl + 1) };
}

/** An entry's stream id written so that comparing the strings compares the entries (as the marks hold them). */
export function sortableEntryId(id: string): string {
  const dash = id.indexOf('-');
  return id.slice(0, dash).padStart(16, '0') + id.slice(dash + 1).padStart(20, '0');
}

/**
 * Puts deliveries in their endpoints' queues, each entry's once (before the entries are archived:
 * a drain made again adds nothing); every endpoint's calls sent together. `deliveries` in log
 * order within each partition, an entry's together. Answers how many were queued.
 */
export async function enqueue(deps: Deps, deliveries: QueuedDelivery[]): Promise<number> {
  if (deliveries.length === 0) return 0;
  const { redis, keys } = deps;
  const byEndpoint = new Map<string, QueuedDelivery[]>();
  for (const d of deliveries) listIn(byEndpoint, d.endpointId).push(d);
  const calls: [string, (string | number)[]][] = [];
  for (const [endpointId, list] of byEndpoint) {
    let args: (string | number)[] = [GROUP];
    let previous = '';
    for (const d of list) {
      const entry = sortableEntryId(d.entryId);
      const at = `${d.partition}\t${entry}`;
      // A new call only between two entries: one entry's deliveries are judged against one mark.
      if (args.length > 3 * PER_CALL && at !== previous) {
        calls.push([endpointId, args]);
        args = [GROUP];
      }
      previous = at;
      args.push(d.partition, entry, packDelivery(d));
    }
    calls.push([endpointId, args]);
  }
  const counts = await Promise.all(sentTogether(redis, () => [
    redis.sadd(keys.webhookQueues, ...byEndpoint.keys()),
    ...calls.map(([endpointId, args]) => {
      const k = keys.webhookQueue(endpointId);
      return webhookEnqueue.run(redis, k, args);
    }),
  ]));
  return counts.slice(1).reduce((a, b) => a + b, 0);
}

type StreamEntry = [id: string, fields: string[] | null];

/** A claimed entry's delivery (null: deleted from the stream meanwhile). */
function claimedOf([streamId, fields]: StreamEntry): ClaimedDelivery | null {
  if (fields === null || fields[0] !== 'd') return null;
  return unpackDelivery(streamId, fields[1]);
}

const isNoGroup = (err: unknown) => err instanceof Error && err.message.startsWith('NOGROUP');

/** Claims up to `count` deliveries of each endpoint of `wanted` never claimed before, for `consumer`; all sent together. */
export async function claimNew(deps: Deps, consumer: string, wanted: Map<string, number>): Promise<Map<string, ClaimedDelivery[]>> {
  const { redis, keys } = deps;
  const endpoints = [...wanted].filter(([, n]) => n > 0);
  const replies = await Promise.all(sentTogether(redis, () => endpoints.map(([endpointId, n]) =>
    (redis.xreadgroup('GROUP', GROUP, consumer, 'COUNT', n, 'STREAMS', keys.webhookQueue(endpointId).queue, '>') as Promise<[string, StreamEntry[]][] | null>)
      .catch((err: unknown) => { if (isNoGroup(err)) return null; throw err; }))));
  const out = new Map<string, ClaimedDelivery[]>();
  endpoints.forEach(([endpointId], i) => {
    const entries = replies[i]?.[0]?.[1] ?? [];
    const claimed = entries.map(claimedOf).filter((d): d is ClaimedDelivery => d !== null);
    if (claimed.length > 0) out.set(endpointId, claimed);
  });
  return out;
}

/**
 * Claims for `consumer` up to `count` deliveries of an endpoint whose claim expired (held longer
 * than `leaseMs` without being taken out: their process died). Entries deleted meanwhile are
 * dropped from the pending list by XAUTOCLAIM itself.
 */
export async function claimExpired(deps: Deps, consumer: string, endpointId: string, leaseMs: number, count: number): Promise<ClaimedDelivery[]> {
  const { redis, keys } = deps;
  const queue = keys.webhookQueue(endpointId).queue;
  const out: ClaimedDelivery[] = [];
  let cursor = '0-0';
  // A bounded number of rounds: XAUTOCLAIM scans the pending list from the cursor, COUNT at a time.
  for (let round = 0; round < 10 && out.length < count; round++) {
    let reply: [string, StreamEntry[], string[]?];
    try {
      reply = await redis.call('XAUTOCLAIM', queue, GROUP, consumer, leaseMs, cursor, 'COUNT', count - out.length) as typeof reply;
    } catch (err) {
      if (isNoGroup(err)) return out;
      throw err;
    }
    for (const e of reply[1]) {
      const d = claimedOf(e);
      if (d !== null) out.push(d);
    }
    cursor = reply[0];
    if (cursor === '0-0') break;
  }
  return out;
}

/** Resets the idle time of claims still held (a process that holds them longer than the lease, Postgres away: not claimed again meanwhile). */
export async function holdClaims(deps: Deps, consumer: string, endpointId: string, streamIds: string[]): Promise<void> {
  if (streamIds.length === 0) return;
  await deps.redis.call('XCLAIM', deps.keys.webhookQueue(endpointId).queue, GROUP, consumer, 0, ...streamIds, 'JUSTID');
}

/** Gives claims back (a process stopping): marked idle past `leaseMs`, so the next claim of expired ones, by any process, takes them. */
export async function giveBack(deps: Deps, consumer: string, endpointId: string, streamIds: string[], leaseMs: number): Promise<void> {
  if (streamIds.length === 0) return;
  await deps.redis.call('XCLAIM', deps.keys.webhookQueue(endpointId).queue, GROUP, consumer, 0, ...streamIds, 'IDLE', leaseMs + 1, 'JUSTID');
}

/** Takes deliveries out of their endpoints' queues (their first attempt recorded); all sent together. */
export async function takeOut(deps: Deps, byEndpoint: Map<string, string[]>): Promise<void> {
  const { redis, keys } = deps;
  await Promise.all(sentTogether(redis, () => [...byEndpoint].filter(([, ids]) => ids.length > 0)
    .map(([endpointId, ids]) => webhookAck.run(redis, keys.webhookQueue(endpointId).queue, GROUP, ids))));
}

/** The deliveries waiting in each endpoint's queue, claimed or not (XLEN: taken-out ones are deleted). */
export async function queueLengths(deps: Deps, endpointIds: string[]): Promise<Map<string, number>> {
  const { redis, keys } = deps;
  const lengths = await Promise.all(sentTogether(redis, () => endpointIds.map((id) => redis.xlen(keys.webhookQueue(id).queue))));
  return new Map(endpointIds.map((id, i) => [id, lengths[i]]));
}

/** Drops the queues of endpoints deleted since (their deliveries with them: a deleted endpoint's deliveries are not listed). */
export async function dropDeletedQueues(deps: Deps, configured: ReadonlySet<string>): Promise<string[]> {
  const { redis, keys } = deps;
  const gone = (await redis.smembers(keys.webhookQueues)).filter((id) => !configured.has(id));
  for (const id of gone) {
    const k = keys.webhookQueue(id);
    await redis.del(k.queue, k.marks);
    await redis.srem(keys.webhookQueues, id);
  }
  return gone;
}

/**
 * After a restore (src/engine/durability/restore.ts): the queues came back from the snapshot, and
 * the deliveries of the entries replayed after it are queued again (`deliveries`); of both, those
 * whose first attempt Postgres records (sent since the snapshot, before Redis was lost) are left
 * out or taken out, so none is sent twice for being restored. Answers how many were queued.
 */
export async function queueAfterRestore(
  deps: Deps, recorded: (endpointId: string, ids: string[]) => Promise<Set<string>>, deliveries: QueuedDelivery[],
  deliveryId: (endpointId: string, eventId: string) => string,
): Promise<number> {
  const { redis, keys } = deps;
  const byEndpoint = new Map<string, QueuedDelivery[]>();
  for (const d of deliveries) listIn(byEndpoint, d.endpointId).push(d);
  const fresh: QueuedDelivery[] = [];
  for (const [endpointId, list] of byEndpoint) {
    const done = await recorded(endpointId, list.map((d) => deliveryId(endpointId, d.eventId)));
    fresh.push(...list.filter((d) => !done.has(deliveryId(endpointId, d.eventId))));
  }
  const queued = await enqueue(deps, fresh);
  for (const endpointId of await redis.smembers(keys.webhookQueues)) {
    const queue = keys.webhookQueue(endpointId).queue;
    let from = '-';
    for (;;) {
      const entries = await redis.xrange(queue, from, '+', 'COUNT', 500) as StreamEntry[];
      if (entries.length === 0) break;
      const claimed = entries.map(claimedOf).filter((d): d is ClaimedDelivery => d !== null);
      const done = await recorded(endpointId, claimed.map((d) => deliveryId(endpointId, d.eventId)));
      const gone = claimed.filter((d) => done.has(deliveryId(endpointId, d.eventId))).map((d) => d.streamId);
      if (gone.length > 0) await webhookAck.run(redis, queue, GROUP, gone);
      if (entries.length < 500) break;
      from = '(' + entries[entries.length - 1][0];
    }
  }
  return queued;
}

/** The claims of an endpoint's queue still held by a process (not run out, not given back: idle under `leaseMs`). */
export async function heldClaims(deps: Deps, endpointId: string, leaseMs: number): Promise<number> {
  const queue = deps.keys.webhookQueue(endpointId).queue;
  try {
    const [pending] = await deps.redis.call('XPENDING', queue, GROUP) as [number];
    if (pending === 0) return 0;
    const expired = await deps.redis.call('XPENDING', queue, GROUP, 'IDLE', leaseMs, '-', '+', pending) as unknown[];
    return pending - expired.length;
  } catch (err) {
    if (isNoGroup(err)) return 0;
    throw err;
  }
}
