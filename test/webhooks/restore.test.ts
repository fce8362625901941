/**
 * Webhooks across a restore: what the log drain noted for later (a points.changed window, a
 * streak's expiry for streak.lost) after the last snapshot is noted again from the archived log, so
 * Redis losing everything loses none of those deliveries, and sends none twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreate, putStreakSettings } from '../support/admin.js';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, deletePrefix, startTestServer, type TestServer } from '../support/server.js';

const log = createLogger('silent');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

describe('webhooks across a restore', () => {
  it('sends the points.changed and streak.lost noted after the last snapshot, once each', { timeout: 60_000 }, async () => {
    const hook = await startReceiver();
    cleanups.push(() => hook.close());
    let s: TestServer = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());
    await s.setClock('2026-05-01T10:00:00Z');
    const ids = await s.metrics('lessons');
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    await adminCreate(s, '/admin/v1/points', [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] } as never]);
    const created = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Kept', url: hook.url('/kept'), events: ['points.changed', 'streak.lost'] }] });
    expect(created.status, created.text).toBe(201);

    // ann before the snapshot, bob after it; both drained (noted), nothing due yet.
    await s.event('lessons', 'ann', 1);
    await s.workers!.testing.drainNow();
    await s.workers!.testing.snapshotNow(true);
    await s.setClock('2026-05-01T10:05:00Z');
    await s.event('lessons', 'bob', 1);
    await s.event('lessons', 'bob', 1);
    await s.workers!.testing.drainNow();
    await s.workers!.testing.webhooksNow();
    expect(hook.at('/kept')).toEqual([]);

    // Redis loses everything of the installation; restored from Postgres.
    await s.workers!.close();
    await s.api.close();
    await deletePrefix(s.settings, prefix);
    const env = { LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey, LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' };
    const pool = await connectPostgres(s.settings);
    try {
      expect(await restoreWith(loadSettings({ ...process.env, ...env }), log, pool, false)).toMatchObject({ failed: 0 });
    } finally {
      await pool.end();
    }

    s = await startTestServer({ clock: 'manual', env });
    await s.setClock('2026-05-01T10:15:00Z');
    const workers = await startWorkers(s.settings, log, s.api.services);
    cleanups.push(() => workers.close());
    const work = async () => { await workers.testing.drainNow(); await workers.testing.webhooksNow(); };
    await work();
    const changed = hook.at('/kept').map((r) => JSON.parse(r.body) as { type: string; user: { id: string }; points: { total: number } });
    expect(changed.map((b) => [b.type, b.user.id, b.points.total]).sort()).toEqual([['points.changed', 'ann', 10], ['points.changed', 'bob', 20]]);

    // Neither streak extended the next day: both lost, once each.
    await s.setClock('2026-05-03T00:00:01Z');
    await work();
    await work();
    const lost = hook.at('/kept').slice(2).map((r) => JSON.parse(r.body) as { type: string; user: { id: string } });
    expect(lost.map((b) => [b.type, b.user.id]).sort()).toEqual([['streak.lost', 'ann'], ['streak.lost', 'bob']]);
    expect(new Set(hook.at('/kept').map((r) => r.headers['webhook-id'])).size).toBe(4);
  });
});
