/**
 * The workers' part of a deleted tenant's erasure (src/engine/erasure/tenant.ts), run by the
 * erasure pass (src/engine/erasure/pass.ts) for a record that names a tenant (`d`):
 * - a record without its log entries' ids (`e`) a minute old was left by a process that died:
 *   dropped when the tenant is still there (its deletion failed), else the entries are appended now;
 * - once the archive holds every partition's `erased` entry of the tenant (so each entry of the
 *   tenant before it), the tenant's keys are removed from Redis (src/engine/erasure/tenant-erase.ts:
 *   a walk of the keyspace), and it is removed from the keys shared with others and the logs
 *   (src/engine/erasure/tenant-shared.ts), its users' own points boosts deleted
 *   (src/engine/erasure/boosts.ts), and in bulk from
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
import { eraseTenantBoosts, tenantUserBoosts } from './boosts.js';
import { withRankingsLease } from '../leaderboards/rankings-lease.js';
import { profileOf } from '../../domain/erasure.js';
import { eraseFromAudit } from '../../postgres/audit.js';
import { SWEEP_AFTER_MS } from './sweep.js';
import { copyAgain } from './snapshot-copies.js';
import { eraseTenantData } from './tenant-erase.js';
import { logTenantErasure } from './tenant.js';
import { eraseTenantShared, lateEntries } from './tenant-shared.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'clock' | 'settings' | 'store'>;

/** Everything of the tenant outside the keys naming it, and in Postgres; answers what this pass removed. */
async function eraseOutside(
  deps: Deps, pool: pg.Pool, id: string, tenant: string, logged: string[], late: Map<number, string[]>,
): Promise<erasurePasses.PassCounts> {
  const prefix = deps.settings.prefix;
  await drainAudit(deps, pool);
  let rows = await eraseTenantFromAudit(pool, prefix, tenant, id);
  // A boost for one of its users is the account's configuration, audited as the account's: its
  // entries are rewritten as that user's erasure rewrites them (their profile read before their
  // keys go), then the boosts deleted.
  const boosts = await tenantUserBoosts(deps, tenant);
  for (const userId of new Set(boosts.map((b) => b.userId!))) {
    const [email, name, dt] = await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, 'email', 'name', 'dt');
    rows += await eraseFromAudit(pool, prefix, { tenant, userId, erasureId: id, profile: profileOf(email, name, dt) });
  }
  const boosted = await eraseTenantBoosts(deps, pool, boosts);
  const named = await eraseTenantData(deps, tenant);
  const shared = await eraseTenantShared(deps, tenant, logged, late);
  const lines = await redactTenantArchive(pool, prefix, tenant, id);
  rows += await eraseTenantRows(pool, prefix, tenant);
  rows += await eraseTenantSnapshotKeys(pool, prefix, tenant);
  rows += await copyAgain(deps, pool, new Set([...shared.touched, ...(await snapshotKeysHolding(pool, prefix, tenant))]), null);
  return { redisKeys: named.keys, redisMembers: named.members + shared.members + boosted, archivedEntries: lines, postgresRows: rows };
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
  const entries = logged;
  // Holding the rankings' lease, as a user's erasure does (src/engine/erasure/pass.ts): no
  // finalisation writes winners of the tenant's runs meanwhile.
  const finished = await withRankingsLease(deps, async () => {
    // What the workers' passes wrote of it after the deletion: archived first, as the rest.
    const late = await lateEntries(deps, tenant, entries);
    for (const [p, ids] of late) {
      const cursor = cursors.get(p);
      if (cursor === undefined || compareStreamIds(cursor, ids[ids.length - 1]) < 0) return false;
    }
    const pass = randomUUID();
    if (!(await erasurePasses.join(redis, record, pass, deps.clock.now()))) return true;
    let counts: erasurePasses.PassCounts;
    try {
      counts = await eraseOutside(deps, pool, id, tenant, entries, late);
    } catch (err) {
      await redis.hdel(record, `w:${pass}`).catch(() => 0);
      throw err;
    }
    return erasurePasses.leave(redis, record, pass, deps.clock.now(), passLimitMs, counts);
  });
  return finished === true;
}
