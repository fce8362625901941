/**
 * The analytics rollups of what the archive held before them (src/postgres/analytics/rollups.ts):
 * the batches of `laurel_log` not `rolled`, a chunk at a time, each in a transaction of its own
 * that marks them rolled, in each partition's order (a user's entries are in one partition, and
 * their first and last days need them in order). One backfiller of an installation at a time (an
 * advisory lock of its prefix: installations sharing a Postgres do not wait for each other);
 * the log drain waits until none is left (src/engine/log-drain/analytics.ts), so the drain's rollups always
 * follow the backfill's.
 */
import type pg from 'pg';
import { emptyRollup, rollEntry, type BatchRollup } from '../../domain/analytics-rollup.js';
import type { NotificationSettings } from '../../model/entities.js';
import type { LogBody } from '../../model/log.js';
import { writeRollup } from './rollups.js';

/** The name of the advisory lock of an installation's backfill (hashed by Postgres). */
const backfillLock = (prefix: string) => `laurel-backfill:${prefix}`;

/** The rollup of archived lines (`<id>\t<kind>\t<body>` each). */
export function rollupOfLines(r: BatchRollup, lines: string, settings: NotificationSettings | null): void {
  for (const line of lines.split('\n')) {
    const a = line.indexOf('\t');
    const b = line.indexOf('\t', a + 1);
    if (a < 0 || b < 0) continue;
    const kind = line.slice(a + 1, b);
    let body: LogBody;
    try {
      body = JSON.parse(line.slice(b + 1)) as LogBody;
    } catch {
      continue;
    }
    rollEntry(r, kind, body, settings);
  }
}

/**
 * Rolls up at most `limit` batches not rolled up yet. Answers how many were, or null when another
 * backfiller holds the lock. `also` is given the chunk's rollup before it commits (the active users'
 * sketches in Redis: src/engine/analytics/active-users.ts).
 */
export async function backfillChunk(
  pool: pg.Pool, prefix: string, settings: NotificationSettings | null, limit: number, also: (r: BatchRollup) => Promise<void>,
): Promise<number | null> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [backfillLock(prefix)]);
    if (!locked.rows[0].ok) {
      await client.query('ROLLBACK');
      return null;
    }
    const { rows } = await client.query<{ partition: number; first_id: string; lines: string }>(
      `SELECT partition, first_id, lines FROM laurel_log WHERE prefix = $1 AND NOT rolled ORDER BY partition, first_id LIMIT $2`,
      [prefix, limit],
    );
    const r = emptyRollup();
    for (const row of rows) rollupOfLines(r, row.lines, settings);
    await writeRollup(client, prefix, r);
    await also(r);
    if (rows.length > 0) {
      await client.query(
        `UPDATE laurel_log l SET rolled = true FROM unnest($2::int[], $3::text[]) AS i(partition, first_id)
         WHERE l.prefix = $1 AND l.partition = i.partition AND l.first_id = i.first_id`,
        [prefix, rows.map((x) => x.partition), rows.map((x) => x.first_id)],
      );
    }
    await client.query('COMMIT');
    return rows.length;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
