/**
 * Anniversary achievements (Admin API 1.26.0's `anniversary` trigger) over HTTP with the manual
 * clock and the real workers, on single Redis and on the Cluster: the Admin API's shape and checks;
 * one timeline from 2023 to 2025 in which the workers' pass completes each user's first anniversary
 * at the start of the day in their own zone (UTC+14, UTC, UTC-11), not a millisecond before, the
 * N-th on the N-th, February 29th's on the 28th, for users an event, an identification and an API
 * completion created; an anniversary that came before the achievement was activated completed
 * silently; the event of a user whose anniversary came (the pass paused) completing it first and
 * listing it with the composite it completes, in the zone the event moves the user to; a batch
 * item likewise; and what follows a completion: the reads (Application API 1.21.1 shapes with
 * `anniversaryYears`), the `achievement.completed` webhook, the achievement email scheduled.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('anniversary achievements on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  const ids: Record<string, string> = {};

  const admin = (method: string, body?: unknown) => s.request(method, '/admin/v1/achievements', { body });
  /** The keys of the user's completed achievements. */
  const completed = async (user: string) => {
    const r = await s.request('GET', `/api/users/${user}/achievements`);
    expect(r.status, r.text).toBe(200);
    return (r.body as { key: string }[]).map((a) => a.key).sort();
  };
  /** A pass of the workers at `iso`. */
  const passAt = async (iso: string) => {
    await s.setClock(iso);
    return s.workers!.testing.anniversariesNow();
  };
  /** The achievement.completed webhooks received so far, as `<user>:<achievement key>`. */
  const hooks = async () => {
    await s.workers!.testing.drainNow();
    await s.workers!.testing.webhooksNow();
    return hook.at('/done').map((r) => JSON.parse(r.body) as { user: { id: string }; achievement: { key: string } })
      .map((b) => `${b.user.id}:${b.achievement.key}`).sort();
  };
  const userHash = (user: string) => {
    const { redis, keys } = s.api.services;
    return redis.hmget(keys.forUser(DEFAULT_TENANT, user).user, 'an', 'an:d');
  };

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2023-01-15T12:00:00Z');
    ids.lessons = (await s.metrics('lessons')).lessons;
    // A user from before any anniversary achievement.
    await s.event('lessons', 'old', 1);
  });
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  describe('the Admin API', () => {
    it('creates them in AdminAchievement\'s shape, and refuses what does not fit', async () => {
      await s.setClock('2024-02-20T10:00:00Z');
      const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Done', url: hook.url('/done'), events: ['achievement.completed'] }] });
      expect(w.status, w.text).toBe(201);
      const t = await s.request('POST', '/admin/v1/notifications/templates', {
        body: [{ key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Hi', text: '{{ achievement.name }}' }],
      });
      expect(t.status, t.text).toBe(201);
      const r = await admin('POST', [
        { name: 'One year', trigger: 'anniversary', anniversaryYears: 1 },
        { name: 'Two years', key: 'two-years', trigger: 'anniversary', anniversaryYears: 2, description: 'Still here' },
        { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
        { name: 'No years', trigger: 'anniversary' },
        { name: 'Years on a metric', trigger: 'metric', metricId: ids.lessons, metricValue: 3, anniversaryYears: 1 },
        { name: 'Zero years', trigger: 'anniversary', anniversaryYears: 0 },
      ]);
      expect(r.status, r.text).toBe(201);
      expect(r.body.issues).toEqual([
        expect.objectContaining({ index: 3, severity: 'error', message: 'anniversaryYears is required for an anniversary achievement' }),
        expect.objectContaining({ index: 4, severity: 'error', message: 'anniversaryYears applies to anniversary achievements only' }),
        expect.objectContaining({ index: 5, severity: 'error', message: expect.stringContaining('anniversaryYears') }),
      ]);
      for (const a of r.body.created) ids[a.key] = a.id;
      // Trophy's shape: the trigger's own field, and a key made from the name.
      expect(r.body.created[0]).toMatchObject({
        key: 'one-year', trigger: 'anniversary', anniversaryYears: 1, status: 'active', badge: null, userAttributes: [],
      });
      expect(r.body.created[0]).not.toHaveProperty('metricId');
      expect(r.body.created[0]).not.toHaveProperty('streakLength');
      // Created without a status, active: laurel's earlier form, where 1.26.0 says inactive (a listed difference).
      const spec = JSON.parse(readFileSync(new URL('../support/openapi/trophy-admin-1.26.0.json', import.meta.url), 'utf8'));
      expect(spec.components.schemas.CreateAchievementRequestItem.properties.status.default).toBe('inactive');
      const composite = await admin('POST', [{ name: 'Loyal', key: 'loyal', trigger: 'achievement', achievementIds: [ids['one-year'], ids.onboarded] }]);
      expect(composite.status, composite.text).toBe(201);
      ids.loyal = composite.body.created[0].id;
      const got = await s.request('GET', `/admin/v1/achievements/${ids['two-years']}`);
      expect(got.body).toMatchObject({ trigger: 'anniversary', anniversaryYears: 2, description: 'Still here' });
      const moved = await admin('PATCH', [{ id: ids['one-year'], streakLength: 3 }, { id: ids['two-years'], anniversaryYears: 0 }]);
      expect(moved.body.updated).toEqual([]);
      expect(moved.body.issues.map((i: { message: string }) => i.message)).toEqual([
        'streakLength applies to streak achievements only', expect.stringContaining('anniversaryYears'),
      ]);
    });

    it('shows them in the Application API\'s lists with their years', async () => {
      const list = await s.request('GET', '/api/achievements');
      expect(list.body.find((a: { key: string }) => a.key === 'one-year')).toMatchObject({
        id: ids['one-year'], name: 'One year', trigger: 'anniversary', anniversaryYears: 1, completions: 0, rarity: 0,
      });
      const mine = await s.request('GET', '/api/users/old/achievements?includeIncomplete=true');
      expect(mine.body.find((a: { key: string }) => a.key === 'two-years')).toMatchObject({ trigger: 'anniversary', anniversaryYears: 2, achievedAt: null });
    });
  });

  describe('one timeline', () => {
    it('completes silently the anniversaries that came before the achievement was active', async () => {
      // The activation's backfill put every user in the due sets; the pass looks at them.
      await s.workers!.testing.anniversariesIdle();
      await s.workers!.testing.anniversariesNow();
      // old's first anniversary (2024-01-15) came before: a backfill's; the second is ahead.
      expect(await completed('old')).toEqual(['one-year']);
      expect(await userHash('old')).toEqual(['2025-01-15', '2023-01-15']);
      expect(await hooks()).toEqual([]);
    });

    it('notes a new user\'s first anniversary, whoever created them', async () => {
      await s.setClock('2024-02-29T12:00:00Z');
      await s.event('lessons', 'leap', 1);
      // An event's script counts it: February 29th's falls on the 28th in 2025.
      expect(await userHash('leap')).toEqual(['2025-02-28', '2024-02-29']);
      // At local noon on 2024-03-10: an event (UTC+14), an identification (UTC), an API completion
      // (UTC-11), and a user in Los Angeles.
      await s.setClock('2024-03-09T22:00:00Z');
      await s.event('lessons', { id: 'kiri', tz: 'Pacific/Kiritimati', email: 'kiri@example.com' }, 1);
      await s.setClock('2024-03-10T12:00:00Z');
      expect((await s.request('POST', '/api/users', { body: { id: 'utc', tz: 'UTC' } })).status).toBe(201);
      await s.setClock('2024-03-10T19:00:00Z');
      await s.event('lessons', { id: 'mover', tz: 'America/Los_Angeles' }, 1);
      await s.setClock('2024-03-10T23:00:00Z');
      const done = await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'pago', tz: 'Pacific/Pago_Pago' } } });
      expect(done.status, done.text).toBe(201);
      await s.setClock('2024-03-12T12:00:00Z');
      await s.event('lessons', 'batcher', 1);
      for (const user of ['kiri', 'utc', 'mover', 'pago']) expect(await userHash(user), user).toEqual(['2025-03-10', '2024-03-10']);
      expect(await userHash('batcher')).toEqual(['2025-03-12', '2024-03-12']);
    });

    it('completes each anniversary at the start of the day on the user\'s calendar, by the workers\' pass', async () => {
      // old's second: loud, after its activation. (The workers' own pass each second may come
      // first: what a pass completed is read back, not counted.)
      await passAt('2025-01-14T23:59:59.999Z');
      expect(await completed('old')).toEqual(['one-year']);
      await passAt('2025-01-15T00:00:00Z');
      expect(await completed('old')).toEqual(['one-year', 'two-years']);
      await passAt('2025-02-28T00:00:00Z');
      expect(await completed('leap')).toEqual(['one-year']);
      // Kiritimati's day begins first (UTC+14), then UTC's, then Pago Pago's (UTC-11).
      await passAt('2025-03-09T09:59:59.999Z');
      expect(await completed('kiri')).toEqual([]);
      await passAt('2025-03-09T10:00:00Z');
      expect(await completed('kiri')).toEqual(['one-year']);
      expect(await completed('utc')).toEqual([]);
      await passAt('2025-03-09T23:59:59.999Z');
      expect(await completed('utc')).toEqual([]);
      await passAt('2025-03-10T00:00:00Z');
      expect(await completed('utc')).toEqual(['one-year']);
      const user = await s.request('GET', '/api/users/kiri/achievements');
      expect(user.body).toEqual([expect.objectContaining({ key: 'one-year', trigger: 'anniversary', anniversaryYears: 1, achievedAt: '2025-03-09T10:00:00.000Z' })]);
      // What follows a completion: the webhook (not the silent one's), the email scheduled.
      expect(await hooks()).toEqual(['kiri:one-year', 'leap:one-year', 'old:two-years', 'pago:onboarded', 'utc:one-year']);
      const payload = JSON.parse(hook.at('/done').find((r) => r.body.includes('"kiri"'))!.body);
      expect(payload).toMatchObject({ type: 'achievement.completed', achievement: { key: 'one-year', trigger: 'anniversary', anniversaryYears: 1 } });
      const deliveries = await s.request('GET', '/admin/v1/notifications/deliveries?userId=kiri');
      expect(deliveries.body).toEqual([expect.objectContaining({ type: 'achievement_completed', userId: 'kiri', status: 'scheduled' })]);
    });

    it('completes it at the user\'s event when the pass has not yet, and the event lists it', async () => {
      await s.workers!.testing.pauseAnniversaryPass();
      // Pago Pago's 2025-03-09, 18:00: not yet.
      await s.setClock('2025-03-10T05:00:00Z');
      let r = await s.event('lessons', 'pago', 1);
      expect(r.achievements).toEqual([]);
      // Los Angeles's 21:00 on the 9th, but the event moves the user to Tokyo, where it is the 10th.
      r = await s.event('lessons', { id: 'mover', tz: 'Asia/Tokyo' }, 1);
      expect(r.achievements).toEqual([expect.objectContaining({ key: 'one-year', trigger: 'anniversary', achievedAt: '2025-03-10T05:00:00.000Z' })]);
      // Pago Pago's midnight: the anniversary first, then the composite it completes with `onboarded`.
      await s.setClock('2025-03-10T11:00:00Z');
      r = await s.event('lessons', 'pago', 1);
      expect(r.achievements.map((a: { key: string }) => a.key)).toEqual(['one-year', 'loyal']);
      expect(await completed('pago')).toEqual(['loyal', 'onboarded', 'one-year']);
      // Noted: the pass finds nothing more for them, and their next event completes nothing again.
      expect(await s.workers!.testing.anniversariesNow()).toMatchObject({ completed: 0 });
      expect((await s.event('lessons', 'pago', 1)).achievements).toEqual([]);
      expect(await userHash('pago')).toEqual(['2026-03-10', '2024-03-10']);
    });

    it('completes it at a batch item of the user', async () => {
      await s.setClock('2025-03-12T08:00:00Z');
      const r = await s.request('POST', '/admin/v1/metrics/events', { body: [{ key: 'lessons', user: { id: 'batcher' }, value: 1 }] });
      expect(r.status, r.text).toBe(202);
      await s.workers!.testing.batchesNow();
      const progress = await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`);
      expect(progress.body).toMatchObject({ accepted: 1, processed: 1, failed: 0 });
      expect(await completed('batcher')).toEqual(['one-year']);
      expect(await hooks()).toEqual([
        'batcher:one-year', 'kiri:one-year', 'leap:one-year', 'mover:one-year', 'old:two-years', 'pago:loyal', 'pago:onboarded', 'pago:one-year',
        'utc:one-year',
      ]);
      const list = await s.request('GET', '/api/achievements');
      expect(list.body.find((a: { key: string }) => a.key === 'one-year')).toMatchObject({ completions: 7 });
    });
  });
});
