/**
 * A user's erasure in Postgres (src/engine/erasure/pass.ts): the archived log's lines that
 * name them rewritten (src/domain/erasure.ts), and their rows elsewhere deleted or rewritten:
 * the user directory, the snapshots' user rows, the webhook deliveries and their record, the
 * notification deliveries, the rows an earlier version archived one entry each. The analytics
 * rollups hold counts and no user: they stay.
 */
import type pg from 'pg';
import { redactLines, type ErasedUser } from '../domain/erasure.js';

/** Archived batches rewritten per transaction. */
const AT_ONCE = 50;

/** Rewrites the archive's lines naming the user; answers how many lines changed. */
export async function redactArchive(pool: pg.Pool, prefix: string, who: ErasedUser): Promise<number> {
  const needle = JSON.stringify(who.userId);
  let changed = 0;
  let after: [number, string] = [-1, ''];
  for (;;) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ partition: number; first_id: string; lines: string }>(
        `SELECT partition, first_id, lines FROM laurel_log
         WHERE prefix = $1 AND (partition, first_id) > ($2, $3) AND strpos(lines, $4) > 0
         ORDER BY partition, first_id LIMIT $5 FOR UPDATE`,
        [prefix, after[0], after[1], needle, AT_ONCE],
      );
      for (const row of rows) {
        const r = redactLines(row.lines, who);
        if (r === null) continue;
        await client.query('UPDATE laurel_log SET lines = $4 WHERE prefix = $1 AND partition = $2 AND first_id = $3', [prefix, row.partition, row.first_id, r.lines]);
        changed += r.changed;
      }
      await client.query('COMMIT');
      if (rows.length < AT_ONCE) return changed;
      const last = rows[rows.length - 1];
      after = [last.partition, last.first_id];
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

/**
 * The deletion of a user's rows of `table` ($1 prefix, $2 tenant, $3 user id). The directory's id
 * is compared in "C", the collation of its index on (prefix, tenant, user_id): in the column's
 * own, a planner without statistics of the table used that index for the prefix and the tenant
 * only and read every row of the tenant (as the drain's lookup did:
 * src/postgres/analytics/rollups.ts STORED_USERS_SQL). The other tables' indexes are in the
 * column's collation.
 */
export function eraseRowsSql(table: string): string {
  const id = table === 'laurel_rollup_users' ? 'user_id = $3 COLLATE "C"' : 'user_id = $3';
  return `DELETE FROM ${table} WHERE prefix = $1 AND tenant = $2 AND ${id}`;
}

/** Deletes or rewrites the user's other rows; answers how many. */
export async function eraseUserRows(pool: pg.Pool, prefix: string, who: ErasedUser): Promise<number> {
  const { tenant, userId } = who;
  let n = 0;
  for (const table of ['laurel_rollup_users', 'laurel_snapshot_users', 'laurel_deliveries', 'laurel_webhook_deliveries', 'laurel_events_rows']) {
    const r = await pool.query(eraseRowsSql(table), [prefix, tenant, userId]);
    n += r.rowCount ?? 0;
  }
  n += await eraseSentItems(pool, prefix, who);
  return n;
}

interface SentItem { tenant: string; userId: string }

/** The record of webhook deliveries sent at their first attempt: the user's taken out of each row. */
async function eraseSentItems(pool: pg.Pool, prefix: string, who: ErasedUser): Promise<number> {
  const { rows } = await pool.query<{ id: string; items: string; ids: string[]; outcomes: string | null }>(
    'SELECT id, items, ids, outcomes FROM laurel_webhook_sent WHERE prefix = $1 AND strpos(items, $2) > 0',
    [prefix, JSON.stringify(who.userId)],
  );
  let n = 0;
  for (const row of rows) {
    const items = JSON.parse(row.items) as SentItem[];
    const outcomes = row.outcomes === null ? null : (JSON.parse(row.outcomes) as unknown[]);
    const keep = items.map((x) => !(x.tenant === who.tenant && x.userId === who.userId));
    if (keep.every(Boolean)) continue;
    n++;
    if (!keep.some(Boolean)) {
      await pool.query('DELETE FROM laurel_webhook_sent WHERE prefix = $1 AND id = $2', [prefix, row.id]);
      continue;
    }
    const kept = <T>(list: T[]) => list.filter((_, i) => keep[i]);
    await pool.query(
      'UPDATE laurel_webhook_sent SET items = $3, ids = $4, outcomes = $5 WHERE prefix = $1 AND id = $2',
      [prefix, row.id, JSON.stringify(kept(items)), row.ids.length === items.length ? kept(row.ids) : row.ids,
        outcomes === null || !Array.isArray(outcomes) || outcomes.length !== items.length ? row.outcomes : JSON.stringify(kept(outcomes))],
    );
  }
  return n;
}

/** The snapshots' other keys whose copy holds the user id's bytes. */
export async function snapshotKeysNaming(pool: pg.Pool, prefix: string, userId: string): Promise<string[]> {
  const { rows } = await pool.query<{ key: string }>(
    'SELECT key FROM laurel_snapshot_keys WHERE prefix = $1 AND position($2::bytea IN dump) > 0', [prefix, Buffer.from(userId)],
  );
  return rows.map((r) => r.key);
}

/** A snapshot's copy of a key as kept (null: none). */
export async function snapshotKeyCopy(pool: pg.Pool, prefix: string, key: string): Promise<Buffer | null> {
  const { rows } = await pool.query<{ dump: Buffer }>('SELECT dump FROM laurel_snapshot_keys WHERE prefix = $1 AND key = $2', [prefix, key]);
  return rows[0]?.dump ?? null;
}

/**
 * A snapshot's copy of a key made again from Redis as it is now (`dump` and its digest), or
 * dropped (null: the key is gone). A key the snapshots do not hold is left to them.
 */
export async function copyKeyAgain(pool: pg.Pool, prefix: string, key: string, copy: { dump: Buffer; digest: string } | null): Promise<number> {
  const r = copy === null
    ? await pool.query('DELETE FROM laurel_snapshot_keys WHERE prefix = $1 AND key = $2', [prefix, key])
    : await pool.query('UPDATE laurel_snapshot_keys SET dump = $3, digest = $4 WHERE prefix = $1 AND key = $2', [prefix, key, copy.dump, copy.digest]);
  return r.rowCount ?? 0;
}

/**
 * As copyKeyAgain, and a key the snapshots do not hold yet is added, with the latest snapshot that
 * finished whole (none: nothing is added). For a key that records a decision a restore cannot make
 * again once the erasure changed what it was made from (a league cohort's outcome).
 */
export async function copyKeyInto(pool: pg.Pool, prefix: string, key: string, copy: { dump: Buffer; digest: string } | null): Promise<number> {
  if (copy === null) return copyKeyAgain(pool, prefix, key, null);
  const r = await pool.query(
    `INSERT INTO laurel_snapshot_keys (prefix, key, snapshot, digest, dump)
     SELECT $1, $2, s.id, $3, $4 FROM laurel_snapshots s
     WHERE s.prefix = $1 AND s.finished_at IS NOT NULL AND s.error IS NULL ORDER BY s.id DESC LIMIT 1
     ON CONFLICT (prefix, key) DO UPDATE SET digest = EXCLUDED.digest, dump = EXCLUDED.dump`,
    [prefix, key, copy.digest, copy.dump],
  );
  return r.rowCount ?? 0;
}

/**
 * The id of the archived `erased` entry that names the erasure in the partition's batches, or null
 * (src/engine/erasure/sweep.ts).
 */
export async function archivedErasedEntry(pool: pg.Pool, prefix: string, partition: number, erasureId: string): Promise<string | null> {
  const needle = `"x":${JSON.stringify(erasureId)}`;
  const { rows } = await pool.query<{ id: string }>(
    `SELECT split_part(e.line, E'\\t', 1) AS id FROM laurel_log l
     CROSS JOIN LATERAL string_to_table(l.lines, E'\\n') AS e(line)
     WHERE l.prefix = $1 AND l.partition = $2 AND strpos(l.lines, $3) > 0
       AND split_part(e.line, E'\\t', 2) = 'erased' AND strpos(e.line, $3) > 0
     LIMIT 1`,
    [prefix, partition, needle],
  );
  return rows[0]?.id ?? null;
}
