/**
 * Exporting a user (GET /admin/v1/users/{id}/export), on single Redis and on the Cluster with the
 * workers running, then stopped: a user with events (archived by the drainer, and later ones only
 * in the partition's log), a batch item, an achievement, a streak, points (time awards among them),
 * board places, a league's cohorts and tier, a finished run won, a notification delivery and a
 * webhook delivery gets one JSON document
 * holding each, every log entry once and in order, and nothing of another user; a user with many
 * archived entries (written into the archive) gets them all, the answer chunked, and a client that
 * goes away mid-way leaves the server serving; a key bound to another tenant, an unknown user and
 * an erased user get 404.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type pg from 'pg';
import { connectPostgres } from '../../src/postgres/pool.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { emailOnCompletion } from '../support/admin.js';
import { startReceiver } from '../support/receiver.js';

interface ExportedEvent { id: string; kind: string; at: string | null; body: Record<string, unknown> }

/** The export as a raw fetch gives it: status, headers and the parsed document (the text when it is none). */
async function exportOf(s: TestServer, userId: string, key = s.adminKey) {
  const res = await fetch(`${s.url}/admin/v1/users/${encodeURIComponent(userId)}/export`, { headers: { 'x-api-key': key } });
  const text = await res.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* the text */ }
  return { status: res.status, headers: res.headers, text, body };
}

/** The stream ids in order? */
function ascending(ids: string[]): boolean {
  const n = (id: string) => id.split('-').map(BigInt);
  for (let i = 1; i < ids.length; i++) {
    const [am, as] = n(ids[i - 1]);
    const [bm, bs] = n(ids[i]);
    if (am > bm || (am === bm && as >= bs)) return false;
  }
  return true;
}

describe.each(targets())('exporting a user on %s', (target) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('holds everything about the user and nothing of anyone else', { timeout: 120_000 }, async () => {
    const hook = await startReceiver();
    cleanups.push(() => hook.close());
    const s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const pool: pg.Pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());

    const tag = s.prefix.slice(1);
    const ada = `ada-${tag}`;
    const other = `bo-${tag}`;
    const otherName = `Bo Other ${tag}`;
    const otherEmail = `bo-${tag}@example.com`;

    await s.setClock('2026-03-02T08:00:00Z');
    const ids = await s.metrics('lessons');
    const ach = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 }],
    });
    expect(ach.status, ach.text).toBe(201);
    const streak = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] } });
    expect(streak.status, streak.text).toBe(200);
    const xp = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(xp.status, xp.text).toBe(201);
    // Points by time: a day's award for each day a user has been there.
    const days = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'Days', key: 'days', triggers: [{ type: 'time', timeUnit: 'days', timeInterval: 1, points: 5, status: 'active' }] }],
    });
    expect(days.status, days.text).toBe(201);
    // An email for a completed achievement: a notification delivery once the drain reads the completion.
    await emailOnCompletion(s);
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, runUnit: 'day', runInterval: 1 },
        {
          name: 'League', key: 'league', status: 'active', rankBy: 'metric', metricId: ids.lessons, start: '2026-01-01', runUnit: 'day', runInterval: 1,
          // Promoting 3 of 5: a cohort of two promotes its first (3 × 2 ÷ 5 rounded down).
          league: { tiers: [{ key: 'bronze', name: 'Bronze', promote: 3, demote: 0 }, { key: 'silver', name: 'Silver', promote: 0, demote: 1 }], cohortSize: 5 },
        },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
    const webhook = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Hook', url: hook.url('/h'), events: ['achievement.completed'] }] });
    expect(webhook.status, webhook.text).toBe(201);
    await s.workers!.testing.timeIdle();

    // Ada's events (one of a batch), archived; Bo's beside them.
    const eventIds: string[] = [];
    eventIds.push((await s.event('lessons', { id: ada, name: 'Ada', email: `ada-${tag}@example.com`, tz: 'Europe/Paris' }, 1)).eventId);
    await s.event('lessons', { id: other, name: otherName, email: otherEmail }, 7);
    const batch = await s.request('POST', '/admin/v1/metrics/events', { body: [{ key: 'lessons', user: { id: ada }, value: 1 }] });
    expect(batch.status, batch.text).toBe(202);
    await s.workers!.testing.batchesNow();
    const third = await s.event('lessons', ada, 1);
    eventIds.push(third.eventId);
    expect(third.achievements.map((a: { key: string }) => a.key)).toContain('three');
    await s.setClock('2026-03-03T09:00:00Z');
    eventIds.push((await s.event('lessons', ada, 2)).eventId);
    await s.event('lessons', other, 1);
    // Bo, first of the 2nd, leaves bronze for silver: Ada ranks first of two in bronze-1 of the 3rd.
    await s.event('lessons', `cy-${tag}`, 1);
    // The run of 2026-03-02 finished everywhere, finalised: Ada came second.
    await s.setClock('2026-03-04T14:00:00Z');
    await s.workers!.testing.accrueNow();
    await s.workers!.testing.finaliseNow();
    await s.workers!.testing.webhooksNow();
    await expect.poll(() => hook.at('/h').length, { timeout: 20_000 }).toBeGreaterThan(0);
    const archivedEvents = async (user: string) => (await pool.query(
      "SELECT body->>'e' AS e FROM laurel_events WHERE prefix = $1 AND user_id = $2 AND kind = 'event'", [s.prefix, user],
    )).rows.map((r: { e: string }) => r.e);
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      return (await archivedEvents(ada)).length;
    }, { timeout: 20_000 }).toBe(4);
    // The completions' emails scheduled (Ada's and Bo's), read through the Admin API.
    const scheduled = async (user: string) => (await s.request('GET', `/admin/v1/notifications/deliveries?userId=${encodeURIComponent(user)}`)).body as { id: string }[];
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      return [(await scheduled(ada)).length, (await scheduled(other)).length];
    }, { timeout: 20_000 }).toEqual([1, 1]);
    const adaTimeAwards = (await s.request('GET', `/api/users/${ada}/points/days?awards=100`)).body as { total: number; awards: { trigger: { type: string } }[] };
    expect(adaTimeAwards.awards.length).toBeGreaterThan(0);
    for (const a of adaTimeAwards.awards) expect(a.trigger.type).toBe('time');
    const boTimeAwards = (await s.request('GET', `/api/users/${other}/points/days?awards=100`)).body as { awards: unknown[] };
    expect(boTimeAwards.awards.length).toBeGreaterThan(0);

    // A key scoped to Ada and a boost for her alone; the Admin API's writes that named her, audited.
    const key = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: ada }] });
    expect(key.status, key.text).toBe(201);
    const boost = await s.request('POST', `/admin/v1/points/${xp.body.created[0].id}/boosts`, {
      body: [{ name: 'Ada alone', start: '2026-04-01', multiplier: 2, userId: ada }],
    });
    expect(boost.status, boost.text).toBe(201);
    await s.api.audit.settle();
    await s.workers!.testing.auditNow();
    // The workers stopped: Ada's next events stay in the partition's log only.
    await s.workers!.close();
    s.workers = null;
    eventIds.push((await s.event('lessons', ada, 5)).eventId);
    eventIds.push((await s.event('lessons', ada, 1)).eventId);
    expect(await archivedEvents(ada)).toHaveLength(4);

    const ex = await exportOf(s, ada);
    expect(ex.status, ex.text).toBe(200);
    expect(ex.headers.get('content-type')).toBe('application/json');
    const doc = ex.body;
    expect(doc.exportedAt).toBe('2026-03-04T14:00:00.000Z');
    expect(doc.user).toMatchObject({ id: ada, name: 'Ada', email: `ada-${tag}@example.com`, tz: 'Europe/Paris' });
    expect(doc.preferences).toEqual({ notifications: {} });
    expect(doc.metrics).toEqual([{ id: ids.lessons, key: 'lessons', name: 'Metric lessons', total: 11, days: { '2026-03-02': 3, '2026-03-03': 2, '2026-03-04': 6 } }]);
    expect(doc.achievements).toEqual([expect.objectContaining({ key: 'three', name: 'Three' })]);
    expect(doc.streak).toMatchObject({ length: 3 });
    expect(doc.streak.streakHistory.length).toBeGreaterThan(0);
    expect(doc.points.map((p: { key: string }) => p.key).sort()).toEqual(['days', 'xp']);
    const exportedXp = doc.points.find((p: { key: string }) => p.key === 'xp');
    expect(exportedXp).toMatchObject({ key: 'xp', total: 110 });
    expect(exportedXp.awards).toHaveLength(6);
    expect(exportedXp.days).toEqual({ '2026-03-02': 30, '2026-03-03': 50, '2026-03-04': 110 });
    // The time awards: each of Ada's, with its trigger, as her own read gives them.
    const exportedDays = doc.points.find((p: { key: string }) => p.key === 'days');
    expect(exportedDays.total).toBe(adaTimeAwards.total);
    expect(exportedDays.awards).toHaveLength(adaTimeAwards.awards.length);
    for (const a of exportedDays.awards) expect(a).toMatchObject({ trigger: { type: 'time' } });
    // The notification delivery to Ada, and none to Bo.
    const [adaEmail] = await scheduled(ada);
    const [boEmail] = await scheduled(other);
    expect(doc.notifications).toEqual([expect.objectContaining({ id: adaEmail.id, userId: ada, channel: 'email' })]);
    expect(ex.text).not.toContain(boEmail.id);
    const places = doc.leaderboards.map((p: { key: string; run: string; rank: number; value: number }) => [p.key, p.run, p.rank, p.value]);
    expect(places).toEqual(expect.arrayContaining([['daily', '2026-03-02', 2, 3], ['daily', '2026-03-03', 1, 2], ['daily', '2026-03-04', 1, 6]]));
    expect(doc.leaderboardWins).toEqual(expect.arrayContaining([{ leaderboardId: boards.body.created[0].id, key: 'daily', name: 'Daily', run: '2026-03-02', group: '', rank: 2, value: 3 }]));
    // The league: Ada's cohort of each run she played, and the tier she carries (first on the 3rd, she
    // went up: the run of the 3rd was final, every zone done with it, before her events of the 4th).
    const cohorts = doc.leaderboards.filter((p: { key: string }) => p.key === 'league')
      .map((p: { run: string; cohort: unknown; rank: number; value: number }) => [p.run, p.cohort, p.rank, p.value]);
    expect(cohorts).toEqual(expect.arrayContaining([['2026-03-02', { tier: 0, n: 0, id: 'bronze-1' }, 2, 3], ['2026-03-04', { tier: 1, n: 0, id: 'silver-1' }, 1, 6]]));
    expect(doc.leagues).toEqual([{
      leaderboardId: boards.body.created[1].id, key: 'league', tier: 1, tierKey: 'silver', run: '2026-03-04', runTier: 1, cohort: 0, cohortId: 'silver-1',
    }]);
    expect(doc.keys).toEqual([{ id: key.body.created[0].id, created: expect.any(String) }]);
    expect(doc.boosts).toEqual([expect.objectContaining({ id: boost.body.created[0].id, name: 'Ada alone', userId: ada })]);
    // The batch, the key and the boost: the writes that named her (what her erasure rewrites).
    expect(doc.audit.map((a: { operation: string }) => a.operation)).toEqual([
      'POST /admin/v1/metrics/events', 'POST /admin/v1/application-api-keys', 'POST /admin/v1/points/{systemId}/boosts',
    ]);
    expect(doc.webhookDeliveries.length).toBeGreaterThan(0);
    for (const d of doc.webhookDeliveries) expect(d).toMatchObject({ userId: ada, type: 'achievement.completed' });

    // Every entry once, in order: the archived ones and those only in Redis, the batch item among them.
    const events = doc.events as ExportedEvent[];
    expect(ascending(events.map((e) => e.id))).toBe(true);
    const exported = events.filter((e) => e.kind === 'event').map((e) => e.body.e as string);
    expect(exported).toHaveLength(6);
    for (const id of eventIds) expect(exported).toContain(id);
    expect(events.filter((e) => e.kind === 'event' && typeof e.body.b === 'string')).toHaveLength(1);
    for (const e of events) expect(e.body).toMatchObject({ u: ada });
    expect(events.at(-1)!.at).toBe('2026-03-04T14:00:00.000Z');
    // Nothing of Bo's anywhere.
    for (const secret of [other, otherName, otherEmail]) expect(ex.text).not.toContain(secret);
    // Bo's export holds Bo and not Ada.
    const bo = await exportOf(s, other);
    expect(bo.status, bo.text).toBe(200);
    expect(bo.body.events.filter((e: ExportedEvent) => e.kind === 'event').map((e: ExportedEvent) => e.body.v)).toEqual([7, 1]);
    expect(bo.text).not.toContain(ada);

    // Bad ids and unknown users.
    expect((await exportOf(s, 'x'.repeat(300))).status).toBe(400);
    const unknown = await exportOf(s, `nobody-${tag}`);
    expect(unknown.status, unknown.text).toBe(404);
    expect(unknown.body.code).toBe('user_not_found');

    // A key bound to another tenant: Ada is not its tenant's.
    const tenant = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `other-${tag}`, name: 'Other' }] });
    expect(tenant.status, tenant.text).toBe(201);
    const bound = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: `other-${tag}`, name: 'Other admin' } });
    expect(bound.status, bound.text).toBe(201);
    const outside = await exportOf(s, ada, bound.body.key);
    expect(outside.status, outside.text).toBe(404);
    expect(outside.text).not.toContain('Ada');

    // Erased: gone at once.
    const erase = await s.request('DELETE', `/admin/v1/users/${ada}`);
    expect(erase.status, erase.text).toBe(202);
    const erased = await exportOf(s, ada);
    expect(erased.status, erased.text).toBe(404);
    expect(erased.body.code).toBe('user_not_found');
  });

  it('streams a user\'s many archived entries, all of them in order', { timeout: 120_000 }, async () => {
    const s = await startTestServer({ target, clock: 'manual' });
    cleanups.push(() => deletePostgresRows(s.settings, [s.prefix]));
    cleanups.push(() => s.close());
    const pool: pg.Pool = await connectPostgres(s.settings);
    cleanups.push(() => pool.end());
    await s.setClock('2026-03-02T08:00:00Z');
    await s.metrics('lessons');
    const user = `many-${s.prefix}`;
    await s.event('lessons', user, 1);
    // 300 batches of 100 entries in the user's partition (more than one window of the reads), every
    // other entry another user's, archived before the cursor as the drainer writes them.
    const partition = s.api.services.keys.partitionOf('_', user);
    const BATCHES = 300;
    const PER = 100;
    for (let b = 0; b < BATCHES; b++) {
      const lines: string[] = [];
      for (let i = 0; i < PER; i++) {
        const ms = 1_700_000_000_000 + b * PER + i;
        const who = i % 2 === 0 ? user : `someone-else-${s.prefix}`;
        lines.push(`${ms}-100000${String(partition).padStart(5, '0')}\tevent\t${JSON.stringify({ e: `e-${b}-${i}`, t: '_', u: who, m: 'x', v: i, ts: ms })}`);
      }
      const first = lines[0].split('\t')[0];
      const last = lines[PER - 1].split('\t')[0];
      await pool.query(
        `INSERT INTO laurel_log (prefix, partition, first_id, last_id, entries, first_at, last_at, lines, rolled)
         VALUES ($1, $2, $3, $4, $5, now(), now(), $6, true)`,
        [s.prefix, partition, first, last, PER, lines.join('\n')],
      );
    }
    await pool.query(
      `INSERT INTO laurel_log_cursor (prefix, partition, last_id) VALUES ($1, $2, $3)
       ON CONFLICT (prefix, partition) DO NOTHING`,
      [s.prefix, partition, `${1_700_000_000_000 + BATCHES * PER}-0`],
    );
    const ex = await exportOf(s, user);
    expect(ex.status, ex.text.slice(0, 300)).toBe(200);
    expect(ex.headers.get('transfer-encoding')).toBe('chunked');
    const events = ex.body.events as ExportedEvent[];
    // The archived half that is theirs, then the event only Redis holds.
    expect(events).toHaveLength(BATCHES * PER / 2 + 1);
    expect(ascending(events.map((e) => e.id))).toBe(true);
    expect(events.slice(0, -1).map((e) => e.body.e)).toEqual(
      Array.from({ length: BATCHES }, (_, b) => Array.from({ length: PER / 2 }, (_, i) => `e-${b}-${2 * i}`)).flat(),
    );
    expect(ex.text).not.toContain('someone-else');

    // A client that goes away after the first chunk: the server stops writing and serves on.
    const firstChunk = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/admin/v1/users/${encodeURIComponent(user)}/export`, { headers: { 'x-api-key': s.adminKey } }, (res) => {
        res.once('data', (chunk: Buffer) => { resolve(chunk.length); req.destroy(); });
      });
      req.on('error', (err) => { if (!req.destroyed) reject(err); });
      req.end();
    });
    expect(firstChunk).toBeGreaterThan(0);
    const again = await exportOf(s, user);
    expect(again.status).toBe(200);
    expect(again.body.events).toHaveLength(BATCHES * PER / 2 + 1);
  });
});
