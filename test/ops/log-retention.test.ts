/**
 * LAUREL_LOG_RETENTION_DAYS: the workers delete the archived event log's entries older than the
 * retention on laurel's manual clock (the archive's batches, and the rows an earlier version
 * archived one entry each), and keep the younger ones and the analytics' rollups; unset, nothing
 * is deleted. Postgres alone: on single Redis.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { connectPostgres } from '../../src/postgres/pool.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

/** The archived entries of the prefix: their kind and user, in the order they arrived. */
async function archived(pool: pg.Pool, prefix: string): Promise<string[]> {
  const { rows } = await pool.query<{ e: string }>(
    `SELECT kind || ' ' || user_id AS e FROM laurel_events WHERE prefix = $1 ORDER BY partition, stream_id`, [prefix],
  );
  return rows.map((r) => r.e).sort();
}

const DAY_MS = 86_400_000;

/** A batch of the archive of one event of `userId` in `partition` that arrived at `ms` (as the drainer writes it, rolled up). */
async function batchAt(pool: pg.Pool, prefix: string, partition: number, userId: string, ms: number): Promise<void> {
  const id = `${ms}-100000${String(partition).padStart(5, '0')}`;
  const line = `${id}\tevent\t${JSON.stringify({ t: '_', u: userId, ts: ms })}`;
  await pool.query(
    `INSERT INTO laurel_log (prefix, partition, first_id, last_id, entries, first_at, last_at, lines, rolled)
     VALUES ($1, $2, $3, $3, 1, to_timestamp($4 / 1000.0), to_timestamp($4 / 1000.0), $5, true)`,
    [prefix, partition, id, ms, line],
  );
}

/** An entry as an earlier version archived it, one row, at `ms`. */
async function oldRow(pool: pg.Pool, prefix: string, id: string, userId: string, ms: number): Promise<void> {
  await pool.query(
    `INSERT INTO laurel_events_rows (prefix, partition, stream_id, kind, tenant, user_id, occurred_at, body)
     VALUES ($1, 0, $2, 'event', '_', $3, to_timestamp($4 / 1000.0), $5)`,
    [prefix, id, userId, ms, JSON.stringify({ t: '_', u: userId, ts: ms })],
  );
}

describe('the archived event log\'s retention', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  async function start(env: Record<string, string>): Promise<{ s: TestServer; pool: pg.Pool }> {
    const s = await startTestServer({ clock: 'manual', workers: true, env });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());
    await s.metrics('lessons');
    return { s, pool };
  }

  /**
   * Events of ann and bob archived now (their batches arrived now, by Redis's clock), a batch of
   * ann's partition that arrives in 60 days, and rows of an earlier version 10 days ago and in 60
   * days. Answers now (ms).
   */
  async function history(s: TestServer, pool: pg.Pool): Promise<number> {
    const now = Date.now();
    await s.setClock(new Date(now).toISOString());
    await s.event('lessons', 'ann', 2);
    await s.event('lessons', 'bob', 1);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      return (await archived(pool, s.prefix)).length;
    }, { timeout: 20_000 }).toBe(2);
    await batchAt(pool, s.prefix, s.api.services.keys.partitionOf('_', 'ann'), 'ann-later', now + 60 * DAY_MS);
    await oldRow(pool, s.prefix, '1000-0', 'old-row', now - 10 * DAY_MS);
    await oldRow(pool, s.prefix, '1001-0', 'later-row', now + 60 * DAY_MS);
    expect(await archived(pool, s.prefix)).toEqual([
      'event ann', 'event ann-later', 'event bob', 'event later-row', 'event old-row',
    ]);
    return now;
  }

  it('deletes the entries older than the retention and keeps the rollups', { timeout: 60_000 }, async () => {
    const { s, pool } = await start({ LAUREL_LOG_RETENTION_DAYS: '30' });
    const now = await history(s, pool);
    const today = new Date(now).toISOString().slice(0, 10);
    const analytics = () => s.request('GET', `/admin/v1/analytics?from=${today}&to=${today}`);
    const before = await analytics();
    expect(before.status, before.text).toBe(200);
    expect(before.body.days[0].events).toBe(2);

    // 45 days on, the retention keeps what arrived in the last 30: the batch and the row of day 60.
    await s.setClock(new Date(now + 45 * DAY_MS).toISOString());
    expect(await s.workers!.testing.pruneLogNow()).toBeGreaterThanOrEqual(2);
    expect(await archived(pool, s.prefix)).toEqual(['event ann-later', 'event later-row']);
    const after = await analytics();
    expect(after.body).toEqual(before.body);
    expect(await s.workers!.testing.pruneLogNow()).toBe(0);
    // The drain goes on after the partition's batches left.
    await s.event('lessons', 'ann', 1);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      return (await archived(pool, s.prefix)).length;
    }, { timeout: 20_000 }).toBe(3);
  });

  it('keeps the whole archive when unset', { timeout: 60_000 }, async () => {
    const { s, pool } = await start({ LAUREL_LOG_RETENTION_DAYS: '' });
    const now = await history(s, pool);
    await s.setClock(new Date(now + 3650 * DAY_MS).toISOString());
    expect(await s.workers!.testing.pruneLogNow()).toBe(0);
    expect(await archived(pool, s.prefix)).toHaveLength(5);
  });

  it('refuses a retention out of bounds', async () => {
    await expect(startTestServer({ env: { LAUREL_LOG_RETENTION_DAYS: '0' } })).rejects.toThrow(/LAUREL_LOG_RETENTION_DAYS must be an integer from 1 to 36500/);
  });
});
