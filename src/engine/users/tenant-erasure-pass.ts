/**
 * The workers' part of a deleted tenant's erasure (src/engine/users/tenant-erasure.ts), run by the
 * erasure pass (src/engine/users/erasure-pass.ts) for a record that names a tenant (`d`):
 * - a record without its log entries' ids (`e`) a minute old was left by a process that died:
 *   dropped when the tenant is still there (its deletion failed), else the entries are appended now;
 * - once the archive holds every partition's `erased` entry of the tenant (so each entry of the
 *   tenant before it), the tenant's keys are removed from Redis (src/engine/users/tenant-erase.ts:
 *   a walk of the keyspace), and it is removed from the keys shared with others and the logs
 *   (src/engine/users/tenant-shared.ts), and in bulk from
 *   Postgres (src/postgres/tenant-erasure.ts), the audit log's queue copied first; the snapshots'
 *   copies of the shared keys it changed are made again. Passes join and leave the record as for
 *   a user's erasure (src/redis/scripts/erasurePasses.ts); every step may run again.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { compareStreamIds } from '../../model/log.js';
import {
  eraseTenantFromAudit, eraseTenantRows, eraseTenantSnapshotKeys, redactTenantArchive, snapshotKeysHolding,
} from '../../postgres/tenant-erasure.js';
import * as erasurePasses from '../../redis/scripts/erasurePasses.js';
import { drainAudit } from '../audit/drain.js';
import type { Context } from '../context.js';
import { SWEEP_AFTER_MS } from './erasure-sweep.js';
import { copyAgain } from './snapshot-copies.js';
import { eraseTenantData } from './tenant-erase.js';
import { logTenantErasure } from './tenant-erasure.js';
import { eraseTenantShared } from './tenant-shared.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock' | 'settings' | 'store'>;

/** Everything of the tenant outside the keys naming it, and in Postgres; answers what this pass removed. */
async function eraseOutside(deps: Deps, pool: pg.Pool, id: string, tenant: string, logged: string[]): Promise<erasurePasses.PassCounts> {
  const prefix = deps.settings.prefix;
  await drainAudit(deps, pool);
  let rows = await eraseTenantFromAudit(pool, prefix, tenant, id);
  const named = await eraseTenantData(deps, tenant);
  const shared = await eraseTenantShared(deps, tenant, logged);
  const lines = await redactTenantArchive(pool, prefix, tenant, id);
  rows += await eraseTenantRows(pool, prefix, tenant);
  rows += await eraseTenantSnapshotKeys(pool, prefix, tenant);
  rows += await copyAgain(deps, pool, new Set([...shared.touched, ...(await snapshotKeysHolding(pool, prefix, tenant))]), null);
  return { redisKeys: named.keys, redisMembers: named.members + shared.members, archivedEntries: lines, postgresRows: rows };
}

/**
 * Gives a record left without its entries their ids (or drops it: the tenant is still there);
 * answers the ids, or null when the record is too young to take over, or dropped.
 */
async function sweep(deps: Deps, id: string, h: Record<string, string>, tenant: string): Promise<string[] | null> {
  const at = Number(h.at);
  if (!(deps.clock.now() - at >= SWEEP_AFTER_MS)) return null;
  if (deps.store.current.tenants.has(tenant)) {
    await deps.redis.del(deps.keys.erasure(id));
    return null;
  }
  return logTenantErasure(deps, id, tenant, at);
}

/**
 * Finishes a tenant's erasure once the archive holds its entries (`cursors`: the archive's last id
 * by partition); true when done or dropped, false while waiting (or another pass is on it).
 */
export async function finishTenantErasure(
  deps: Deps, pool: pg.Pool, id: string, h: Record<string, string>, cursors: Map<number, string>, passLimitMs: number,
): Promise<boolean> {
  const { redis, keys } = deps;
  const tenant = h.d;
  let logged = h.e === undefined ? null : (JSON.parse(h.e) as string[]);
  if (logged === null) {
    logged = await sweep(deps, id, h, tenant);
    if (logged === null) return (await redis.exists(keys.erasure(id))) === 0;
  }
  const archived = logged.every((entryId, p) => {
    const cursor = cursors.get(p);
    return cursor !== undefined && compareStreamIds(cursor, entryId) >= 0;
  });
  if (!archived) return false;
  const record = keys.erasure(id);
  const pass = randomUUID();
  if (!(await erasurePasses.join(redis, record, pass, deps.clock.now()))) return true;
  let counts: erasurePasses.PassCounts;
  try {
    counts = await eraseOutside(deps, pool, id, tenant, logged);
  } catch (err) {
    await redis.hdel(record, `w:${pass}`).catch(() => 0);
    throw err;
  }
  return erasurePasses.leave(redis, record, pass, deps.clock.now(), passLimitMs, counts);
}
