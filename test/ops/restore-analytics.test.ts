/**
 * The analytics' distinct users after Redis lost everything (src/engine/analytics/sketches.ts): the
 * active users' sketches (HyperLogLog, in Redis only) are copied by the snapshots (a full one all of
 * them, an incremental one the days the drain changed since), put back by `laurel restore`, which
 * adds the users of the entries archived after the snapshot: the range's active users and each
 * day's weekly active users answer as before the loss, and the restored sketches expire again.
 */
import { describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const RANGE = '/admin/v1/analytics?from=2026-03-02&to=2026-03-09';

describe('the analytics after a restore', () => {
  it('answers the distinct users as before Redis lost them', { timeout: 120_000 }, async () => {
    let s: TestServer = await startTestServer({ clock: 'manual', workers: true });
    const { prefix, adminKey } = s;
    const env = { LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey };
    try {
      await s.setClock('2026-03-02T10:00:00Z');
      await s.metrics('lessons');
      /** Day `n` of March: users `from` to `to` (exclusive) each send an event. */
      const day = async (n: number, from: number, to: number) => {
        await s.setClock(`2026-03-${String(n).padStart(2, '0')}T10:00:00Z`);
        for (let u = from; u < to; u++) await s.event('lessons', `u${u}`, 1);
      };
      await day(2, 0, 30);
      await day(3, 20, 50);
      await day(4, 40, 60);
      await s.workers!.testing.drainNow();
      expect(await s.workers!.testing.snapshotNow(true)).toMatchObject({ full: true });
      await day(6, 50, 80);
      await day(7, 0, 10);
      await s.workers!.testing.drainNow();
      const incremental = await s.workers!.testing.snapshotNow();
      expect(incremental).toMatchObject({ full: false });
      // The incremental snapshot copied the sketches of the days changed since the full one only.
      const pool = await connectPostgres(s.settings);
      try {
        const { rows } = await pool.query<{ key: string }>(
          `SELECT key FROM laurel_snapshot_keys WHERE prefix = $1 AND snapshot = $2 AND key LIKE '%:active:%' ORDER BY key`, [prefix, incremental!.id],
        );
        expect(rows.map((r) => r.key.slice(-10))).toEqual(['2026-03-06', '2026-03-07']);
      } finally {
        await pool.end();
      }
      // After the last snapshot: archived, not in it.
      await day(9, 75, 100);
      await s.workers!.testing.drainNow();
      const before = (await s.request('GET', RANGE)).body;
      // Estimates (HyperLogLog): near the users sent, as answered again after the restore.
      const near = (answered: number, sent: number) => Math.abs(answered - sent) <= Math.ceil(sent * 0.03);
      expect(near(before.activeUsers, 100), `${before.activeUsers} active users`).toBe(true);
      const weekly = before.days.map((d: { weeklyActiveUsers: number }) => d.weeklyActiveUsers) as number[];
      expect(weekly.every((n, i) => near(n, [30, 50, 60, 60, 80, 80, 80, 90][i])), weekly.join(' ')).toBe(true);
      await s.workers!.testing.configCopied(s.api.services.store.current.version);
      // Redis loses everything of the installation.
      await s.close();

      const restorePool = await connectPostgres(s.settings);
      try {
        expect(await restoreWith(loadSettings({ ...process.env, ...env }), createLogger('silent'), restorePool, false)).toMatchObject({ failed: 0 });
      } finally {
        await restorePool.end();
      }
      s = await startTestServer({ clock: 'manual', env });
      await s.setClock('2026-03-09T12:00:00Z');
      expect((await s.request('GET', RANGE)).body).toEqual(before);
      // Restored sketches expire again, as written ones do.
      const { redis, keys } = s.api.services;
      expect(await redis.ttl(keys.activeUsers('_', '2026-03-02'))).toBeGreaterThan(399 * 86_400);
      expect(await redis.ttl(keys.activeUsers('_', '2026-03-09'))).toBeGreaterThan(399 * 86_400);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
});
