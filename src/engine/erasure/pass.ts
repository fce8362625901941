/**
 * The workers' part of the erasures (src/engine/erasure/erase.ts): each pending one, once the
 * archive holds its `erased` entry (so the archive, the analytics, the notifications and the
 * webhooks have taken every entry of the user before it), has their keys of deleted metrics and
 * points systems removed from their partition (src/engine/erasure/leftovers.ts), the user
 * removed outside it (src/engine/erasure/elsewhere.ts) and from Postgres (src/postgres/erasure.ts),
 * and from the audit log (the entries queued in Redis copied first: src/engine/audit/drain.ts),
 * the snapshots' copies of the keys it changed made again, the entries naming the user still in
 * the logs (kept there a while after the archive took them) deleted; then the record keeps its
 * counts and forgets the user. An erasure with batch items of the user accepted before it and
 * still queued waits for them to be dropped (lua/includes/fence.lua) before it is done. Every step may run again: an erasure a process left half done is
 * finished by the next pass, one left before its entry's id too (src/engine/erasure/sweep.ts).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ErasedProfile, ErasedUser } from '../../domain/erasure.js';
import { compareStreamIds, type LogBody } from '../../model/log.js';
import { LogArchive } from '../../postgres/log-archive.js';
import { eraseUserRows, redactArchive, snapshotKeysNaming } from '../../postgres/erasure.js';
import type { Context } from '../context.js';
import { eraseElsewhere, type ErasedSince } from './elsewhere.js';
import { eraseLeftovers } from './leftovers.js';
import { eraseBoosts } from './boosts.js';
import { sweepErasure } from './sweep.js';
import { copyAgain } from './snapshot-copies.js';
import { erasedTenantOfRecord } from './tenant.js';
import { finishTenantErasure } from './tenant-pass.js';
import { drainAudit } from '../audit/drain.js';
import { eraseFromAudit } from '../../postgres/audit.js';
import * as erasurePasses from '../../redis/scripts/erasurePasses.js';
import { withRankingsLease } from '../leaderboards/rankings-lease.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock' | 'settings' | 'store' | 'stats'>;

/**
 * How long a pass may take on one erasure: one joined longer ago stopped on its way (its process
 * died) and holds no other back from marking the erasure done.
 */
export const PASS_LIMIT_MS = 10 * 60_000;

export interface ErasurePassResult {
  /** Erasures finished by this pass, and those still waiting for the archive. */
  done: number;
  waiting: number;
}

/** The last id of a millisecond, and the last id there is. */
const lastOf = (ms: string) => `${ms}-18446744073709551615`;
const LAST_ID = lastOf('18446744073709551615');

/**
 * The entries of every partition's log that name the user: their own up to the erasure's id (a
 * new user of the id has those after it); others' that list them (a batch's items) up to the
 * erasure's millisecond, whatever their sequence (ids of one millisecond do not tell across
 * partitions which came first); and a finalised run's winners up to `finalisedTo`, the last id a
 * finalisation could have written from rankings that still held the user (src/engine/leaderboards/rankings-lease.ts).
 */
async function entriesNaming(deps: Deps, upTo: string, finalisedTo: string, who: ErasedUser): Promise<Map<number, string[]>> {
  const needle = JSON.stringify(who.userId);
  const out = new Map<number, string[]>();
  const lastOfMs = lastOf(upTo.split('-')[0]);
  const end = compareStreamIds(finalisedTo, lastOfMs) > 0 ? finalisedTo : lastOfMs;
  for (let p = 0; p < deps.keys.partitions; p++) {
    const log = deps.keys.partitionLog(p);
    let from = '-';
    for (;;) {
      const entries = (await deps.redis.xrange(log, from, end, 'COUNT', 1000)) as [string, string[]][];
      const theirs = entries.filter(([id, f]) => {
        if (!(f[1] ?? '').includes(needle)) return false;
        const body = JSON.parse(f[1]) as LogBody;
        if (body.t !== who.tenant) return false;
        if (body.u === who.userId) return compareStreamIds(id, upTo) <= 0;
        return compareStreamIds(id, f[0] === 'finalised' ? finalisedTo : lastOfMs) <= 0;
      }).map(([id]) => id);
      if (theirs.length > 0) out.set(p, [...(out.get(p) ?? []), ...theirs]);
      if (entries.length < 1000) break;
      from = `(${entries[entries.length - 1][0]}`;
    }
  }
  return out;
}

/** What lives outside the partition and in Postgres removed; answers what this pass removed. */
async function eraseOutside(
  deps: Deps, pool: pg.Pool, who: ErasedUser, since: ErasedSince, naming: Map<number, string[]>,
): Promise<erasurePasses.PassCounts> {
  const { redis, keys, settings } = deps;
  // The Admin API's writes that named the user (a batch's items, a freeze), those still queued too:
  // first, so that the counts below follow the archive's redaction closely.
  await drainAudit(deps, pool);
  const audited = await eraseFromAudit(pool, settings.prefix, who);
  const boosts = await eraseBoosts(deps, pool, who);
  const leftovers = await eraseLeftovers(deps, who.tenant, who.userId);
  const elsewhere = await eraseElsewhere(deps, who.tenant, who.userId, since);
  const lines = await redactArchive(pool, settings.prefix, who);
  let rows = audited + await eraseUserRows(pool, settings.prefix, who);
  const copies = new Set([...leftovers.touched, ...elsewhere.touched, ...(await snapshotKeysNaming(pool, settings.prefix, who.userId))]);
  rows += await copyAgain(deps, pool, copies, who.userId);
  let logged = 0;
  for (const [p, ids] of naming) logged += await redis.xdel(keys.partitionLog(p), ...ids);
  return { redisKeys: leftovers.keys + elsewhere.keys, redisMembers: leftovers.members + elsewhere.members + logged + boosts, archivedEntries: lines, postgresRows: rows };
}

/**
 * Whether no batch chunk accepted before the user's erasure is left in their partition's queue:
 * then their fence (when there was one) is deleted. False while one is left.
 */
async function fenceLifted(deps: Deps, partition: number, who: ErasedUser): Promise<boolean> {
  const { redis, keys } = deps;
  const fences = keys.partitionFences(partition);
  const userKey = keys.forUser(who.tenant, who.userId).user;
  const fence = await redis.hget(fences, userKey);
  if (fence === null) return true;
  const left = await redis.xrange(keys.partitionBatches(partition).queue, '-', fence, 'COUNT', 1);
  if (left.length > 0) return false;
  await redis.hdel(fences, userKey);
  return true;
}

/** Finishes one erasure if the archive holds its entry; true when done (false while another pass is on it). */
async function finish(deps: Deps, pool: pg.Pool, id: string, cursors: Map<number, string>): Promise<boolean> {
  const { redis, keys } = deps;
  const record = keys.erasure(id);
  const h = await redis.hgetall(record);
  if (h.s === 'done' || h.t === undefined) return true;
  // A deleted tenant's (src/engine/erasure/tenant-pass.ts).
  if (erasedTenantOfRecord(h) !== undefined) return finishTenantErasure(deps, pool, id, h, cursors, PASS_LIMIT_MS);
  // Not yet through the script: the request is under way, or died (then taken over once old).
  if (h.e === undefined && (await sweepErasure(deps, pool, id, h))) return finish(deps, pool, id, cursors);
  // Not yet archived.
  if (h.e === undefined || h.u === undefined) return false;
  const partition = Number(h.p);
  const archived = (p: number, entryId: string) => {
    const cursor = cursors.get(p);
    return cursor !== undefined && compareStreamIds(cursor, entryId) >= 0;
  };
  if (!archived(partition, h.e)) return false;
  const who: ErasedUser = { tenant: h.t, userId: h.u, erasureId: id, profile: h.n === undefined ? undefined : JSON.parse(h.n) as ErasedProfile };
  // Batch items accepted before the erasure, still queued, are dropped as they come (the user's
  // fence, lua/includes/fence.lua): done only once none is left, when the fence goes.
  if (!(await fenceLifted(deps, partition, who))) return false;
  // The user is taken off the rankings and the finished runs' winners holding the rankings'
  // lease: no finalisation reads the rankings meanwhile, so those it wrote before are in the logs
  // now, and those after read rankings without the user. Another pass holding it: a later pass.
  const seq = h.e;
  const finished = await withRankingsLease(deps, async () => {
    // The winners a finalisation wrote up to the end of the first pass that took the user off
    // (`z`, Redis's time then); the logs' end while no pass has (no finalisation runs while this
    // one holds the lease).
    const finalisedTo = h.z === undefined ? LAST_ID : lastOf(h.z);
    // The archive rewrites what it holds: every entry naming the user must be in it first.
    const naming = await entriesNaming(deps, seq, finalisedTo, who);
    for (const [p, ids] of naming) if (!archived(p, ids[ids.length - 1])) return false;
    // Two passes (two worker processes) may finish one erasure together, each counting what it
    // removed: each joins the record first, and the last to leave marks it done.
    const pass = randomUUID();
    if (!(await erasurePasses.join(redis, record, pass, deps.clock.now()))) return true;
    let counts: erasurePasses.PassCounts;
    try {
      counts = await eraseOutside(deps, pool, who, { seq, at: Number(h.at) }, naming);
    } catch (err) {
      // Left at once, so that the next pass is not held back until this one counts as stopped.
      await redis.hdel(record, `w:${pass}`).catch(() => 0);
      throw err;
    }
    // The user is off the rankings now (and no finalisation wrote since this pass took the lease):
    // later passes look no further for their winners than here.
    if (h.z === undefined) {
      const [s, us] = await redis.time();
      await redis.hsetnx(record, 'z', String(Number(s) * 1000 + Math.floor(Number(us) / 1000)));
    }
    return erasurePasses.leave(redis, record, pass, deps.clock.now(), PASS_LIMIT_MS, counts);
  });
  return finished === true;
}

/** One pass over the pending erasures. */
export async function runErasures(deps: Deps, pool: pg.Pool): Promise<ErasurePassResult> {
  const { redis, keys, settings } = deps;
  const pending = await redis.smembers(keys.erasuresPending);
  const result: ErasurePassResult = { done: 0, waiting: 0 };
  if (pending.length === 0) return result;
  const cursors = await new LogArchive(pool, settings.prefix).cursors();
  for (const id of pending) {
    if (await finish(deps, pool, id, cursors)) {
      await redis.srem(keys.erasuresPending, id);
      result.done++;
    } else result.waiting++;
  }
  return result;
}
