/**
 * A deleted tenant's erasure in Postgres (src/engine/erasure/tenant-pass.ts), in bulk: each
 * step a statement per table and batch, never one per user. The archived log's lines of the tenant
 * become `redacted` entries naming the erasure (src/domain/tenant-erasure.ts); its users' rows are
 * deleted (the user directory, the snapshots' user rows, the notification and webhook deliveries,
 * the rows an earlier version archived one entry each); the record of webhook deliveries sent
 * loses the tenant's items; the snapshots' copies of keys naming the tenant go; the audit log's
 * entries of the tenant's data lose their bodies and ids. What holds no user (the analytics
 * rollups' counts, the audit entries' key, operation and time) stays. Every step may run again.
 */
import type pg from 'pg';
import { redactTenantLines } from '../domain/tenant-erasure.js';

/** Archived batches rewritten per statement. */
const LOG_BATCH = 200;
/** Rows deleted per statement. */
const ROW_BATCH = 5000;

/** Runs `work` in a transaction of its own. */
async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Rewrites the archive's lines of the tenant; answers how many lines changed. */
export async function redactTenantArchive(pool: pg.Pool, prefix: string, tenant: string, erasureId: string): Promise<number> {
  let changed = 0;
  let after: [number, string] = [-1, ''];
  for (;;) {
    const { more, last } = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ partition: number; first_id: string; lines: string }>(
        `SELECT partition, first_id, lines FROM laurel_log
         WHERE prefix = $1 AND (partition, first_id) > ($2, $3) AND strpos(lines, $4) > 0
         ORDER BY partition, first_id LIMIT $5 FOR UPDATE`,
        [prefix, after[0], after[1], JSON.stringify(tenant), LOG_BATCH],
      );
      const partitions: number[] = [];
      const firstIds: string[] = [];
      const rewritten: string[] = [];
      for (const row of rows) {
        const r = redactTenantLines(row.lines, tenant, erasureId);
        if (r === null) continue;
        partitions.push(row.partition);
        firstIds.push(row.first_id);
        rewritten.push(r.lines);
        changed += r.changed;
      }
      if (rewritten.length > 0) {
        await client.query(
          `UPDATE laurel_log l SET lines = v.lines
           FROM unnest($2::integer[], $3::text[], $4::text[]) AS v(partition, first_id, lines)
           WHERE l.prefix = $1 AND l.partition = v.partition AND l.first_id = v.first_id`,
          [prefix, partitions, firstIds, rewritten],
        );
      }
      const end = rows[rows.length - 1];
      return { more: rows.length === LOG_BATCH, last: end === undefined ? after : [end.partition, end.first_id] as [number, string] };
    });
    if (!more) return changed;
    after = last;
  }
}

/** The tables whose rows each belong to one user of a tenant (a `tenant` column). */
const USER_TABLES = ['laurel_rollup_users', 'laurel_snapshot_users', 'laurel_deliveries', 'laurel_webhook_deliveries', 'laurel_events_rows'];

/** Deletes the rows `where` picks (`$1` the prefix, `$2` the tenant), ROW_BATCH a statement. */
async function deleteInBatches(pool: pg.Pool, table: string, where: string, prefix: string, tenant: string): Promise<number> {
  let n = 0;
  for (;;) {
    const r = await pool.query(
      `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ${ROW_BATCH}))`, [prefix, tenant],
    );
    n += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < ROW_BATCH) return n;
  }
}

/** Deletes the tenant's users' rows; answers how many. */
export async function eraseTenantRows(pool: pg.Pool, prefix: string, tenant: string): Promise<number> {
  let n = 0;
  for (const table of USER_TABLES) n += await deleteInBatches(pool, table, 'prefix = $1 AND tenant = $2', prefix, tenant);
  return n + await eraseTenantSentItems(pool, prefix, tenant);
}

interface SentItem { tenant: string }

/** The record of webhook deliveries sent at their first attempt: the tenant's items taken out of each row. */
async function eraseTenantSentItems(pool: pg.Pool, prefix: string, tenant: string): Promise<number> {
  let n = 0;
  let after = '0';
  for (;;) {
    const { rows } = await pool.query<{ id: string; items: string; ids: string[]; outcomes: string | null }>(
      `SELECT id, items, ids, outcomes FROM laurel_webhook_sent
       WHERE prefix = $1 AND id > $2 AND strpos(items, $3) > 0 ORDER BY id LIMIT ${LOG_BATCH}`,
      [prefix, after, JSON.stringify(tenant)],
    );
    const gone: string[] = [];
    const kept: { id: string; items: string; ids: string[]; outcomes: string | null }[] = [];
    for (const row of rows) {
      const items = JSON.parse(row.items) as SentItem[];
      const keep = items.map((x) => x.tenant !== tenant);
      if (keep.every(Boolean)) continue;
      if (!keep.some(Boolean)) {
        gone.push(row.id);
        continue;
      }
      const outcomes = row.outcomes === null ? null : (JSON.parse(row.outcomes) as unknown[]);
      const only = <T>(list: T[]) => list.filter((_, i) => keep[i]);
      kept.push({
        id: row.id,
        items: JSON.stringify(only(items)),
        ids: row.ids.length === items.length ? only(row.ids) : row.ids,
        outcomes: outcomes === null || !Array.isArray(outcomes) || outcomes.length !== items.length ? row.outcomes : JSON.stringify(only(outcomes)),
      });
    }
    if (gone.length > 0) {
      n += (await pool.query('DELETE FROM laurel_webhook_sent WHERE prefix = $1 AND id = ANY ($2::bigint[])', [prefix, gone])).rowCount ?? 0;
    }
    if (kept.length > 0) {
      // The ids as a JSON array of arrays: a text[] per row does not unnest as one.
      const r = await pool.query(
        `UPDATE laurel_webhook_sent s SET items = v.items, outcomes = v.outcomes,
           ids = ARRAY(SELECT jsonb_array_elements_text(v.ids))
         FROM jsonb_to_recordset($2::jsonb) AS v(id bigint, items text, ids jsonb, outcomes text)
         WHERE s.prefix = $1 AND s.id = v.id`,
        [prefix, JSON.stringify(kept)],
      );
      n += r.rowCount ?? 0;
    }
    if (rows.length < LOG_BATCH) return n;
    after = rows[rows.length - 1].id;
  }
}

/** Deletes the snapshots' copies of the keys whose name holds the tenant's uuid; answers how many. */
export async function eraseTenantSnapshotKeys(pool: pg.Pool, prefix: string, tenant: string): Promise<number> {
  return deleteInBatches(pool, 'laurel_snapshot_keys', 'prefix = $1 AND strpos(key, $2) > 0', prefix, tenant);
}

/** The snapshots' other keys whose copy holds the tenant's uuid (keys shared with other tenants). */
export async function snapshotKeysHolding(pool: pg.Pool, prefix: string, tenant: string): Promise<string[]> {
  const { rows } = await pool.query<{ key: string }>(
    'SELECT key FROM laurel_snapshot_keys WHERE prefix = $1 AND position($2::bytea IN dump) > 0', [prefix, Buffer.from(tenant)],
  );
  return rows.map((r) => r.key);
}

/**
 * The audit log's entries of the tenant's data: their bodies (a batch's items, a freeze's user)
 * become `{ erasureId }` and their ids the erasure's, in one statement; answers how many changed.
 */
export async function eraseTenantFromAudit(pool: pg.Pool, prefix: string, tenant: string, erasureId: string): Promise<number> {
  const r = await pool.query(
    `UPDATE laurel_audit SET body = CASE WHEN body IS NULL THEN NULL ELSE jsonb_build_object('erasureId', $3::text) END,
       ids = array_fill($3::text, ARRAY[coalesce(cardinality(ids), 0)])
     WHERE prefix = $1 AND tenant = $2
       AND (body IS DISTINCT FROM CASE WHEN body IS NULL THEN NULL ELSE jsonb_build_object('erasureId', $3::text) END
            OR EXISTS (SELECT 1 FROM unnest(ids) AS i WHERE i <> $3))`,
    [prefix, tenant, erasureId],
  );
  return r.rowCount ?? 0;
}
