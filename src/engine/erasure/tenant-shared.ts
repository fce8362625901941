/**
 * What a deleted tenant's erasure removes from Redis keys shared with other tenants, whose names
 * do not hold its uuid (src/engine/erasure/tenant-erase.ts removes the keys that do): the deliveries
 * about its users waiting in the webhook endpoints' queues, the live topics' holds of its topics
 * (and a notice that has the api processes drop the topics they hold), and its entries of the
 * partitions' logs (those the archive holds: the workers run this once it holds them all).
 * Answers the members removed and the keys changed.
 */
import { GROUP, unpackDelivery } from '../webhooks/queue.js';
import { globEscaped } from '../../redis/keys.js';
import { announce } from '../../redis/client.js';
import { ERASED_KIND } from '../../domain/erasure.js';
import { tenantOfBody } from '../../domain/tenant-erasure.js';
import { compareStreamIds } from '../../model/log.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

export interface SharedResult {
  members: number;
  touched: Set<string>;
}

/** Entries read per call. */
const AT_ONCE = 1000;

/** The stream's entries (up to `upTo`) that `theirs` picks, deleted; answers how many. */
async function dropEntries(deps: Deps, stream: string, upTo: string, theirs: (id: string, fields: string[]) => boolean, acked: boolean): Promise<number> {
  const { redis } = deps;
  let n = 0;
  let from = '-';
  for (;;) {
    const entries = (await redis.xrange(stream, from, upTo, 'COUNT', AT_ONCE)) as [string, string[]][];
    const ids = entries.filter(([id, f]) => theirs(id, f)).map(([id]) => id);
    if (ids.length > 0) {
      // A claim of a sender drops with the entry: its acknowledgement then finds nothing.
      if (acked) await redis.xack(stream, GROUP, ...ids).catch(() => 0);
      n += await redis.xdel(stream, ...ids);
    }
    if (entries.length < AT_ONCE) return n;
    from = `(${entries[entries.length - 1][0]}`;
  }
}

/**
 * The entries of the tenant after its `erased` entry (`logged[p]`) in each partition's log: no
 * request of the tenant is taken after its deletion, so each was written by a worker's pass that
 * read the tenant's data before its keys went (a finalisation's winners, a time award, a streak
 * lost). Taken with the rankings' lease held (src/engine/leaderboards/rankings-lease.ts), so that
 * no finalisation writes one meanwhile; the other passes find nothing of the tenant once its keys
 * are gone.
 */
export async function lateEntries(deps: Deps, tenant: string, logged: string[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (let p = 0; p < deps.keys.partitions; p++) {
    const after = logged[p];
    if (after === undefined) continue;
    let from = `(${after}`;
    for (;;) {
      const entries = (await deps.redis.xrange(deps.keys.partitionLog(p), from, '+', 'COUNT', AT_ONCE)) as [string, string[]][];
      const ids = entries.filter(([, f]) => f[0] !== ERASED_KIND && (f[1] ?? '').includes(tenant) && tenantOfBody(f[1]) === tenant).map(([id]) => id);
      if (ids.length > 0) out.set(p, [...(out.get(p) ?? []), ...ids]);
      if (entries.length < AT_ONCE) break;
      from = `(${entries[entries.length - 1][0]}`;
    }
  }
  return out;
}

/**
 * Removes the tenant from the shared keys; `logged` holds the id of its `erased` entry in each
 * partition's log: the log's entries of the tenant up to it go, and `late`, those after it.
 */
export async function eraseTenantShared(deps: Deps, tenant: string, logged: string[], late: Map<number, string[]>): Promise<SharedResult> {
  const { redis, keys } = deps;
  const r: SharedResult = { members: 0, touched: new Set() };
  const marker = JSON.stringify(tenant);
  for (const endpointId of await redis.smembers(keys.webhookQueues)) {
    const queue = keys.webhookQueue(endpointId).queue;
    const n = await dropEntries(deps, queue, '+', (id, f) => (f[1] ?? '').includes(marker) && unpackDelivery(id, f[1]).tenant === tenant, true);
    if (n > 0) { r.members += n; r.touched.add(queue); }
  }
  const holds = keys.live.wanted;
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(holds, cursor, 'MATCH', `*|${globEscaped(tenant)}|*`, 'COUNT', 1000);
    cursor = next;
    const theirs = flat.filter((m, i) => i % 2 === 0 && m.split('|')[1] === tenant);
    if (theirs.length > 0) { r.members += await redis.zrem(holds, ...theirs); r.touched.add(holds); }
  } while (cursor !== '0');
  // The api processes that still hold one of its topics (its users', boards', leagues') drop them,
  // and what they wrote of them since (src/engine/live/fanout.ts dropTenant): otherwise they
  // would say them wanted again until their sockets let them go.
  await announce(redis, keys.live.dropped, JSON.stringify({ t: tenant }));
  for (let p = 0; p < keys.partitions; p++) {
    const upTo = logged[p];
    if (upTo === undefined) continue;
    const log = keys.partitionLog(p);
    r.members += await dropEntries(deps, log, upTo, (id, f) => f[0] !== ERASED_KIND && compareStreamIds(id, upTo) <= 0
      && (f[1] ?? '').includes(marker) && tenantOfBody(f[1]) === tenant, false);
  }
  for (const [p, ids] of late) r.members += await redis.xdel(keys.partitionLog(p), ...ids);
  return r;
}
