/**
 * The event log's archive in Postgres: each drained batch of a partition's log is one row of
 * `laurel_log` (its entries as lines), and each partition's cursor (the last entry archived) a row
 * of `laurel_log_cursor`, moved in the same transaction. A batch is archived exactly once: a
 * drainer whose cursors another drainer moved meanwhile writes nothing (the transaction rolls
 * back) and reads the cursors again. The view `laurel_events` shows one row per entry. What the
 * log's consumers write with the batches (the analytics rollups, a row marked `rolled`; the
 * notifications' deliveries) is written in the same transaction.
 */
import type pg from 'pg';
import { memoize } from '../lib/memo.js';
import { lz4 } from './compression.js';

/** `laurel_log` and `laurel_log_cursor` (applied by src/postgres/pool.ts, in its order). */
export const LOG_ARCHIVE_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_log (
     prefix      text        NOT NULL,
     partition   integer     NOT NULL,
     first_id    text        NOT NULL,
     last_id     text        NOT NULL,
     entries     integer     NOT NULL,
     first_at    timestamptz NOT NULL,
     last_at     timestamptz NOT NULL,
     lines       text        NOT NULL,
     drained_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (prefix, partition, first_id)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_log_cursor (
     prefix     text    NOT NULL,
     partition  integer NOT NULL,
     last_id    text    NOT NULL,
     PRIMARY KEY (prefix, partition)
   )`,
];

/**
 * Run at every start-up (src/postgres/pool.ts): the log's lines compressed with lz4 where the
 * server has it: pglz, the default, cost the drain about a sixth of Postgres's CPU per event
 * (docs/performance.md).
 */
export const LOG_ARCHIVE_EVERY_START = [lz4('laurel_log', 'lines')];

/** A partition's entries from just after `previous` to `lastId`, as lines (archiveLine). */
export interface ArchiveBatch {
  partition: number;
  /** The cursor the batch was read after ('' for none: the partition's first batch). */
  previous: string;
  firstId: string;
  lastId: string;
  count: number;
  lines: string;
}

/** What a consumer of the log writes in the archive's transaction (LogArchive.commit). */
export interface ArchiveStep {
  write(client: pg.ClientBase): Promise<void>;
  /**
   * Given, a fault of the step must not hold up the log: its writes are undone (a savepoint), this
   * hears why, and the archive goes on. Not given, the step's fault fails the archive.
   */
  failed?(err: unknown): void;
  /** Once the transaction committed with the step's writes. */
  committed?(): void;
}

/** One entry as its line: `<stream id>\t<kind>\t<body as JSON>`; JSON holds no raw tab or newline. */
export function archiveLine(id: string, kind: string, body: string): string {
  return `${id}\t${kind}\t${body}`;
}

/** The ms part of a stream id (`<ms>-<seq>`). */
function msOf(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/**
 * The INSERT of `n` batches, a row of parameters each. Each batch's lines travel as a parameter of
 * their own: as elements of a text[] parameter, node-postgres escaped every quote of their JSON and
 * Postgres parsed the array back (about 3 µs of node per event: a third of the drainer's own work).
 */
const insertBatches = memoize(64, (n: number): string => {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = 2 + i * 7;
    rows.push(`($1, $${p}::int, $${p + 1}, $${p + 2}, $${p + 3}::int, to_timestamp($${p + 4}::float8 / 1000.0), ` +
      `to_timestamp($${p + 5}::float8 / 1000.0), $${p + 6}, true)`);
  }
  return `INSERT INTO laurel_log (prefix, partition, first_id, last_id, entries, first_at, last_at, lines, rolled) VALUES ${rows.join(', ')}`;
});

function batchParams(prefix: string, batches: ArchiveBatch[]): (string | number)[] {
  const params: (string | number)[] = [prefix];
  for (const b of batches) params.push(b.partition, b.firstId, b.lastId, b.count, msOf(b.firstId), msOf(b.lastId), b.lines);
  return params;
}

export class LogArchive {
  private readonly pool: pg.Pool;
  private readonly prefix: string;

  constructor(pool: pg.Pool, prefix: string) {
    this.pool = pool;
    this.prefix = prefix;
  }

  /** The partitions' cursors as archived (partitions without a row are absent). */
  async cursors(): Promise<Map<number, string>> {
    const { rows } = await this.pool.query<{ partition: number; last_id: string }>(
      'SELECT partition, last_id FROM laurel_log_cursor WHERE prefix = $1', [this.prefix],
    );
    return new Map(rows.map((r) => [r.partition, r.last_id]));
  }

  /**
   * Archives the batches, writes what the log's consumers write with them (`steps`, in their order:
   * the analytics rollup, src/postgres/analytics/rollups.ts; the notifications' deliveries) and
   * moves their partitions' cursors, in one transaction, so that each is written exactly when its
   * entries are archived. False when a cursor was not where the batch was read from (another
   * drainer moved it): nothing is written.
   */
  async commit(batches: ArchiveBatch[], steps: ArchiveStep[] = []): Promise<boolean> {
    if (batches.length === 0) return true;
    const partitions = batches.map((b) => b.partition);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const moved = await client.query(
        `WITH input AS (SELECT * FROM unnest($2::int[], $3::text[], $4::text[]) AS i(partition, previous, last_id)),
         moved AS (
           INSERT INTO laurel_log_cursor (prefix, partition, last_id)
           SELECT $1, partition, last_id FROM input
           ON CONFLICT (prefix, partition) DO UPDATE SET last_id = EXCLUDED.last_id
           WHERE laurel_log_cursor.last_id = (SELECT previous FROM input WHERE input.partition = laurel_log_cursor.partition)
           RETURNING 1)
         SELECT count(*)::int AS n FROM moved`,
        [this.prefix, partitions, batches.map((b) => b.previous), batches.map((b) => b.lastId)],
      );
      if ((moved.rows[0] as { n: number }).n !== batches.length) {
        await client.query('ROLLBACK');
        return false;
      }
      await client.query(insertBatches(batches.length), batchParams(this.prefix, batches));
      const written: ArchiveStep[] = [];
      for (const step of steps) {
        if (step.failed === undefined) {
          await step.write(client);
          written.push(step);
          continue;
        }
        await client.query('SAVEPOINT step');
        try {
          await step.write(client);
          written.push(step);
        } catch (err) {
          await client.query('ROLLBACK TO SAVEPOINT step');
          step.failed(err);
        }
      }
      await client.query('COMMIT');
      for (const step of written) step.committed?.();
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
