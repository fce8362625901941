/**
 * A user's erasure (docs/api.md, "Erasing a user"; docs/operations.md, "Answering an erasure or
 * access request"). Two steps:
 * - here, on the request: the erasure's record (pending, naming the user until it is done), then
 *   one script in the user's partition (lua/eraseUser-n.lua) that deletes every key of the user
 *   there that an event may write (those the configuration names), their members of the
 *   partition's sets, and appends an `erased` entry to the log. An event of the user runs wholly
 *   before that script or wholly after it: after, it makes a new user. Then the user leaves the
 *   rankings of the runs not final yet and the streak rankings (src/engine/erasure/open-runs.ts),
 *   so no finalisation names them. The request walks no keyspace: it costs what the user has and
 *   what the configuration holds;
 * - in the workers (src/engine/erasure/pass.ts), once the archive holds the `erased` entry:
 *   the user's keys in the partition of metrics and points systems deleted since they were
 *   written (src/engine/erasure/leftovers.ts), what lives outside the partition (boards,
 *   streak rankings, queues, live topics, keys scoped to the user) and in Postgres, then the
 *   record keeps its counts and forgets the user.
 * A process that dies between the record and the entry's id leaves the record to the workers
 * (src/engine/erasure/sweep.ts).
 * The `erased` entry and the archive's redacted lines name the erasure (`x`), never the user: a
 * random id, so nothing leads back to them.
 */
import { uuidv7 } from '../../domain/ids.js';
import { profileOf } from '../../domain/erasure.js';
import { leaveOpenRuns } from './open-runs.js';
import * as eraseUser from '../../redis/scripts/eraseUser.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock' | 'stats' | 'store'>;

/** An erasure as `GET /admin/v1/erasures/{erasureId}` shows it. */
export interface ErasureView {
  id: string;
  status: 'pending' | 'done';
  requestedAt: string;
  finishedAt: string | null;
  /** Redis keys deleted, and members or fields taken out of keys shared with others. */
  redisKeys: number;
  redisMembers: number;
  /** Archived log entries redacted, and other Postgres rows deleted or rewritten. */
  archivedEntries: number;
  postgresRows: number;
}

/**
 * The user's keys in their partition besides the user hash, and the points systems whose totals
 * may hold them: those of the metrics and systems the configuration holds, read from Redis rather
 * than this process's copy (a metric created a moment ago may have keys already). Keys of metrics
 * and systems deleted before are no event's any more: the workers' pass finds those
 * (src/engine/erasure/leftovers.ts), so that this costs what the configuration holds and not
 * what the installation does.
 */
async function ownKeys(deps: Deps, tenant: string, userId: string): Promise<{ own: string[]; systems: string[] }> {
  const { redis, keys } = deps;
  const u = keys.forUser(tenant, userId);
  const [metrics, systems] = await Promise.all([redis.hkeys(keys.config('metrics')), redis.hkeys(keys.config('points'))]);
  const own = [u.history, ...metrics.map((m) => keys.userMetric(u, m)), ...systems.map((s) => keys.userPoints(u, s).days)];
  return { own, systems };
}

/**
 * The erasure's script in the user's partition (lua/eraseUser-n.lua): the entry's id and the keys
 * deleted, or null when the user is not there (unknown, or erased already). The partition's user
 * set and completion counters moved: the caller tells `stats` (src/engine/achievements/completion-stats.ts).
 */
export async function eraseInPartition(
  deps: Deps, tenant: string, userId: string, id: string, at: number,
): Promise<{ entryId: string; deleted: number } | null> {
  const { own, systems } = await ownKeys(deps, tenant, userId);
  const entry = JSON.stringify({ t: tenant, ts: at, x: id });
  return eraseUser.run(deps.redis, deps.keys, deps.keys.forUser(tenant, userId), { tenant, userId, systems, own, entry });
}

/**
 * Starts erasing a user: answers the erasure's id, or null for an unknown user (nothing changed).
 */
export async function requestErasure(deps: Deps, tenant: string, userId: string): Promise<string | null> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  // The machine's time, not the service's clock: an id of a manual clock's time would move this
  // process's later ids (audit entries too) ahead of the other processes' (src/domain/ids.ts).
  const id = uuidv7();
  const u = keys.forUser(tenant, userId);
  const record = keys.erasure(id);
  // The record first: a process that dies after it leaves the workers what to finish
  // (src/engine/erasure/sweep.ts).
  // What else names the user (their email, name and device tokens), kept while pending: the pass
  // rewrites the strings of entries about them that hold it (the audit log's).
  const [email, name, dt] = await redis.hmget(u.user, 'email', 'name', 'dt');
  await redis.hset(record, {
    t: tenant, u: userId, p: String(u.partition), s: 'pending', at: String(now), n: JSON.stringify(profileOf(email, name, dt)),
  });
  await redis.sadd(keys.erasuresPending, id);
  const erased = await eraseInPartition(deps, tenant, userId, id, now);
  if (erased === null) {
    // Unknown; or this request was slow enough for the workers to run the script in its stead.
    if ((await redis.hexists(record, 'e')) === 1) return id;
    await redis.srem(keys.erasuresPending, id);
    await redis.del(record);
    return null;
  }
  await redis.hset(record, { e: erased.entryId, rk: String(erased.deleted) });
  await deps.stats.changed(tenant);
  await leaveOpenRuns(deps, tenant, userId, erased.entryId);
  return id;
}

/** An erasure's progress, or null when there is none of that id in the tenant. */
export async function readErasure(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, id: string): Promise<ErasureView | null> {
  const h = await deps.redis.hgetall(deps.keys.erasure(id));
  if (h.t !== tenant) return null;
  const n = (f: string) => Number(h[f] ?? 0);
  return {
    id,
    status: h.s === 'done' ? 'done' : 'pending',
    requestedAt: new Date(n('at')).toISOString(),
    finishedAt: h.done === undefined ? null : new Date(n('done')).toISOString(),
    redisKeys: n('rk'),
    redisMembers: n('rm'),
    archivedEntries: n('pa'),
    postgresRows: n('pr'),
  };
}
