/**
 * The bench's wait for a steady variant's start-up snapshot (bench/snapshot-wait.ts), against
 * laurel's own snapshot rows in a Postgres database of the test's: the variant before was stopped
 * while its snapshot ran, so the next variant's workers mark that one failed as they start and take
 * their own. The wait is over when the new one ends, not when the old one is marked.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, dropDatabase } from '../../bench/postgres.js';
import { lastSnapshotId, snapshotLine, waitSnapshot } from '../../bench/snapshot-wait.js';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { SnapshotStore } from '../../src/postgres/snapshots.js';

describe('the bench\'s wait for a start-up snapshot', () => {
  const settings = loadSettings();
  let admin: pg.Client;
  let database: { name: string; url: string };
  let pool: pg.Pool;
  let store: SnapshotStore;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: settings.databaseUrl });
    await admin.connect();
    database = await createDatabase(admin, settings.databaseUrl);
    // laurel's tables, made as its workers make them.
    pool = await connectPostgres(loadSettings({ ...process.env, DATABASE_URL: database.url }));
    store = new SnapshotStore(pool, 'bench-wait');
  });

  afterAll(async () => {
    await pool?.end();
    if (database !== undefined) await dropDatabase(admin, database.name);
    await admin?.end();
  });

  it('waits for the snapshot its workers began, not for the marking of the one a stopped variant left', async () => {
    // The variant before: its snapshot began, then its process was stopped.
    await store.begin(true, Date.now());
    const before = await lastSnapshotId(database.url);
    // This variant's workers: the stopped one's marked failed, their own begun.
    await store.failUnfinished();
    const own = await store.begin(false, Date.now());
    let ended = false;
    const waiting = waitSnapshot(database.url, before, AbortSignal.timeout(20_000)).finally(() => { ended = true; });
    await new Promise((res) => setTimeout(res, 1500));
    expect(ended).toBe(false);
    await store.finish(own, 10, 20);
    const seen = await waiting;
    expect(seen).not.toBeNull();
    expect(seen!.failed).toEqual([]);
    expect(seen!.seconds).toBeGreaterThanOrEqual(1.4);
    expect(snapshotLine(seen)).toMatch(/^\d+\.\d s$/);
  });

  it('reads no snapshot in a database whose workers have not made the table yet', async () => {
    const bare = await createDatabase(admin, settings.databaseUrl);
    try {
      expect(await lastSnapshotId(bare.url)).toBe(0);
    } finally {
      await dropDatabase(admin, bare.name);
    }
  });

  it('reports a snapshot of its own that failed, and the one that then finished whole', async () => {
    const before = await lastSnapshotId(database.url);
    const first = await store.begin(false, Date.now());
    await store.fail(first, 'timeout exceeded when trying to connect');
    const second = await store.begin(false, Date.now());
    const waiting = waitSnapshot(database.url, before, AbortSignal.timeout(20_000));
    await store.finish(second, 1, 2);
    const seen = await waiting;
    expect(seen!.failed.map((f) => [f.id, f.error])).toEqual([[first, 'timeout exceeded when trying to connect']]);
    expect(seen!.seconds).not.toBeNull();
    expect(snapshotLine(seen)).toContain(`snapshot ${first} failed after`);
  });
});
