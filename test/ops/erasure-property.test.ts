/**
 * An erasure leaves no trace, as a property (docs/api.md, "Erasing a user"), on single Redis and
 * on the Cluster with the workers and the manual clock: random workloads (fast-check) over every
 * feature a user touches (events with their profile and device tokens, batches, some still queued
 * at the erasure, an API completion and its email, a streak with freezes, pauses, resets and a
 * streak board, points with a per-user boost and time awards, boards of every kind: daily and
 * perpetual, capped and uncapped, sharded, grouped by an attribute, a league, a points board; runs
 * finalised with their winners; an exclusion, a void, a revoke, preferences, a key scoped to the
 * user, webhooks), then the user erased, or the tenant they belong to deleted, and the workers run
 * until it is `done`; then a scan of every Redis key, hash field, set and sorted-set member, list
 * element and stream entry, and of every Postgres table as text (snapshots included), finds none of
 * their id, email, name or device token (nor, in Redis, the deleted tenant's id); another user keeps
 * theirs. The user's export taken before the erasure lists what it then
 * removes: the audit entries it rewrote, the keys scoped to them, their boosts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { connectPostgres } from '../../src/postgres/pool.js';
import { emailOnCompletion } from '../support/admin.js';
import { startReceiver } from '../support/receiver.js';
import { postgresTraces, redisTraces } from '../support/traces.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

type Who = 'victim' | 'keeper';

/** One step of a workload. */
type Step =
  | { op: 'event'; who: Who; metric: 'lessons' | 'quizzes'; value: number; profile: boolean; plan: 'pro' | 'free' }
  | { op: 'batch'; who: Who; value: number; apply: boolean }
  | { op: 'complete' | 'freeze' | 'pause' | 'reset' | 'boost' | 'exclude' | 'include' | 'void' | 'revoke' | 'preferences' | 'key' }
  | { op: 'hours'; n: number }
  | { op: 'finalise' | 'accrue' | 'snapshot' | 'drain' };

const who = fc.constantFrom<Who>('victim', 'victim', 'keeper');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('event' as const), who, metric: fc.constantFrom('lessons' as const, 'quizzes' as const), value: fc.integer({ min: 1, max: 4 }), profile: fc.boolean(), plan: fc.constantFrom('pro' as const, 'free' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('batch' as const), who, value: fc.integer({ min: 1, max: 3 }), apply: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constantFrom('complete' as const, 'freeze' as const, 'pause' as const, 'reset' as const, 'boost' as const, 'exclude' as const, 'include' as const, 'void' as const, 'revoke' as const, 'preferences' as const, 'key' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('hours' as const), n: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('finalise' as const, 'accrue' as const, 'snapshot' as const, 'drain' as const) }) },
);

describe.each(targets())('an erasure as a property on %s', (target) => {
  let s: TestServer;
  let pool: pg.Pool;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let run = 0;
  let xp = '';
  let clock = Date.parse('2026-05-04T08:00:00Z');

  const ok = (r: { status: number; text: string }) => expect(r.status, r.text).toBeLessThan(300);
  /** The installation's audit rows, id -> ids and body as text. */
  const auditRows = async () => new Map((await pool.query<{ id: string; text: string }>(
    'SELECT id, ids::text || body::text AS text FROM laurel_audit WHERE prefix = $1', [s.prefix],
  )).rows.map((r) => [r.id, r.text]));

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1', LAUREL_SNAPSHOT_RUN_KEYS: '0' } });
    pool = await connectPostgres(s.settings);
    await s.setClock(new Date(clock).toISOString());
    const ids = await s.metrics('lessons', 'quizzes');
    await s.attributes('user', 'plan');
    ok(await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'Three', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 },
        { name: 'Bonus', key: 'bonus', trigger: 'api' },
      ],
    }));
    ok(await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 1, max: 3, autoEarnInterval: 2, autoEarnAmount: 1 } },
    }));
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [
        { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' },
        { type: 'time', timeUnit: 'hours', timeInterval: 6, points: 1, status: 'active' },
      ] }],
    });
    ok(points);
    xp = points.body.created[0].id;
    const league = { cohortSize: 3, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1, demote: 0 }, { key: 'silver', name: 'Silver', promote: 0, demote: 1 }] };
    ok(await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 3, runUnit: 'day', runInterval: 1 },
        { name: 'Everyone', key: 'everyone', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: null },
        { name: 'Sharded', key: 'sharded', status: 'active', rankBy: 'metric', metricId: ids.quizzes, maxParticipants: null, shards: 4 },
        { name: 'By plan', key: 'by-plan', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 5, breakdownAttributes: ['plan'] },
        { name: 'League', key: 'league', status: 'active', rankBy: 'metric', metricId: ids.lessons, runUnit: 'day', runInterval: 1, league },
        { name: 'Streaks', key: 'streaks', status: 'active', rankBy: 'streak', maxParticipants: 10 },
        { name: 'XP daily', key: 'xp-daily', status: 'active', rankBy: 'points', pointsSystemId: xp, maxParticipants: 10, runUnit: 'day', runInterval: 1 },
      ],
    }));
    ok(await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'All', url: hook.url('/h'), events: ['*'] }] }));
    await emailOnCompletion(s);
  });
  afterAll(async () => {
    await s?.close();
    await pool?.end();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('leaves no trace of the user, or of a deleted tenant\'s users, whatever they did', { timeout: 900_000 }, async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 18 }), fc.boolean(), async (steps, byTenant) => {
      run++;
      const tag = `${s.prefix.slice(1)}r${run}`;
      const victim = { id: `vic-${tag}`, email: `vic-${tag}@example.com`, name: `Vic ${tag}`, token: `tok-${tag}` };
      const keeper = `kep-${tag}`;
      // Deleting a tenant: the victim acts as a user of a tenant of their own (named by its customer
      // id), the keeper as one of the installation's; otherwise both are the installation's.
      let tenantId = '';
      if (byTenant) {
        const made = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `cust-${tag}`, name: `Tenant ${tag}` }] });
        ok(made);
        tenantId = made.body.created[0].id;
      }
      const as = (w: Who) => (w === 'victim' && byTenant ? { tenant: `cust-${tag}` } : {});
      const send = (method: string, path: string, body?: unknown) => s.request(method, path, { ...as('victim'), body });
      const idOf = (w: Who) => (w === 'victim' ? victim.id : keeper);
      const events: string[] = [];
      // The victim exists from the start, with their profile.
      const first = await send('POST', '/api/metrics/lessons/event', { user: { id: victim.id, email: victim.email, name: victim.name, deviceTokens: [victim.token] }, value: 1 });
      ok(first);
      events.push(first.body.eventId);
      await s.event('lessons', keeper, 1);
      for (const x of steps) {
        switch (x.op) {
          case 'event': {
            const user: Record<string, unknown> = { id: idOf(x.who), attributes: { plan: x.plan } };
            if (x.profile && x.who === 'victim') Object.assign(user, { email: victim.email, name: victim.name, deviceTokens: [victim.token] });
            const r = await s.request('POST', `/api/metrics/${x.metric}/event`, { ...as(x.who), body: { user, value: x.value } });
            ok(r);
            if (x.who === 'victim') events.push(r.body.eventId);
            break;
          }
          case 'batch': {
            const user = x.who === 'victim' ? { id: victim.id, name: victim.name } : { id: keeper };
            ok(await s.request('POST', '/admin/v1/metrics/events', { ...as(x.who), body: [{ key: 'lessons', user, value: x.value }] }));
            if (x.apply) await s.workers!.testing.batchesNow();
            break;
          }
          case 'complete':
            ok(await send('POST', '/api/achievements/bonus/complete', { user: { id: victim.id } }));
            break;
          case 'freeze':
            ok(await send('POST', '/admin/v1/streaks/freezes', { freezes: [{ userId: victim.id }] }));
            break;
          case 'pause': {
            const day = new Date(clock + 86_400_000 * 3).toISOString().slice(0, 10);
            ok(await send('POST', '/admin/v1/streaks/pauses', { pauses: [{ userId: victim.id, start: day, end: day }] }));
            break;
          }
          case 'reset':
            ok(await send('POST', '/admin/v1/streaks/reset', { users: [{ id: victim.id }] }));
            break;
          case 'boost': {
            const day = new Date(clock).toISOString().slice(0, 10);
            ok(await send('POST', `/admin/v1/points/${xp}/boosts`, [{ name: `For ${victim.name}`, start: day, multiplier: 2, userId: victim.id }]));
            break;
          }
          case 'exclude':
            ok(await send('PUT', `/admin/v1/users/${victim.id}/exclusion`, { reason: `farming by ${victim.email}` }));
            break;
          case 'include':
            expect((await send('DELETE', `/admin/v1/users/${victim.id}/exclusion`)).status).toBeLessThan(500);
            break;
          case 'void':
            ok(await send('POST', '/admin/v1/events/void', [{ eventId: events[0], reason: 'test', userId: victim.id }]));
            break;
          case 'revoke':
            expect((await send('DELETE', `/admin/v1/users/${victim.id}/achievements/three`)).status).toBeLessThan(500);
            break;
          case 'preferences':
            ok(await send('PATCH', `/api/users/${victim.id}/preferences`, { notifications: { recap: ['email'] } }));
            break;
          case 'key':
            ok(await send('POST', '/admin/v1/application-api-keys', [{ userId: victim.id }]));
            break;
          case 'hours':
            clock += x.n * 3_600_000;
            await s.setClock(new Date(clock).toISOString());
            break;
          case 'finalise':
            await s.workers!.testing.finaliseNow();
            break;
          case 'accrue':
            await s.workers!.testing.accrueNow();
            break;
          case 'snapshot':
            await s.workers!.testing.snapshotNow(true);
            break;
          case 'drain':
            await s.workers!.testing.drainNow();
            await s.workers!.testing.webhooksNow();
            break;
        }
      }
      // The export before the erasure: what it lists, the erasure removes (its mirror).
      await s.api.audit.settle();
      await s.workers!.testing.auditNow();
      const exported = (await send('GET', `/admin/v1/users/${victim.id}/export`)).body;
      const auditBefore = await auditRows();
      let erasureId: string;
      if (byTenant) {
        const del = await s.request('DELETE', `/admin/v1/tenants?ids=${tenantId}`);
        ok(del);
        expect(del.body.issues).toEqual([]);
        erasureId = del.body.deleted[0].erasureId;
      } else {
        const erase = await s.request('DELETE', `/admin/v1/users/${victim.id}`);
        expect(erase.status, erase.text).toBe(202);
        erasureId = erase.body.erasureId;
      }
      await expect.poll(async () => {
        await s.workers!.testing.batchesNow();
        await s.workers!.testing.drainNow();
        await s.workers!.testing.webhooksNow();
        await s.workers!.testing.erasuresNow();
        return (await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status;
      }, { timeout: 30_000 }).toBe('done');
      const needles = [victim.id, victim.email, victim.name, victim.token];
      const inRedis = await redisTraces(s.api.services.redis, s.prefix, needles);
      expect(inRedis, inRedis.join('\n')).toEqual([]);
      const inPostgres = await postgresTraces(pool, s.prefix, needles);
      expect(inPostgres, inPostgres.join('\n')).toEqual([]);
      expect((await s.request('GET', `/api/users/${keeper}`)).status).toBe(200);
      if (byTenant) {
        // Nothing in Redis names the deleted tenant but its erasure's record and the log entries
        // saying it was erased.
        const naming = (await redisTraces(s.api.services.redis, s.prefix, [tenantId]))
          .filter((t) => !t.startsWith(`${s.api.services.keys.erasure(erasureId)}:`) && !/"x":"[0-9a-f-]{36}"/.test(t));
        expect(naming, naming.join('\n')).toEqual([]);
        return;
      }
      // The mirror: every audit entry the erasure rewrote, every key and boost it deleted, the export listed.
      const auditAfter = await auditRows();
      const rewritten = [...auditBefore].filter(([id, text]) => auditAfter.get(id) !== text).map(([id]) => id);
      expect(exported.audit.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining(rewritten));
      expect(exported.keys).toHaveLength(steps.filter((x) => x.op === 'key').length);
      expect(exported.boosts).toHaveLength(steps.filter((x) => x.op === 'boost').length);
    }), { numRuns: Number(process.env.ERASURE_RUNS ?? 6), endOnFailure: true });
  });
});
