/**
 * The archived event log's retention (LAUREL_LOG_RETENTION_DAYS, docs/operations.md): the
 * archive's batches (`laurel_log`) whose newest entry is older than the limit deleted, and the
 * rows an earlier version archived one entry each (`laurel_events_rows`) likewise. A few hundred
 * rows per statement, each its own transaction, so that a large archive is never held under one
 * long lock while the drainer appends; after each statement the pass rests as long as it took, so
 * that it holds a connection to the Postgres the drainer shares at most half the time
 * (docs/performance.md, "What the data rights cost"). A batch's age is its newest entry's
 * arrival (the stream id's time, `last_at`). The analytics rollups hold the batches' counts and
 * stay; a batch not rolled up yet (src/postgres/analytics/backfill.ts) waits for that before it
 * goes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/** Rows deleted per statement. */
const CHUNK = 500;

/** Runs one statement, then rests as long as it took; answers its rows. */
async function paced(pool: pg.Pool, sql: string, values: unknown[]): Promise<number> {
  const started = performance.now();
  const r = await pool.query(sql, values);
  await sleep(performance.now() - started);
  return r.rowCount ?? 0;
}

/**
 * Deletes a partition's batches older than `before`, oldest first: a partition's batches follow
 * its stream ids, which rise with time, so the first batch that stays ends the pass there.
 */
async function prunePartition(pool: pg.Pool, prefix: string, partition: number, before: Date): Promise<number> {
  let n = 0;
  for (;;) {
    const deleted = await paced(
      pool,
      `DELETE FROM laurel_log l USING (
         SELECT first_id FROM laurel_log WHERE prefix = $1 AND partition = $2 ORDER BY first_id LIMIT ${CHUNK}) o
       WHERE l.prefix = $1 AND l.partition = $2 AND l.first_id = o.first_id AND l.last_at < $3 AND l.rolled`,
      [prefix, partition, before],
    );
    n += deleted;
    if (deleted < CHUNK) return n;
  }
}

/** Deletes the archived entries older than `before` (ms); answers how many rows (batches and single entries). */
export async function pruneLogArchive(pool: pg.Pool, prefix: string, before: number): Promise<number> {
  const at = new Date(before);
  const { rows } = await pool.query<{ partition: number }>(
    'SELECT DISTINCT partition FROM laurel_log_cursor WHERE prefix = $1 ORDER BY partition', [prefix],
  );
  let n = 0;
  for (const { partition } of rows) n += await prunePartition(pool, prefix, partition, at);
  for (;;) {
    const deleted = await paced(
      pool,
      `DELETE FROM laurel_events_rows WHERE (prefix, partition, stream_id) IN (
         SELECT prefix, partition, stream_id FROM laurel_events_rows WHERE prefix = $1 AND occurred_at < $2 LIMIT ${CHUNK})`,
      [prefix, at],
    );
    n += deleted;
    if (deleted < CHUNK) return n;
  }
}
