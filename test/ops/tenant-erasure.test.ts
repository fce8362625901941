/**
 * A deleted tenant's erasure (DELETE /admin/v1/tenants), proved on single Redis and on the Cluster
 * with the workers running: the users of a tenant who touched many features (events with their
 * profile, a batch item, a freeze, an achievement with its email and webhook deliveries, points, a
 * board, a key scoped to one of them, a snapshot) go with the tenant; once its erasure is `done`,
 * no Redis key, field, member, list item or stream entry and no Postgres row of the installation
 * holds their ids, names or emails (nor an entry a worker's pass wrote of them after the deletion);
 * nor after `laurel restore`. Another tenant's users keep
 * everything. A deletion whose process died before the erasure's log entries is finished by the
 * workers a minute later; a record for a tenant that was not deleted is dropped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { restoreWith } from '../../src/engine/installation-check.js';
import { takeSnapshot } from '../../src/engine/durability/snapshot.js';
import { startTenantErasure } from '../../src/engine/erasure/tenant.js';
import { createLogger } from '../../src/lib/log.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { startReceiver } from '../support/receiver.js';
import { postgresTraces, redisTraces } from '../support/traces.js';
import { startMailCatcher } from '../support/smtp.js';
import { copyConfig } from '../../workers/config-copy.js';
import { LogDrainer } from '../../src/engine/log-drain/drain.js';
import { recordFinalised } from '../../src/engine/leaderboards/finalised.js';

const log = createLogger('silent');

describe.each(targets())('erasing a deleted tenant\'s users on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('leaves no trace of its users in Redis or Postgres, nor after a restore', { timeout: 180_000 }, async () => {
    const hook = await startReceiver();
    cleanups.push(() => hook.close());
    const mail = await startMailCatcher();
    cleanups.push(() => mail.stop());
    const env = { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1', LAUREL_SMTP_URL: mail.url };
    let s: TestServer = await startTestServer({ target, clock: 'manual', workers: true, env });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());
    const pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());

    const tag = prefix.slice(1);
    const ann = `ann-${tag}`;
    const abe = `abe-${tag}`;
    const bea = `bea-${tag}`;
    const needles = [ann, abe, `Ann ${tag}`, `Abe ${tag}`, `ann-${tag}@example.com`, `abe-${tag}@example.com`];

    await s.setClock('2026-03-02T08:00:00Z');
    const ids = await s.metrics('lessons');
    const setup = [
      await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 }] }),
      await s.request('PUT', '/admin/v1/streaks/settings', {
        body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 0, max: 3, autoEarnInterval: 7, autoEarnAmount: 1 } },
      }),
      await s.request('POST', '/admin/v1/points', {
        body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
      }),
      await s.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1 }],
      }),
      await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Hook', url: hook.url('/h'), events: ['achievement.completed', 'points.changed'] }] }),
      await s.request('PUT', '/admin/v1/notifications/settings', { body: { email: { from: 'Acme <hello@acme.test>' }, publicUrl: 'https://acme.test/laurel' } }),
      await s.request('POST', '/admin/v1/notifications/templates', {
        body: [{ key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Well done, {{ user.name }}!', text: 'Done.' }],
      }),
      await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `acme-${tag}`, name: 'Acme' }, { customerId: `beta-${tag}`, name: 'Beta' }] }),
    ];
    for (const r of setup) expect(r.status, r.text).toBeLessThan(300);
    const [acme, beta] = (setup[setup.length - 1].body.created as { id: string }[]).map((t) => t.id);
    // Tenant-ID names a tenant by its customer id; Beta's uuid only its erasure's record is read with.
    const [acmeRef, betaRef] = [`acme-${tag}`, `beta-${tag}`];
    await s.workers!.testing.timeIdle();

    const send = async (tenant: string, user: Record<string, unknown>, value: number) => {
      const r = await s.request('POST', '/api/metrics/lessons/event', { tenant, body: { user, value } });
      expect(r.status, r.text).toBe(201);
      return r.body;
    };
    // Acme's users: events with their profile, a batch item, a freeze, the achievement, points, the board, a key.
    await send(acmeRef, { id: ann, name: `Ann ${tag}`, email: `ann-${tag}@example.com`, tz: 'Europe/Paris' }, 1);
    await send(acmeRef, { id: abe, name: `Abe ${tag}`, email: `abe-${tag}@example.com` }, 2);
    await send(betaRef, { id: bea, name: `Bea ${tag}`, email: `bea-${tag}@example.com` }, 3);
    const batch = await s.request('POST', '/admin/v1/metrics/events', { tenant: acmeRef, body: [{ key: 'lessons', user: { id: ann }, value: 1 }] });
    expect(batch.status, batch.text).toBe(202);
    await s.workers!.testing.batchesNow();
    const freeze = await s.request('POST', '/admin/v1/streaks/freezes', { tenant: acmeRef, body: { freezes: [{ userId: abe }] } });
    expect(freeze.status, freeze.text).toBe(200);
    const third = await send(acmeRef, { id: ann }, 1);
    expect(third.achievements.map((a: { key: string }) => a.key)).toContain('three');
    const userKey = await s.request('POST', '/admin/v1/application-api-keys', { tenant: acmeRef, body: [{ userId: ann }] });
    expect(userKey.status, userKey.text).toBe(201);
    await s.setClock('2026-03-03T09:00:00Z');
    await send(acmeRef, { id: abe }, 2);
    await s.setClock('2026-03-04T14:00:00Z');
    await s.workers!.testing.finaliseNow();
    await s.workers!.testing.drainNow();
    await s.workers!.testing.webhooksNow();
    await expect.poll(() => hook.at('/h').length).toBeGreaterThan(0);
    await s.api.audit.settle();
    await s.workers!.testing.auditNow();
    await s.workers!.testing.snapshotNow(true);
    const before = await postgresTraces(pool, prefix, needles);
    for (const table of ['laurel_log', 'laurel_rollup_users', 'laurel_snapshot_users', 'laurel_deliveries', 'laurel_webhook_sent', 'laurel_audit']) {
      expect(before.some((t) => t.startsWith(`${table}:`)), `${table} holds Acme's users before`).toBe(true);
    }
    expect(await redisTraces(s.api.services.redis, prefix, needles)).not.toEqual([]);

    const del = await s.request('DELETE', `/admin/v1/tenants?ids=${acme}`);
    expect(del.status, del.text).toBe(200);
    expect(del.body.issues).toEqual([]);
    expect(del.body.deleted).toEqual([{ id: acme, erasureId: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    const { erasureId } = del.body.deleted[0] as { erasureId: string };
    // A worker's pass that read Acme's data before the deletion writes after it (a finalisation's
    // winners naming Ann): the erasure takes that entry off too.
    await recordFinalised(s.api.services, {
      t: acme, ts: Date.parse('2026-03-04T14:00:00Z'), b: setup[3].body.created[0].id, r: '2026-03-03', at: '2026-03-04T12:00:00.000Z',
      w: { '': [{ userId: ann, rank: 1, value: 2 }] },
    });
    const pending = await s.request('GET', `/admin/v1/erasures/${erasureId}`);
    expect(pending.status, pending.text).toBe(200);
    // The request walked no key: the workers remove them.
    expect(pending.body).toMatchObject({ status: 'pending', redisKeys: 0 });
    // Read without a tenant: not as another tenant's.
    expect((await s.request('GET', `/admin/v1/erasures/${erasureId}`, { tenant: betaRef })).status).toBe(404);
    expect(beta).not.toBe(acme);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return (await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status;
    }, { timeout: 30_000 }).toBe('done');
    const done = await s.request('GET', `/admin/v1/erasures/${erasureId}`);
    expect(done.body).toMatchObject({ id: erasureId, status: 'done' });
    expect(done.body.archivedEntries).toBeGreaterThanOrEqual(6);
    expect(done.body.postgresRows).toBeGreaterThan(0);
    expect(done.body.redisKeys).toBeGreaterThan(0);

    expect(await redisTraces(s.api.services.redis, prefix, needles)).toEqual([]);
    expect(await postgresTraces(pool, prefix, needles)).toEqual([]);
    // Nothing in Redis names the tenant but the erasure's record and the log entries saying it was
    // erased (a points.changed window's notes and a board's state hash included).
    const naming = (await redisTraces(s.api.services.redis, prefix, [acme]))
      .filter((t) => !t.startsWith(`${s.api.services.keys.erasure(erasureId)}:`) && !/"x":"[0-9a-f-]{36}"/.test(t));
    expect(naming).toEqual([]);
    // The archive keeps what holds no user: Acme's events as redacted entries naming the erasure.
    const { rows: redacted } = await pool.query(
      `SELECT count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND tenant = $2 AND kind = 'redacted' AND body->>'x' = $3`, [prefix, acme, erasureId],
    );
    expect(redacted[0].n).toBeGreaterThanOrEqual(done.body.archivedEntries as number);
    // Beta's user keeps everything.
    const kept = await s.request('GET', `/api/users/${bea}/metrics`, { tenant: betaRef });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body[0].current).toBe(3);
    expect((await s.request('GET', `/api/users/${bea}`, { tenant: betaRef })).body.email).toBe(`bea-${tag}@example.com`);

    // Redis lost: restored from the snapshot and the archive, Acme's users stay gone.
    await s.close();
    await restoreWith(s.settings, log, pool, false);
    s = await startTestServer({ target, clock: 'manual', env: { ...env, LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey } });
    expect(await redisTraces(s.api.services.redis, prefix, needles)).toEqual([]);
    await s.setClock('2026-03-04T15:00:00Z');
    const restored = await s.request('GET', `/api/users/${bea}/metrics`, { tenant: betaRef });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body[0].current).toBe(3);
  });

  it('is finished by the workers when the deleting process died, and dropped when the tenant stayed', { timeout: 120_000 }, async () => {
    const s = await startTestServer({ target, clock: 'manual', workers: true });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const svc = s.api.services;
    const tag = s.prefix.slice(1);
    const cy = `cy-${tag}`;
    await s.setClock('2026-03-02T08:00:00Z');
    await s.metrics('lessons');
    const created = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `gone-${tag}`, name: 'Gone' }, { customerId: `kept-${tag}`, name: 'Kept' }] });
    expect(created.status, created.text).toBe(201);
    const [gone, kept] = (created.body.created as { id: string }[]).map((t) => t.id);
    for (const tenant of [`gone-${tag}`, `kept-${tag}`]) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { tenant, body: { user: { id: cy, name: `Cy ${tag}` }, value: 1 } });
      expect(r.status, r.text).toBe(201);
    }
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      const { rows } = await s.workers!.pool.query('SELECT 1 FROM laurel_rollup_users WHERE prefix = $1 AND tenant = $2', [s.prefix, gone]);
      return rows.length;
    }, { timeout: 20_000 }).toBe(1);

    // A deletion whose process died after the tenant went, before its log entries; and one whose
    // delete failed after the record was written (the tenant is still there).
    const died = await startTenantErasure(svc, gone);
    expect(await svc.store.delete('tenants', gone)).toBe(true);
    const failed = await startTenantErasure(svc, kept);
    await s.workers!.services.store.reload();
    await s.workers!.testing.erasuresNow();
    expect(await svc.redis.hget(svc.keys.erasure(died), 's')).toBe('pending');
    expect(await svc.redis.exists(svc.keys.erasure(failed))).toBe(1);

    await s.setClock('2026-03-02T08:01:01Z');
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return (await s.request('GET', `/admin/v1/erasures/${died}`)).body.status;
    }, { timeout: 30_000 }).toBe('done');
    expect((await s.request('GET', `/admin/v1/erasures/${died}`)).body.archivedEntries).toBeGreaterThan(0);
    expect(await svc.redis.exists(svc.keys.erasure(failed))).toBe(0);
    expect(await svc.redis.sismember(svc.keys.erasuresPending, failed)).toBe(0);
    const { rows } = await s.workers!.pool.query(
      `SELECT tenant FROM laurel_events WHERE prefix = $1 AND user_id = $2 AND kind <> 'redacted'`, [s.prefix, cy],
    );
    expect(rows.map((r) => r.tenant)).toEqual([kept]);
    const { rows: directory } = await s.workers!.pool.query('SELECT tenant FROM laurel_rollup_users WHERE prefix = $1 AND user_id = $2', [s.prefix, cy]);
    expect(directory.map((r) => r.tenant)).toEqual([kept]);
    expect((await s.request('GET', `/api/users/${cy}`, { tenant: `kept-${tag}` })).status).toBe(200);
  });

  it('brings none of its users back in a restore before the workers erased them', { timeout: 120_000 }, async () => {
    // No workers: the log is drained and the configuration copied here, and no erasure pass runs.
    let s = await startTestServer({ target, clock: 'manual' });
    const { prefix, adminKey } = s;
    cleanups.push(() => deletePostgresRows(s.settings, [prefix]));
    cleanups.push(() => s.close());
    const pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());
    const tag = prefix.slice(1);
    const dee = `dee-${tag}`;
    await s.setClock('2026-03-02T08:00:00Z');
    await s.metrics('lessons');
    const created = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `old-${tag}`, name: 'Old' }, { customerId: `new-${tag}`, name: 'New' }] });
    expect(created.status, created.text).toBe(201);
    const [old] = (created.body.created as { id: string }[]).map((t) => t.id);
    const send = async (tenant: string, value: number) => {
      const r = await s.request('POST', '/api/metrics/lessons/event', { tenant, body: { user: { id: dee, name: `Dee ${tag}` }, value } });
      expect(r.status, r.text).toBe(201);
    };
    await send(`old-${tag}`, 1);
    await send(`new-${tag}`, 2);
    const drainer = new LogDrainer(s.api.services, pool);
    await drainer.drain();
    // The snapshot holds both users; then one more event of the deleted tenant's user after it.
    await takeSnapshot(s.api.services, pool, true);
    await s.setClock('2026-03-02T09:00:00Z');
    await send(`old-${tag}`, 4);
    const del = await s.request('DELETE', `/admin/v1/tenants?ids=${old}`);
    expect(del.status, del.text).toBe(200);
    const { erasureId } = del.body.deleted[0] as { erasureId: string };
    await expect.poll(async () => {
      await drainer.drain();
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND kind = 'erased' AND body->>'x' = $2`, [prefix, erasureId],
      );
      return rows[0].n;
    }, { timeout: 20_000 }).toBe(s.api.services.keys.partitions);
    expect((await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status).toBe('pending');
    await copyConfig(s.api.services, pool);

    await s.close();
    await restoreWith(s.settings, log, pool, false);
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey } });
    // Nothing of the tenant's but its erasure's record, pending again: the workers finish it.
    expect(await redisTraces(s.api.services.redis, prefix, [old])).toEqual([`${s.api.services.keys.erasure(erasureId)}: ${old}`]);
    await s.setClock('2026-03-02T10:00:00Z');
    const kept = await s.request('GET', `/api/users/${dee}/metrics`, { tenant: `new-${tag}` });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body[0].current).toBe(2);
    expect((await s.request('GET', `/api/users/${dee}`, { tenant: `old-${tag}` })).status).toBe(404);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return (await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status;
    }, { timeout: 30_000 }).toBe('done');
    for (const table of ['laurel_events', 'laurel_snapshot_users', 'laurel_rollup_users']) {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE prefix = $1 AND tenant = $2 AND user_id = $3`, [prefix, old, dee]);
      expect(rows[0].n, table).toBe(0);
    }
  });
});
