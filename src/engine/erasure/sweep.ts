/**
 * The erasures a process left half done (src/engine/erasure/erase.ts writes the record, runs the
 * script in the user's partition, then stores the `erased` entry's id on the record): a pending
 * record older than SWEEP_AFTER_MS without the entry's id gets it here, so that the erasure pass
 * (src/engine/erasure/pass.ts) finishes it. The script ran if the partition's log, or its
 * archive once the log is trimmed, holds an `erased` entry naming the erasure; otherwise it runs
 * now. A user the script no longer finds (unknown to begin with, or erased by another erasure)
 * leaves nothing to this one: its record goes.
 */
import type pg from 'pg';
import { ERASED_KIND } from '../../domain/erasure.js';
import { archivedErasedEntry } from '../../postgres/erasure.js';
import type { Context } from '../context.js';
import { eraseInPartition } from './erase.js';
import { leaveOpenRuns } from './open-runs.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock' | 'store' | 'stats' | 'settings'>;

/** How old a record without its entry's id is before the workers take it over from its request. */
export const SWEEP_AFTER_MS = 60_000;

/** The id of the `erased` entry naming the erasure in the partition's log, or null. */
async function loggedEntry(deps: Deps, partition: number, id: string): Promise<string | null> {
  const log = deps.keys.partitionLog(partition);
  const needle = `"x":${JSON.stringify(id)}`;
  let from = '-';
  for (;;) {
    const entries = (await deps.redis.xrange(log, from, '+', 'COUNT', 1000)) as [string, string[]][];
    const found = entries.find(([, f]) => f[0] === ERASED_KIND && (f[1] ?? '').includes(needle));
    if (found !== undefined) return found[0];
    if (entries.length < 1000) return null;
    from = `(${entries[entries.length - 1][0]}`;
  }
}

async function entryOf(deps: Deps, pool: pg.Pool, partition: number, id: string): Promise<string | null> {
  return (await loggedEntry(deps, partition, id)) ?? archivedErasedEntry(pool, deps.settings.prefix, partition, id);
}

/**
 * Gives a pending record (`h`, read by the pass) left without its entry's id that id, running the
 * partition's script if it never ran; answers false while the record is too young for that.
 */
export async function sweepErasure(deps: Deps, pool: pg.Pool, id: string, h: Record<string, string>): Promise<boolean> {
  const { redis, keys } = deps;
  const at = Number(h.at);
  if (h.t === undefined || h.u === undefined || !(deps.clock.now() - at >= SWEEP_AFTER_MS)) return false;
  const record = keys.erasure(id);
  const partition = Number(h.p);
  const logged = await entryOf(deps, pool, partition, id);
  if (logged !== null) {
    await redis.hset(record, 'e', logged);
    await leaveOpenRuns(deps, h.t, h.u, logged);
    return true;
  }
  const erased = await eraseInPartition(deps, h.t, h.u, id, at);
  if (erased !== null) {
    await redis.hset(record, { e: erased.entryId, rk: String(erased.deleted) });
    await deps.stats.changed(h.t);
    await leaveOpenRuns(deps, h.t, h.u, erased.entryId);
    return true;
  }
  // Another pass (or the request, late) may have run the script since the look above.
  const late = await entryOf(deps, pool, partition, id);
  if (late !== null) {
    await redis.hset(record, 'e', late);
    return true;
  }
  await redis.del(record);
  await redis.srem(keys.erasuresPending, id);
  return true;
}
