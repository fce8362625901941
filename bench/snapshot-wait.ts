/**
 * The snapshot a variant's workers take as they start (BullMQ runs a schedule at once, and a
 * snapshot a stopped process left running is taken again), waited for before a measured load: on
 * a keyspace of millions its walks and DUMPs take minutes of Redis, which the load would measure.
 * The variants that wait set the interval to a day (SNAPSHOT_ENV), so no other snapshot falls in
 * their turn; the one waited for is timed apart.
 *
 * Only the snapshots begun after the variant started count: its workers mark failed, as they
 * start, a snapshot the variant before left unfinished when it was stopped, and that marking is
 * not this variant's snapshot finishing.
 */
import pg from 'pg';

/** The snapshot interval of the variants that wait: a day, so none but the start-up one falls in their turn. */
export const SNAPSHOT_ENV = { LAUREL_SNAPSHOT_INTERVAL: '24h' };

/** How long the workers get to begin their snapshot before none is expected, ms. */
const NONE_MS = 20_000;
/** How long a snapshot may take before the bench gives up, ms. */
const MAX_MS = 1_800_000;

interface Row { id: number; seconds: number | null; error: string | null }

/** Whether `err` is Postgres's answer for a table that does not exist (yet: the workers make it as they start). */
const noTable = (err: unknown): boolean => (err as { code?: unknown }).code === '42P01';

/** The snapshots begun after `afterId` in a variant's database, oldest first ([] before the table exists). */
async function snapshotsAfter(client: pg.Client, afterId: number): Promise<Row[]> {
  try {
    const r = await client.query<Row>(`SELECT id::int AS id, extract(epoch FROM finished_at - started_at)::float8 AS seconds, error
      FROM laurel_snapshots WHERE id > $1 ORDER BY id`, [afterId]);
    return r.rows;
  } catch (err) {
    if (noTable(err)) return [];
    throw err;
  }
}

/** What the wait saw: the seconds of the snapshot that finished whole (null: none did), and each one that failed. */
export interface SnapshotWait {
  seconds: number | null;
  failed: { id: number; seconds: number; error: string }[];
}

/**
 * Waits until the snapshots the workers began after `afterId` have all ended and one of them
 * finished whole, or none runs and none begins within 20 s; answers them, or null when none
 * began at all.
 */
export async function waitSnapshot(url: string, afterId: number, signal: AbortSignal): Promise<SnapshotWait | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t0 = Date.now();
    let quietSince = t0;
    for (;;) {
      signal.throwIfAborted();
      const rows = await snapshotsAfter(client, afterId);
      const failed = rows.filter((r) => r.seconds !== null && r.error !== null).map((r) => ({ id: r.id, seconds: r.seconds!, error: r.error! }));
      const whole = rows.find((r) => r.seconds !== null && r.error === null);
      const running = rows.some((r) => r.seconds === null);
      if (!running && whole !== undefined) return { seconds: whole.seconds, failed };
      if (running) quietSince = Date.now();
      else if (Date.now() - quietSince > NONE_MS) return rows.length === 0 ? null : { seconds: null, failed };
      if (Date.now() - t0 > MAX_MS) throw new Error('the workers\' snapshot did not finish within 30 minutes');
      await new Promise((res) => setTimeout(res, 250));
    }
  } finally {
    await client.end();
  }
}

/** The newest snapshot's id in a variant's database (0 for none): the `afterId` of waitSnapshot, read before its workers start. */
export async function lastSnapshotId(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM laurel_snapshots');
    return r.rows[0].id;
  } catch (err) {
    if (noTable(err)) return 0;
    throw err;
  } finally {
    await client.end();
  }
}

/** A line for the bench's log: what the wait saw. */
export function snapshotLine(w: SnapshotWait | null): string {
  if (w === null) return 'none seen';
  const failed = w.failed.map((f) => `snapshot ${f.id} failed after ${f.seconds.toFixed(1)} s: ${f.error}`);
  return [w.seconds === null ? 'none finished whole' : `${w.seconds.toFixed(1)} s`, ...failed].join('; ');
}
