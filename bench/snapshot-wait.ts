/**
 * The snapshot a variant's workers take as they start (BullMQ runs a schedule at once), waited
 * for before a measured load: on a keyspace of millions its walks and DUMPs take seconds of
 * Redis, which the load would measure. The variants that wait set the interval to a day
 * (SNAPSHOT_ENV), so no other snapshot falls in their turn; the one waited for is timed apart.
 */
import pg from 'pg';

/** The snapshot interval of the variants that wait: a day, so none but the start-up one falls in their turn. */
export const SNAPSHOT_ENV = { LAUREL_SNAPSHOT_INTERVAL: '24h' };

/** Snapshots finished (whole or failed) and started in a variant's database. */
async function snapshotCounts(client: pg.Client): Promise<{ started: number; finished: number; lastSeconds: number | null }> {
  try {
    const r = await client.query(`SELECT count(*)::int AS started, count(finished_at)::int AS finished,
      (SELECT extract(epoch FROM finished_at - started_at)::float8 FROM laurel_snapshots WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1) AS last
      FROM laurel_snapshots`);
    return { started: r.rows[0].started, finished: r.rows[0].finished, lastSeconds: r.rows[0].last };
  } catch {
    // Not created yet.
    return { started: 0, finished: 0, lastSeconds: null };
  }
}

/**
 * Waits until the snapshot the workers took since `before` finished (the workers start one as they
 * start); answers its seconds, or null when none started within 20 s.
 */
export async function waitSnapshot(url: string, before: number, signal: AbortSignal): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t0 = Date.now();
    for (;;) {
      signal.throwIfAborted();
      const c = await snapshotCounts(client);
      if (c.finished > before) return c.lastSeconds;
      if (c.started <= before && Date.now() - t0 > 20_000) return null;
      if (Date.now() - t0 > 1_800_000) throw new Error('the workers\' snapshot did not finish within 30 minutes');
      await new Promise((res) => setTimeout(res, 250));
    }
  } finally {
    await client.end();
  }
}

/** How many snapshots have finished in a variant's database (before its workers start: the `before` of waitSnapshot). */
export async function finishedSnapshots(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await snapshotCounts(client)).finished;
  } finally {
    await client.end();
  }
}
