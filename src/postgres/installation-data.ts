/**
 * Whether Postgres holds data of an installation: what tells a Redis that lost it (restore, the
 * start-up's check, the snapshots) from a new one.
 */
import type pg from 'pg';

/** Whether Postgres holds data of the installation (its configuration copy, its log or a snapshot). */
export async function postgresHoldsData(pool: pg.Pool, prefix: string): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT EXISTS (SELECT 1 FROM laurel_config WHERE prefix = $1)
         OR EXISTS (SELECT 1 FROM laurel_log WHERE prefix = $1)
         OR EXISTS (SELECT 1 FROM laurel_events_rows WHERE prefix = $1)
         OR EXISTS (SELECT 1 FROM laurel_snapshots WHERE prefix = $1) AS held`, [prefix],
  );
  return rows[0].held === true;
}
