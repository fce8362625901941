/**
 * SDK conformance: the official `@trophyso/node@1.0.42` client, pointed at laurel exactly as a user
 * would point it (`environment: { api: <url>/v1, admin: <url>/admin/v1 }`), must accept every
 * response of the operations laurel implements, parse them into the right values and raise the
 * right typed errors. Runs on single Redis and on the Redis Cluster.
 *
 * The SDK hides the HTTP status, the headers and its retries; a recorder around the global `fetch`
 * (test/support/sdk.ts) lets the tests check those where they matter (201 vs 202, no retried POST,
 * no Tenant-ID header, the snake_case preference keys on the wire).
 *
 * Every suite runs against the api as `npm start` runs it: the default number of api processes on
 * one port, every call on a connection of its own (startTestServer `processes`), so a call may reach
 * another process than the write before it; the workers, where a suite needs them, run in the
 * test's process.
 */
import { TrophyApi, TrophyApiClient, TrophyApiError } from '@trophyso/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUpdate, createAchievements, putStreakSettings } from '../support/admin.js';
import { byKey, rejectionOf, sdkClient, WireRecorder, type WireCall } from '../support/sdk.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';

const NO_RETRY = { maxRetries: 0 };

/** Asserts that `err` is an SDK error of the given class and status, and returns its `{ error }` body. */
function apiError(err: unknown, cls: new (...args: never[]) => TrophyApiError, status: number): { error: string } {
  expect(err).toBeInstanceOf(cls);
  const e = err as TrophyApiError;
  expect(e.statusCode).toBe(status);
  const body = e.body as { error?: unknown };
  expect(typeof body?.error, `error body: ${JSON.stringify(e.body)}`).toBe('string');
  return body as { error: string };
}

/** The calls among `calls` that went to `method` and a path starting with `prefix`. */
function callsTo(calls: WireCall[], method: string, prefix: string): WireCall[] {
  return calls.filter((c) => c.method === method && c.path.startsWith(prefix));
}

describe.each(targets())('SDK 1.0.42 conformance on %s', (target) => {
  let s: TestServer;
  let ids: Record<string, string>;
  let client: TrophyApiClient;
  /** A client whose api base is `<url>/api` instead of `<url>/v1`. */
  let apiClient: TrophyApiClient;
  const wire = new WireRecorder();

  const T0 = '2026-03-10T12:00:00.000Z'; // a Tuesday

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', processes: true });
    ids = await s.metrics('lessons', 'quizzes');
    await s.attributes('user', 'plan');
    await s.attributes('event', 'device');
    await s.setClock(T0);
    client = sdkClient(s);
    apiClient = sdkClient(s, { apiBase: `${s.url}/api` });
    wire.install();
  });
  afterAll(async () => {
    wire.uninstall();
    await s?.close();
  });

  describe('metrics.event', () => {
    it('returns a parsed EventResponse (201) and creates the user inline', async () => {
      await s.setClock(T0);
      const { result: r, calls } = await wire.capture(() =>
        client.metrics.event('lessons', { user: { id: 'ev-ada', name: 'Ada', tz: 'Europe/London' }, value: 2 }, NO_RETRY));
      expect(r).toEqual({
        eventId: expect.any(String),
        metricId: ids.lessons,
        total: 2,
        achievements: [],
        currentStreak: expect.objectContaining({ length: 0, frequency: 'daily', extended: false }),
        points: {},
        leaderboards: {},
      });
      expect(r.eventId.length).toBeGreaterThan(0);
      expect(r.idempotencyKey).toBeUndefined();
      expect(r.idempotentReplayed).toBeUndefined();
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ method: 'POST', path: '/v1/metrics/lessons/event', status: 201 });
      expect(calls[0].headers['idempotency-key']).toBeUndefined();

      const again = await client.metrics.event('lessons', { user: { id: 'ev-ada' }, value: 0.5 }, NO_RETRY);
      expect(again.total).toBe(2.5);
      expect(again.eventId).not.toBe(r.eventId);

      const u = await client.users.get('ev-ada', NO_RETRY);
      expect(u).toMatchObject({ id: 'ev-ada', name: 'Ada', tz: 'Europe/London', control: false });
    });

    it('answers on the /api prefix as on /v1, with the same data', async () => {
      const { result: viaApi, calls } = await wire.capture(() =>
        apiClient.metrics.event('quizzes', { user: { id: 'ev-both' }, value: 3 }, NO_RETRY));
      expect(calls.map((c) => [c.path, c.status])).toEqual([['/api/metrics/quizzes/event', 201]]);
      expect(viaApi).toMatchObject({ metricId: ids.quizzes, total: 3, achievements: [], points: {}, leaderboards: {} });
      expect(viaApi.currentStreak.extended).toBe(false);

      const viaV1 = await client.metrics.event('quizzes', { user: { id: 'ev-both' }, value: 4 }, NO_RETRY);
      expect(viaV1.total).toBe(7);
      // The user endpoints answer on /api too.
      expect((await apiClient.users.singleMetric('ev-both', 'quizzes', NO_RETRY)).current).toBe(7);
    });

    it('accepts negative and fractional values', async () => {
      await client.metrics.event('lessons', { user: { id: 'ev-frac' }, value: 0.1 }, NO_RETRY);
      await client.metrics.event('lessons', { user: { id: 'ev-frac' }, value: 0.2 }, NO_RETRY);
      const r = await client.metrics.event('lessons', { user: { id: 'ev-frac' }, value: -1.5 }, NO_RETRY);
      expect(r.total).toBeCloseTo(-1.2, 12);
    });

    it('accepts known event attributes', async () => {
      const r = await client.metrics.event('lessons',
        { user: { id: 'ev-attr', attributes: { plan: 'pro' } }, value: 1, attributes: { device: 'ios' } }, NO_RETRY);
      expect(r.total).toBe(1);
      expect((await client.users.get('ev-attr', NO_RETRY)).attributes).toEqual({ plan: 'pro' });
    });

    it('replays an idempotency key: same eventId, idempotentReplayed true (202), total unchanged', async () => {
      const { result: first, calls: c1 } = await wire.capture(() =>
        client.metrics.event('lessons', { user: { id: 'ev-idem' }, value: 3, idempotencyKey: 'lesson-42' }, NO_RETRY));
      expect(first).toMatchObject({ total: 3, idempotencyKey: 'lesson-42', idempotentReplayed: false });
      expect(c1[0].headers['idempotency-key']).toBe('lesson-42');
      expect(c1[0].body).not.toContain('lesson-42'); // the SDK moves the key into the header
      expect(c1[0].status).toBe(201);

      const { result: replay, calls: c2 } = await wire.capture(() =>
        client.metrics.event('lessons', { user: { id: 'ev-idem' }, value: 50, idempotencyKey: 'lesson-42' }, NO_RETRY));
      expect(c2[0].status).toBe(202);
      expect(replay).toMatchObject({
        eventId: first.eventId,
        metricId: ids.lessons,
        total: 3,
        idempotencyKey: 'lesson-42',
        idempotentReplayed: true,
        achievements: [],
        points: {},
        leaderboards: {},
      });
      expect(replay.currentStreak.extended).toBe(false);
      expect((await client.users.singleMetric('ev-idem', 'lessons', NO_RETRY)).current).toBe(3);

      // The same key on another metric is a different request.
      const other = await client.metrics.event('quizzes',
        { user: { id: 'ev-idem' }, value: 1, idempotencyKey: 'lesson-42' }, NO_RETRY);
      expect(other).toMatchObject({ total: 1, idempotentReplayed: false });
      expect(other.eventId).not.toBe(first.eventId);
    });

    it('raises UnprocessableEntityError naming unknown user attribute keys, and changes nothing', async () => {
      await client.metrics.event('lessons', { user: { id: 'ev-badattr', attributes: { plan: 'free' } }, value: 1 }, NO_RETRY);
      const err = await rejectionOf(client.metrics.event('lessons',
        { user: { id: 'ev-badattr', attributes: { plan: 'pro', colour: 'red', size: 'xl' } }, value: 5 }, NO_RETRY));
      const body = apiError(err, TrophyApi.UnprocessableEntityError, 422);
      expect(body.error).toContain('colour');
      expect(body.error).toContain('size');
      expect((await client.users.singleMetric('ev-badattr', 'lessons', NO_RETRY)).current).toBe(1);
      expect((await client.users.get('ev-badattr', NO_RETRY)).attributes).toEqual({ plan: 'free' });
    });

    it('raises UnprocessableEntityError naming unknown event attribute keys', async () => {
      const err = await rejectionOf(client.metrics.event('lessons',
        { user: { id: 'ev-badevattr' }, value: 1, attributes: { device: 'ios', os: 'android' } }, NO_RETRY));
      const body = apiError(err, TrophyApi.UnprocessableEntityError, 422);
      expect(body.error).toContain('os');
    });

    it('raises a TrophyApiError with status 404 for an unknown metric, and creates no user', async () => {
      const err = await rejectionOf(client.metrics.event('no-such-metric', { user: { id: 'ev-ghost' }, value: 1 }, NO_RETRY));
      const body = apiError(err, TrophyApiError, 404);
      expect(body.error).toContain('no-such-metric');
      // users.get maps no 404 either: a generic TrophyApiError.
      apiError(await rejectionOf(client.users.get('ev-ghost', NO_RETRY)), TrophyApiError, 404);
    });

    it('raises UnprocessableEntityError for subscribeToEmails without an email', async () => {
      const err = await rejectionOf(client.metrics.event('lessons',
        { user: { id: 'ev-sub', subscribeToEmails: true }, value: 1 }, NO_RETRY));
      apiError(err, TrophyApi.UnprocessableEntityError, 422);
      apiError(await rejectionOf(client.users.get('ev-sub', NO_RETRY)), TrophyApiError, 404);

      const ok = await client.metrics.event('lessons',
        { user: { id: 'ev-sub', subscribeToEmails: true, email: 'sub@example.com' }, value: 1 }, NO_RETRY);
      expect(ok.total).toBe(1);
      expect(await client.users.get('ev-sub', NO_RETRY)).toMatchObject({ email: 'sub@example.com', subscribeToEmails: true });
    });

    it('raises UnauthorizedError for a wrong API key', async () => {
      const bad = sdkClient(s, { apiKey: 'not-a-key' });
      apiError(await rejectionOf(bad.metrics.event('lessons', { user: { id: 'ev-unauth' }, value: 1 }, NO_RETRY)),
        TrophyApi.UnauthorizedError, 401);
      apiError(await rejectionOf(bad.users.get('ev-ada', NO_RETRY)), TrophyApi.UnauthorizedError, 401);
      apiError(await rejectionOf(client.users.get('ev-unauth', NO_RETRY)), TrophyApiError, 404);
    });
  });

  describe('users', () => {
    it('create returns a User (201) with Date-typed timestamps and every field', async () => {
      await s.setClock(T0);
      const { result: u, calls } = await wire.capture(() => client.users.create({
        id: 'u-carol', email: 'carol@example.com', name: 'Carol', tz: 'America/New_York',
        deviceTokens: ['tok-1'], subscribeToEmails: true, attributes: { plan: 'pro' },
      }, NO_RETRY));
      expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([['POST', '/v1/users', 201]]);
      expect(u).toMatchObject({
        id: 'u-carol', email: 'carol@example.com', name: 'Carol', tz: 'America/New_York', deviceTokens: ['tok-1'],
        subscribeToEmails: true, attributes: { plan: 'pro' }, control: false,
      });
      expect(u.created).toBeInstanceOf(Date);
      expect(u.updated).toBeInstanceOf(Date);
      expect(u.created.toISOString()).toBe(T0);
      expect(u.updated.toISOString()).toBe(T0);

      const got = await client.users.get('u-carol', NO_RETRY);
      expect(got).toEqual(u);
    });

    it('create with only an id gives defaults: no email/name/tz, subscribed, attributes {}, control false', async () => {
      const u = await client.users.create({ id: 'u-min' }, NO_RETRY);
      expect(u).toMatchObject({ id: 'u-min', subscribeToEmails: true, attributes: {}, control: false });
      expect(u.email).toBeUndefined(); // null on the wire becomes undefined
      expect(u.name).toBeUndefined();
      expect(u.tz).toBeUndefined();
    });

    it('create with subscribeToEmails false keeps the user unsubscribed', async () => {
      const u = await client.users.create({ id: 'u-unsub', subscribeToEmails: false }, NO_RETRY);
      expect(u.subscribeToEmails).toBe(false);
      expect((await client.users.get('u-unsub', NO_RETRY)).subscribeToEmails).toBe(false);
      // Subscribing later needs an email.
      apiError(await rejectionOf(client.users.update('u-unsub', { subscribeToEmails: true }, NO_RETRY)),
        TrophyApi.UnprocessableEntityError, 422);
      const sub = await client.users.update('u-unsub', { subscribeToEmails: true, email: 'unsub@example.com' }, NO_RETRY);
      expect(sub).toMatchObject({ subscribeToEmails: true, email: 'unsub@example.com' });
    });

    it('create of an existing id raises UnprocessableEntityError, is sent once and changes nothing', async () => {
      await client.users.create({ id: 'u-dup', name: 'First' }, NO_RETRY);
      // Default retries on purpose: a retryable status (409, 5xx) would show up as several requests.
      const { error, calls } = await wire.captureRejection(() => client.users.create({ id: 'u-dup', name: 'Second' }));
      const body = apiError(error, TrophyApi.UnprocessableEntityError, 422);
      expect(body.error).toContain('u-dup');
      expect(callsTo(calls, 'POST', '/v1/users')).toHaveLength(1);
      expect((await client.users.get('u-dup', NO_RETRY)).name).toBe('First');
    });

    it('treats keys the SDK sends as null (present but undefined) as not provided', async () => {
      const { result: created, calls } = await wire.capture(() =>
        client.users.create({ id: 'u-null', name: undefined, email: 'n@example.com' }, NO_RETRY));
      expect(JSON.parse(calls[0].body ?? '{}')).toMatchObject({ id: 'u-null', name: null });
      expect(created.name).toBeUndefined();

      await client.users.identify('u-null', { name: 'Nell' }, NO_RETRY);
      const after = await client.users.identify('u-null', { name: undefined, tz: 'Europe/Paris' }, NO_RETRY);
      expect(after).toMatchObject({ name: 'Nell', tz: 'Europe/Paris', email: 'n@example.com' });
    });

    it('raises UnprocessableEntityError for unknown attribute keys and subscribeToEmails without email on create', async () => {
      const bad = apiError(await rejectionOf(client.users.create({ id: 'u-bad', attributes: { nope: 'x' } }, NO_RETRY)),
        TrophyApi.UnprocessableEntityError, 422);
      expect(bad.error).toContain('nope');
      apiError(await rejectionOf(client.users.create({ id: 'u-bad', subscribeToEmails: true }, NO_RETRY)),
        TrophyApi.UnprocessableEntityError, 422);
      apiError(await rejectionOf(client.users.get('u-bad', NO_RETRY)), TrophyApiError, 404);
    });

    it('get of an unknown user raises a TrophyApiError with status 404', async () => {
      const err = await rejectionOf(client.users.get('u-nobody', NO_RETRY));
      const body = apiError(err, TrophyApiError, 404);
      expect(body.error).toContain('u-nobody');
    });

    it('identify upserts: creates a new user, then changes only the passed fields', async () => {
      await s.setClock(T0);
      const created = await client.users.identify('u-ivy', { name: 'Ivy', email: 'ivy@example.com' }, NO_RETRY);
      expect(created).toMatchObject({ id: 'u-ivy', name: 'Ivy', email: 'ivy@example.com', control: false, attributes: {} });
      expect(created.created.toISOString()).toBe(T0);

      await s.setClock('2026-03-11T08:30:00Z');
      const updated = await client.users.identify('u-ivy', { tz: 'Asia/Tokyo', attributes: { plan: 'team' } }, NO_RETRY);
      expect(updated).toMatchObject({
        id: 'u-ivy', name: 'Ivy', email: 'ivy@example.com', tz: 'Asia/Tokyo', attributes: { plan: 'team' },
      });
      expect(updated.created.toISOString()).toBe(T0);
      expect(updated.updated.toISOString()).toBe('2026-03-11T08:30:00.000Z');
      expect(await client.users.get('u-ivy', NO_RETRY)).toEqual(updated);
    });

    it('update changes only the passed fields of an existing user', async () => {
      await s.setClock(T0);
      await client.users.create({ id: 'u-upd', name: 'Uma', email: 'uma@example.com', attributes: { plan: 'free' } }, NO_RETRY);
      await s.setClock('2026-03-12T09:00:00Z');
      const u = await client.users.update('u-upd', { name: 'Uma B.', deviceTokens: ['a', 'b'] }, NO_RETRY);
      expect(u).toMatchObject({
        id: 'u-upd', name: 'Uma B.', email: 'uma@example.com', attributes: { plan: 'free' }, deviceTokens: ['a', 'b'],
      });
      expect(u.created.toISOString()).toBe(T0);
      expect(u.updated.toISOString()).toBe('2026-03-12T09:00:00.000Z');
    });

    it('update of an unknown user raises NotFoundError and does not create it', async () => {
      const err = await rejectionOf(client.users.update('u-missing', { name: 'Nobody' }, NO_RETRY));
      const body = apiError(err, TrophyApi.NotFoundError, 404);
      expect(body.error).toContain('u-missing');
      apiError(await rejectionOf(client.users.get('u-missing', NO_RETRY)), TrophyApiError, 404);
    });

    it('update with an unknown attribute key raises UnprocessableEntityError', async () => {
      await client.users.create({ id: 'u-upd-attr' }, NO_RETRY);
      const body = apiError(await rejectionOf(client.users.update('u-upd-attr', { attributes: { zzz: '1' } }, NO_RETRY)),
        TrophyApi.UnprocessableEntityError, 422);
      expect(body.error).toContain('zzz');
    });
  });

  describe('preferences', () => {
    it('a new user has no preferences set', async () => {
      await client.users.create({ id: 'p-new' }, NO_RETRY);
      expect(await client.users.getPreferences('p-new', NO_RETRY)).toEqual({ notifications: {} });
    });

    it('updatePreferences changes only the passed types, with snake_case keys on the wire', async () => {
      await client.users.create({ id: 'p-pat' }, NO_RETRY);
      const { result: r, calls } = await wire.capture(() => client.users.updatePreferences('p-pat', {
        notifications: { achievementCompleted: ['email'], streakReminder: [] },
      }, NO_RETRY));
      expect(JSON.parse(calls[0].body ?? '{}')).toEqual({ notifications: { achievement_completed: ['email'], streak_reminder: [] } });
      expect(calls[0].status).toBe(200);
      expect(r).toEqual({ notifications: { achievementCompleted: ['email'], streakReminder: [] } });

      const r2 = await client.users.updatePreferences('p-pat', { notifications: { recap: ['email', 'push'] } }, NO_RETRY);
      expect(r2).toEqual({ notifications: { achievementCompleted: ['email'], streakReminder: [], recap: ['email', 'push'] } });

      const r3 = await client.users.updatePreferences('p-pat', { notifications: { achievementCompleted: ['push'] } }, NO_RETRY);
      expect(r3.notifications).toEqual({ achievementCompleted: ['push'], streakReminder: [], recap: ['email', 'push'] });

      const { result: got, calls: getCalls } = await wire.capture(() => client.users.getPreferences('p-pat', NO_RETRY));
      expect(got).toEqual(r3);
      expect(JSON.parse(getCalls[0].response).notifications).toHaveProperty('achievement_completed');
    });

    it('an empty update changes nothing and returns the current preferences', async () => {
      await client.users.create({ id: 'p-empty' }, NO_RETRY);
      await client.users.updatePreferences('p-empty', { notifications: { reactivation: ['email'] } }, NO_RETRY);
      expect(await client.users.updatePreferences('p-empty', {}, NO_RETRY)).toEqual({ notifications: { reactivation: ['email'] } });
      expect(await client.users.updatePreferences('p-empty', undefined, NO_RETRY)).toEqual({ notifications: { reactivation: ['email'] } });
    });

    it('raises NotFoundError for an unknown user', async () => {
      apiError(await rejectionOf(client.users.getPreferences('p-nobody', NO_RETRY)), TrophyApi.NotFoundError, 404);
      apiError(await rejectionOf(client.users.updatePreferences('p-nobody',
        { notifications: { recap: ['email'] } }, NO_RETRY)), TrophyApi.NotFoundError, 404);
      apiError(await rejectionOf(client.users.get('p-nobody', NO_RETRY)), TrophyApiError, 404);
    });
  });

  describe('user metrics', () => {
    it('allMetrics lists every active metric with the user\'s current total', async () => {
      await client.metrics.event('lessons', { user: { id: 'm-mo' }, value: 4 }, NO_RETRY);
      await client.metrics.event('lessons', { user: { id: 'm-mo' }, value: 1.5 }, NO_RETRY);
      const all = await client.users.allMetrics('m-mo', NO_RETRY);
      expect(Array.isArray(all)).toBe(true);
      const byKey = Object.fromEntries(all.map((m) => [m.key, m]));
      expect(Object.keys(byKey).sort()).toEqual(['lessons', 'quizzes']);
      expect(byKey.lessons).toMatchObject({
        id: ids.lessons, key: 'lessons', name: 'Metric lessons', status: 'active', current: 5.5, achievements: [],
      });
      expect(byKey.quizzes).toMatchObject({ id: ids.quizzes, key: 'quizzes', status: 'active', current: 0, achievements: [] });
    });

    it('singleMetric returns the current total', async () => {
      await client.metrics.event('quizzes', { user: { id: 'm-sid' }, value: 2 }, NO_RETRY);
      const r = await client.metrics.event('quizzes', { user: { id: 'm-sid' }, value: 7 }, NO_RETRY);
      const m = await client.users.singleMetric('m-sid', 'quizzes', NO_RETRY);
      expect(m).toMatchObject({ id: ids.quizzes, key: 'quizzes', name: 'Metric quizzes', status: 'active', current: 9, achievements: [] });
      expect(m.current).toBe(r.total);
      expect((await client.users.singleMetric('m-sid', 'lessons', NO_RETRY)).current).toBe(0);
    });

    it('raises NotFoundError for an unknown user or metric', async () => {
      await client.users.create({ id: 'm-known' }, NO_RETRY);
      apiError(await rejectionOf(client.users.allMetrics('m-nobody', NO_RETRY)), TrophyApi.NotFoundError, 404);
      apiError(await rejectionOf(client.users.singleMetric('m-nobody', 'lessons', NO_RETRY)), TrophyApi.NotFoundError, 404);
      const body = apiError(await rejectionOf(client.users.singleMetric('m-known', 'nope', NO_RETRY)), TrophyApi.NotFoundError, 404);
      expect(body.error).toContain('nope');
    });
  });

  describe('metricEventSummary', () => {
    const at = async (iso: string, value: number, user: TrophyApi.UpsertedUser = { id: 'sum-sam' }) => {
      await s.setClock(iso);
      return client.metrics.event('lessons', { user, value }, NO_RETRY);
    };

    beforeAll(async () => {
      // 2026-03-02 is a Monday; 2026-03-08 a Sunday. The user has no tz, so days are UTC days.
      await at('2026-02-27T12:00:00Z', 10);
      await at('2026-03-02T12:00:00Z', 1);
      await at('2026-03-04T09:00:00Z', 2);
      await at('2026-03-04T18:00:00Z', 0.5);
      await at('2026-03-08T23:30:00Z', 3);
      await at('2026-03-09T00:30:00Z', 4);
      await at('2026-03-31T12:00:00Z', 5);
      const last = await at('2026-04-01T12:00:00Z', -1.5);
      expect(last.total).toBe(24);
      await s.setClock('2026-04-10T12:00:00Z');
    });

    const summary = (aggregation: TrophyApi.UsersMetricEventSummaryRequestAggregation, startDate: string, endDate: string, id = 'sum-sam') =>
      client.users.metricEventSummary(id, 'lessons', { aggregation, startDate, endDate }, NO_RETRY);

    it('daily: one row per day with the total at its end and the change within it', async () => {
      const { result: rows, calls } = await wire.capture(() => summary('daily', '2026-03-01', '2026-03-05'));
      expect(calls[0].path).toBe('/v1/users/sum-sam/metrics/lessons/event-summary?aggregation=daily&startDate=2026-03-01&endDate=2026-03-05');
      expect(rows).toEqual([
        { date: '2026-03-01', total: 10, change: 0 },
        { date: '2026-03-02', total: 11, change: 1 },
        { date: '2026-03-03', total: 11, change: 0 },
        { date: '2026-03-04', total: 13.5, change: 2.5 },
        { date: '2026-03-05', total: 13.5, change: 0 },
      ]);
    });

    it('daily: a single-day range and days after the last event', async () => {
      expect(await summary('daily', '2026-03-08', '2026-03-09')).toEqual([
        { date: '2026-03-08', total: 16.5, change: 3 },
        { date: '2026-03-09', total: 20.5, change: 4 },
      ]);
      expect(await summary('daily', '2026-04-05', '2026-04-06')).toEqual([
        { date: '2026-04-05', total: 24, change: 0 },
        { date: '2026-04-06', total: 24, change: 0 },
      ]);
    });

    it('weekly: rows keyed by the Monday of each week (a Sunday belongs to the week before)', async () => {
      expect(await summary('weekly', '2026-03-02', '2026-03-15')).toEqual([
        { date: '2026-03-02', total: 16.5, change: 6.5 },
        { date: '2026-03-09', total: 20.5, change: 4 },
      ]);
      // A range starting mid-week still keys its first row by that week's Monday.
      expect(await summary('weekly', '2026-03-04', '2026-03-10')).toEqual([
        { date: '2026-03-02', total: 16.5, change: 6.5 },
        { date: '2026-03-09', total: 20.5, change: 4 },
      ]);
      expect(await summary('weekly', '2026-02-23', '2026-03-01')).toEqual([
        { date: '2026-02-23', total: 10, change: 10 },
      ]);
    });

    it('monthly: rows keyed by the first day of each month', async () => {
      expect(await summary('monthly', '2026-02-01', '2026-04-30')).toEqual([
        { date: '2026-02-01', total: 10, change: 10 },
        { date: '2026-03-01', total: 25.5, change: 15.5 },
        { date: '2026-04-01', total: 24, change: -1.5 },
      ]);
    });

    it('uses the user\'s time zone for the day of an event', async () => {
      const tess = { id: 'sum-tess', tz: 'America/New_York' };
      await at('2026-03-10T02:00:00Z', 7, tess); // 2026-03-09 22:00 in New York
      await at('2026-03-10T12:00:00Z', 1, tess); // 2026-03-10 08:00 in New York
      await s.setClock('2026-04-10T12:00:00Z');
      expect(await summary('daily', '2026-03-09', '2026-03-10', 'sum-tess')).toEqual([
        { date: '2026-03-09', total: 7, change: 7 },
        { date: '2026-03-10', total: 8, change: 1 },
      ]);
    });

    it('a user without events gets zero rows for every period', async () => {
      await client.users.create({ id: 'sum-none' }, NO_RETRY);
      expect(await summary('daily', '2026-03-01', '2026-03-03', 'sum-none')).toEqual([
        { date: '2026-03-01', total: 0, change: 0 },
        { date: '2026-03-02', total: 0, change: 0 },
        { date: '2026-03-03', total: 0, change: 0 },
      ]);
    });

    it('raises UnprocessableEntityError when startDate is after endDate', async () => {
      apiError(await rejectionOf(summary('daily', '2026-03-05', '2026-03-01')), TrophyApi.UnprocessableEntityError, 422);
    });

    it('raises NotFoundError for an unknown user or metric', async () => {
      apiError(await rejectionOf(summary('daily', '2026-03-01', '2026-03-02', 'sum-nobody')), TrophyApi.NotFoundError, 404);
      apiError(await rejectionOf(client.users.metricEventSummary('sum-sam', 'nope',
        { aggregation: 'daily', startDate: '2026-03-01', endDate: '2026-03-02' }, NO_RETRY)), TrophyApi.NotFoundError, 404);
    });
  });

  describe('user ids with spaces, unicode and reserved characters', () => {
    const weird = ['Zoë Smith', '用户 🏆', 'a+b', 'a b', "o'neil & co", 'semi;colon=1'];

    it('round-trip through every user operation', async () => {
      await s.setClock(T0);
      for (const [i, id] of weird.entries()) {
        const r = await client.metrics.event('lessons', { user: { id, name: `N${i}` }, value: i + 1 }, NO_RETRY);
        expect(r.total, id).toBe(i + 1);
      }
      for (const [i, id] of weird.entries()) {
        const u = await client.users.get(id, NO_RETRY);
        expect(u, id).toMatchObject({ id, name: `N${i}` });
        expect((await client.users.singleMetric(id, 'lessons', NO_RETRY)).current, id).toBe(i + 1);
        const lessons = (await client.users.allMetrics(id, NO_RETRY)).find((m) => m.key === 'lessons');
        expect(lessons?.current, id).toBe(i + 1);
        expect(await client.users.update(id, { tz: 'Europe/Berlin' }, NO_RETRY), id).toMatchObject({ id, tz: 'Europe/Berlin' });
        expect(await client.users.identify(id, { email: `u${i}@example.com` }, NO_RETRY), id)
          .toMatchObject({ id, email: `u${i}@example.com`, name: `N${i}` });
        expect(await client.users.updatePreferences(id, { notifications: { recap: ['push'] } }, NO_RETRY), id)
          .toEqual({ notifications: { recap: ['push'] } });
        expect(await client.users.getPreferences(id, NO_RETRY), id).toEqual({ notifications: { recap: ['push'] } });
        expect(await client.users.metricEventSummary(id, 'lessons',
          { aggregation: 'daily', startDate: '2026-03-10', endDate: '2026-03-10' }, NO_RETRY), id)
          .toEqual([{ date: '2026-03-10', total: i + 1, change: i + 1 }]);
      }
    });

    it('creates them with users.create too', async () => {
      const u = await client.users.create({ id: 'Zoë Smith (2)' }, NO_RETRY);
      expect(u.id).toBe('Zoë Smith (2)');
      expect((await client.users.get('Zoë Smith (2)', NO_RETRY)).id).toBe('Zoë Smith (2)');
      apiError(await rejectionOf(client.users.create({ id: 'Zoë Smith (2)' }, NO_RETRY)), TrophyApi.UnprocessableEntityError, 422);
    });

    it('keeps "a+b" and "a b" apart: + in a path is not a space', async () => {
      expect((await client.users.singleMetric('a+b', 'lessons', NO_RETRY)).current).toBe(3);
      expect((await client.users.singleMetric('a b', 'lessons', NO_RETRY)).current).toBe(4);
    });
  });

  describe('tenancy', () => {
    it('the SDK sends no Tenant-ID header and its calls use the default tenant', async () => {
      const { calls } = await wire.capture(async () => {
        await client.metrics.event('lessons', { user: { id: 't-default' }, value: 2 }, NO_RETRY);
        await client.users.get('t-default', NO_RETRY);
      });
      expect(calls.length).toBe(2);
      for (const c of calls) expect(c.headers['tenant-id'], c.path).toBeUndefined();

      const plain = await s.request('GET', '/v1/users/t-default/metrics/lessons');
      expect(plain.status).toBe(200);
      expect(plain.body.current).toBe(2);

      const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
      expect(t.status, t.text).toBe(201);
      const other = await s.request('GET', '/v1/users/t-default', { tenant: 'acme' });
      expect(other.status).toBe(404);
    });
  });
});

/**
 * Achievements through the SDK, on a server of their own (the other block expects metrics without
 * achievements, and rarity is a share of all the tenant's users).
 *
 * The `it`s run in order and build one scenario: the statistics checked by `achievements.all`
 * count the users and completions of the tests before it (7 users by then).
 */
describe.each(targets())('SDK 1.0.42 achievements on %s', (target) => {
  let s: TestServer;
  let metricIds: Record<string, string>;
  let attrIds: Record<string, string>;
  let ach: Record<string, string>;
  let client: TrophyApiClient;
  const wire = new WireRecorder();

  const BADGE_L3 = 'https://cdn.example.com/badges/lessons-3.png';
  const BADGE_ONB = 'https://cdn.example.com/badges/onboarded.png';
  /** The active achievements (everything but `hidden`, which is inactive). */
  const VISIBLE = ['lessons-3', 'lessons-5', 'lessons-10', 'quizzes-pro', 'onboarded', 'profile', 'all-set', 'welcome-free'];
  const T = {
    e1: '2026-03-10T12:00:00.000Z',
    e2: '2026-03-10T13:00:00.000Z',
    e3: '2026-03-10T14:00:00.000Z',
    bob: '2026-03-11T09:00:00.000Z',
    pia: '2026-03-11T10:00:00.000Z',
    c1: '2026-03-12T08:00:00.000Z',
    c2: '2026-03-12T09:30:00.000Z',
    d1: '2026-03-13T08:00:00.000Z',
    d2: '2026-03-13T18:45:00.000Z',
    eve: '2026-03-14T07:00:00.000Z',
    f1: '2026-03-15T07:00:00.000Z',
    f2: '2026-03-16T07:00:00.000Z',
  };
  const iso = (d: Date | undefined) => d?.toISOString();

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true, processes: true });
    metricIds = await s.metrics('lessons', 'quizzes');
    attrIds = await s.attributes('user', 'plan');
    const plan = (value: string) => [{ attributeId: attrIds.plan, attributeValue: value }];
    ach = await createAchievements(s, [
      { name: 'Three lessons', key: 'lessons-3', trigger: 'metric', description: 'Finish three lessons',
        badge: { url: BADGE_L3 }, metricId: metricIds.lessons, metricValue: 3 },
      { name: 'Five lessons', key: 'lessons-5', trigger: 'metric', metricId: metricIds.lessons, metricValue: 5 },
      { name: 'Ten lessons', key: 'lessons-10', trigger: 'metric', metricId: metricIds.lessons, metricValue: 10 },
      { name: 'Pro quizzer', key: 'quizzes-pro', trigger: 'metric', metricId: metricIds.quizzes, metricValue: 2,
        userAttributes: plan('pro') },
      { name: 'Onboarded', key: 'onboarded', trigger: 'api', description: 'Finished onboarding', badge: { url: BADGE_ONB } },
      { name: 'Profile complete', key: 'profile', trigger: 'api' },
      { name: 'Welcome, free plan', key: 'welcome-free', trigger: 'api', userAttributes: plan('free') },
      { name: 'Hidden', key: 'hidden', trigger: 'api', status: 'inactive' },
    ]);
    Object.assign(ach, await createAchievements(s, [
      { name: 'All set', key: 'all-set', trigger: 'achievement', achievementIds: [ach.onboarded, ach.profile] },
    ]));
    client = sdkClient(s);
    wire.install();
  });
  afterAll(async () => {
    wire.uninstall();
    await s?.close();
  });

  const event = async (at: string, metric: string, user: TrophyApi.UpsertedUser, value: number) => {
    await s.setClock(at);
    return client.metrics.event(metric, { user, value }, NO_RETRY);
  };

  it('metrics.event lists the achievements the event completed, parsed, and only once', async () => {
    const first = await event(T.e1, 'lessons', { id: 'ach-ada' }, 2);
    expect(first.total).toBe(2);
    expect(first.achievements).toEqual([]);

    // 2 → 6 crosses 3 and 5, not 10.
    await s.setClock(T.e2);
    const { result: r, calls } = await wire.capture(() =>
      client.metrics.event('lessons', { user: { id: 'ach-ada' }, value: 4 }, NO_RETRY));
    expect(calls.map((c) => [c.path, c.status])).toEqual([['/v1/metrics/lessons/event', 201]]);
    expect(r.total).toBe(6);
    expect(r.achievements.map((a) => a.key).sort()).toEqual(['lessons-3', 'lessons-5']);
    const got = byKey(r.achievements);
    expect(got['lessons-3']).toMatchObject({
      id: ach['lessons-3'], name: 'Three lessons', trigger: 'metric', description: 'Finish three lessons',
      badgeUrl: BADGE_L3, metricId: metricIds.lessons, metricValue: 3, metricName: 'Metric lessons',
    });
    expect(got['lessons-5']).toMatchObject({
      id: ach['lessons-5'], name: 'Five lessons', trigger: 'metric',
      metricId: metricIds.lessons, metricValue: 5, metricName: 'Metric lessons',
    });
    expect(got['lessons-5'].description).toBeUndefined(); // null on the wire
    expect(got['lessons-5'].badgeUrl).toBeUndefined();
    for (const a of r.achievements) {
      expect(a.achievedAt, a.key).toBeInstanceOf(Date);
      expect(iso(a.achievedAt), a.key).toBe(T.e2);
      expect(a.streakLength, a.key).toBeUndefined();
    }

    // Nothing new: a later event, and falling below a threshold and crossing it again.
    const later = await event(T.e3, 'lessons', { id: 'ach-ada' }, 1);
    expect(later).toMatchObject({ total: 7, achievements: [] });
    expect((await event(T.e3, 'lessons', { id: 'ach-ada' }, -6))).toMatchObject({ total: 1, achievements: [] });
    expect((await event(T.e3, 'lessons', { id: 'ach-ada' }, 5))).toMatchObject({ total: 6, achievements: [] });

    // Reaching the value exactly completes it.
    const bob = await event(T.bob, 'lessons', { id: 'ach-bob' }, 3);
    expect(bob.total).toBe(3);
    expect(bob.achievements.map((a) => [a.key, iso(a.achievedAt)])).toEqual([['lessons-3', T.bob]]);
  });

  it('metrics.event completes a user-attribute-filtered achievement only for matching users', async () => {
    const bob = await event(T.bob, 'quizzes', { id: 'ach-bob' }, 5);
    expect(bob).toMatchObject({ total: 5, achievements: [] });

    const pia = await event(T.pia, 'quizzes', { id: 'ach-pia', attributes: { plan: 'pro' } }, 2);
    expect(pia.total).toBe(2);
    expect(pia.achievements).toHaveLength(1);
    expect(pia.achievements[0]).toMatchObject({
      id: ach['quizzes-pro'], key: 'quizzes-pro', trigger: 'metric', metricId: metricIds.quizzes, metricValue: 2,
      metricName: 'Metric quizzes', userAttributes: [{ key: 'plan', value: 'pro' }],
    });
    expect(iso(pia.achievements[0].achievedAt)).toBe(T.pia);
  });

  it('achievements.complete completes an api achievement once (201), creating the user', async () => {
    await s.setClock(T.c1);
    const { result: r, calls } = await wire.capture(() =>
      client.achievements.complete('onboarded', { user: { id: 'ach-cy', name: 'Cy' } }, NO_RETRY));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/v1/achievements/onboarded/complete', status: 201 });
    expect(JSON.parse(calls[0].body ?? '{}')).toEqual({ user: { id: 'ach-cy', name: 'Cy' } });
    expect(typeof r.completionId).toBe('string');
    expect(r.completionId.length).toBeGreaterThan(0);
    expect(r.points).toEqual({});
    expect(r.achievement).toMatchObject({
      id: ach.onboarded, key: 'onboarded', name: 'Onboarded', trigger: 'api',
      description: 'Finished onboarding', badgeUrl: BADGE_ONB,
    });
    expect(r.achievement.metricId).toBeUndefined();
    expect(r.achievement.achievedAt).toBeInstanceOf(Date);
    expect(iso(r.achievement.achievedAt)).toBe(T.c1);
    expect(await client.users.get('ach-cy', NO_RETRY)).toMatchObject({ id: 'ach-cy', name: 'Cy' });

    // Again, later: the same completion.
    await s.setClock(T.c2);
    const again = await client.achievements.complete('onboarded', { user: { id: 'ach-cy' } }, NO_RETRY);
    expect(again.completionId).toBe(r.completionId);
    expect(iso(again.achievement.achievedAt)).toBe(T.c1);
    expect(again.achievement).toMatchObject({ id: ach.onboarded, key: 'onboarded', trigger: 'api' });
    expect(again.points).toEqual({});
  });

  it('achievements.complete raises NotFoundError for unknown and inactive keys, UnprocessableEntityError otherwise', async () => {
    await s.setClock(T.c2);
    // Default retries on purpose: a retryable status would show up as several requests.
    const { error, calls } = await wire.captureRejection(() =>
      client.achievements.complete('no-such-achievement', { user: { id: 'ach-ghost' } }));
    const body = apiError(error, TrophyApi.NotFoundError, 404);
    expect(body.error).toContain('no-such-achievement');
    expect(callsTo(calls, 'POST', '/v1/achievements/')).toHaveLength(1);
    apiError(await rejectionOf(client.users.get('ach-ghost', NO_RETRY)), TrophyApiError, 404);

    apiError(await rejectionOf(client.achievements.complete('hidden', { user: { id: 'ach-cy' } }, NO_RETRY)),
      TrophyApi.NotFoundError, 404);

    // A metric achievement completes on its metric only.
    const metric = apiError(await rejectionOf(client.achievements.complete('lessons-3', { user: { id: 'ach-cy' } }, NO_RETRY)),
      TrophyApi.UnprocessableEntityError, 422);
    expect(metric.error).toContain('lessons-3');

    // A user-attribute filter applies to the API too, with the request's own attributes.
    apiError(await rejectionOf(client.achievements.complete('welcome-free', { user: { id: 'ach-cy' } }, NO_RETRY)),
      TrophyApi.UnprocessableEntityError, 422);
    const free = await client.achievements.complete('welcome-free',
      { user: { id: 'ach-cy', attributes: { plan: 'free' } } }, NO_RETRY);
    expect(free.achievement).toMatchObject({ key: 'welcome-free', userAttributes: [{ key: 'plan', value: 'free' }] });
    expect(iso(free.achievement.achievedAt)).toBe(T.c2);
    expect((await client.users.get('ach-cy', NO_RETRY)).attributes).toEqual({ plan: 'free' });

    // Unknown user attribute keys: 422, nothing completed.
    apiError(await rejectionOf(client.achievements.complete('profile',
      { user: { id: 'ach-cy', attributes: { colour: 'red' } } }, NO_RETRY)), TrophyApi.UnprocessableEntityError, 422);
    expect((await client.users.achievements('ach-cy', undefined, NO_RETRY)).map((a) => a.key).sort())
      .toEqual(['onboarded', 'welcome-free']);
  });

  it('completing the last prerequisite completes the composite achievement', async () => {
    await s.setClock(T.d1);
    await client.achievements.complete('onboarded', { user: { id: 'ach-dee' } }, NO_RETRY);
    const before = await client.users.achievements('ach-dee', undefined, NO_RETRY);
    expect(before.map((a) => [a.key, iso(a.achievedAt)])).toEqual([['onboarded', T.d1]]);

    await s.setClock(T.d2);
    const r = await client.achievements.complete('profile', { user: { id: 'ach-dee' } }, NO_RETRY);
    expect(r.achievement).toMatchObject({ id: ach.profile, key: 'profile', trigger: 'api' });
    expect(iso(r.achievement.achievedAt)).toBe(T.d2);

    const after = byKey(await client.users.achievements('ach-dee', undefined, NO_RETRY));
    expect(Object.keys(after).sort()).toEqual(['all-set', 'onboarded', 'profile']);
    expect(after['all-set']).toMatchObject({
      id: ach['all-set'], name: 'All set', achievementIds: [ach.onboarded, ach.profile],
    });
    expect(after['all-set'].trigger).toBe('achievement'); // not in the SDK's enum: passed through
    expect(after['all-set'].achievedAt).toBeInstanceOf(Date);
    expect(iso(after['all-set'].achievedAt)).toBe(T.d2);
    expect(iso(after.onboarded.achievedAt)).toBe(T.d1);
    expect(iso(after.profile.achievedAt)).toBe(T.d2);

    // Completing a prerequisite again does not complete the composite again.
    const replay = await client.achievements.complete('profile', { user: { id: 'ach-dee' } }, NO_RETRY);
    expect(replay.completionId).toBe(r.completionId);
    expect(iso((await client.users.achievements('ach-dee', undefined, NO_RETRY))
      .find((a) => a.key === 'all-set')?.achievedAt)).toBe(T.d2);
  });

  it('users.achievements lists completed ones, and with includeIncomplete "true" the others too', async () => {
    const { result: done, calls } = await wire.capture(() => client.users.achievements('ach-ada', undefined, NO_RETRY));
    expect(calls.map((c) => [c.path, c.status])).toEqual([['/v1/users/ach-ada/achievements', 200]]);
    expect(done.map((a) => a.key).sort()).toEqual(['lessons-3', 'lessons-5']);
    for (const a of done) {
      expect(a.achievedAt, a.key).toBeInstanceOf(Date);
      expect(iso(a.achievedAt), a.key).toBe(T.e2);
      expect(typeof a.completions, a.key).toBe('number');
      expect(typeof a.rarity, a.key).toBe('number');
    }
    expect(byKey(done)['lessons-3']).toMatchObject({
      trigger: 'metric', metricId: metricIds.lessons, metricValue: 3, metricName: 'Metric lessons', badgeUrl: BADGE_L3,
    });

    const { result: all, calls: c2 } = await wire.capture(() =>
      client.users.achievements('ach-ada', { includeIncomplete: 'true' }, NO_RETRY));
    expect(c2.map((c) => [c.path, c.status])).toEqual([['/v1/users/ach-ada/achievements?includeIncomplete=true', 200]]);
    const got = byKey(all);
    expect(Object.keys(got).sort()).toEqual([...VISIBLE].sort()); // not `hidden` (inactive)
    for (const k of VISIBLE) {
      const completed = k === 'lessons-3' || k === 'lessons-5';
      if (completed) expect(iso(got[k].achievedAt), k).toBe(T.e2);
      else expect(got[k].achievedAt, k).toBeUndefined(); // null on the wire
      expect(typeof got[k].completions, k).toBe('number');
      expect(typeof got[k].rarity, k).toBe('number');
    }
    // The progress extension of open metric achievements.
    expect(got['lessons-10']).toMatchObject({ metricValue: 10, progress: { current: 6, target: 10 } });
    expect(got['quizzes-pro']).toMatchObject({ progress: { current: 0, target: 2 } });

    // A user with nothing completed.
    await client.users.create({ id: 'ach-new' }, NO_RETRY);
    expect(await client.users.achievements('ach-new', undefined, NO_RETRY)).toEqual([]);
    expect((await client.users.achievements('ach-new', { includeIncomplete: 'true' }, NO_RETRY)).map((a) => a.key).sort())
      .toEqual([...VISIBLE].sort());

    apiError(await rejectionOf(client.users.achievements('ach-nobody', undefined, NO_RETRY)), TrophyApi.NotFoundError, 404);
  });

  it('users.singleMetric and allMetrics list the metric\'s achievements with achievedAt', async () => {
    const m = await client.users.singleMetric('ach-ada', 'lessons', NO_RETRY);
    expect(m).toMatchObject({ id: metricIds.lessons, key: 'lessons', current: 6 });
    const got = byKey(m.achievements);
    expect(Object.keys(got).sort()).toEqual(['lessons-10', 'lessons-3', 'lessons-5']);
    expect(got['lessons-3']).toMatchObject({
      id: ach['lessons-3'], name: 'Three lessons', trigger: 'metric', metricId: metricIds.lessons, metricValue: 3,
      metricName: 'Metric lessons', badgeUrl: BADGE_L3, description: 'Finish three lessons',
    });
    expect(got['lessons-3'].achievedAt).toBeInstanceOf(Date);
    expect(iso(got['lessons-3'].achievedAt)).toBe(T.e2);
    expect(iso(got['lessons-5'].achievedAt)).toBe(T.e2);
    expect(got['lessons-10'].achievedAt).toBeUndefined();
    expect(got['lessons-10'].metricValue).toBe(10);

    const pia = await client.users.singleMetric('ach-pia', 'quizzes', NO_RETRY);
    expect(pia.achievements.map((a) => [a.key, iso(a.achievedAt)])).toEqual([['quizzes-pro', T.pia]]);
    const bob = await client.users.singleMetric('ach-bob', 'quizzes', NO_RETRY);
    expect(bob.achievements.map((a) => [a.key, a.achievedAt])).toEqual([['quizzes-pro', undefined]]);

    const metrics = await client.users.allMetrics('ach-ada', NO_RETRY);
    const lessons = metrics.find((x) => x.key === 'lessons');
    expect(lessons?.achievements.map((a) => a.key).sort()).toEqual(['lessons-10', 'lessons-3', 'lessons-5']);
    expect(metrics.find((x) => x.key === 'quizzes')?.achievements.map((a) => [a.key, a.achievedAt]))
      .toEqual([['quizzes-pro', undefined]]);
  });

  it('achievements.all lists the active achievements with completions and rarity, filtered by userAttributes', async () => {
    // The last write completes something, so no cached statistics are left.
    const eve = await event(T.eve, 'quizzes', { id: 'ach-eve', attributes: { plan: 'pro' } }, 3);
    expect(eve.achievements.map((a) => a.key)).toEqual(['quizzes-pro']);

    // ada, bob, pia, cy, dee, new and eve (the refused calls created no user).
    const users = 7;
    const completions: Record<string, number> = {
      'lessons-3': 2, 'lessons-5': 1, 'lessons-10': 0, 'quizzes-pro': 2,
      onboarded: 2, profile: 1, 'all-set': 1, 'welcome-free': 1,
    };
    const check = (list: TrophyApi.AchievementWithStatsResponse[], expected: string[]) => {
      const got = byKey(list);
      expect(Object.keys(got).sort()).toEqual([...expected].sort());
      for (const k of expected) {
        expect(got[k].completions, k).toBe(completions[k]);
        expect(got[k].rarity, k).toBeCloseTo((100 * completions[k]) / users, 1);
        expect(got[k].id, k).toBe(ach[k]);
      }
      return got;
    };

    const { result: all, calls } = await wire.capture(() => client.achievements.all(undefined, NO_RETRY));
    expect(calls.map((c) => [c.path, c.status])).toEqual([['/v1/achievements', 200]]);
    const got = check(all, VISIBLE);
    expect(got['lessons-3']).toMatchObject({
      name: 'Three lessons', trigger: 'metric', description: 'Finish three lessons', badgeUrl: BADGE_L3,
      metricId: metricIds.lessons, metricValue: 3, metricName: 'Metric lessons',
    });
    expect(got.onboarded).toMatchObject({ name: 'Onboarded', trigger: 'api', badgeUrl: BADGE_ONB });
    expect(got['quizzes-pro'].userAttributes).toEqual([{ key: 'plan', value: 'pro' }]);
    expect(got['all-set'].trigger).toBe('achievement');
    expect(got['lessons-10'].rarity).toBe(0);

    const { result: pro, calls: c2 } = await wire.capture(() => client.achievements.all({ userAttributes: 'plan:pro' }, NO_RETRY));
    expect(decodeURIComponent(c2[0].path)).toBe('/v1/achievements?userAttributes=plan:pro');
    expect(c2[0].status).toBe(200);
    check(pro, VISIBLE.filter((k) => k !== 'welcome-free'));
    check(await client.achievements.all({ userAttributes: 'plan:free' }, NO_RETRY), VISIBLE.filter((k) => k !== 'quizzes-pro'));
    check(await client.achievements.all({ userAttributes: 'plan:team' }, NO_RETRY),
      VISIBLE.filter((k) => k !== 'quizzes-pro' && k !== 'welcome-free'));

    const bad = apiError(await rejectionOf(client.achievements.all({ userAttributes: 'colour:red' }, NO_RETRY)),
      TrophyApi.UnprocessableEntityError, 422);
    expect(bad.error).toContain('colour');
  });

  it('a locked achievement accepts no new completions and is shown only to users who have it', async () => {
    const { legacy } = await createAchievements(s, [{ name: 'Legacy', key: 'legacy', trigger: 'api' }]);
    await s.setClock(T.f1);
    const first = await client.achievements.complete('legacy', { user: { id: 'ach-fay' } }, NO_RETRY);
    expect(iso(first.achievement.achievedAt)).toBe(T.f1);
    await adminUpdate(s, '/admin/v1/achievements', [{ id: legacy, status: 'locked' }]);

    await s.setClock(T.f2);
    const again = await client.achievements.complete('legacy', { user: { id: 'ach-fay' } }, NO_RETRY);
    expect(again.completionId).toBe(first.completionId);
    expect(iso(again.achievement.achievedAt)).toBe(T.f1);
    apiError(await rejectionOf(client.achievements.complete('legacy', { user: { id: 'ach-ada' } }, NO_RETRY)),
      TrophyApi.UnprocessableEntityError, 422);

    expect((await client.achievements.all(undefined, NO_RETRY)).map((a) => a.key)).not.toContain('legacy');
    const fay = await client.users.achievements('ach-fay', undefined, NO_RETRY);
    expect(fay.map((a) => [a.key, iso(a.achievedAt)])).toEqual([['legacy', T.f1]]);
    const ada = await client.users.achievements('ach-ada', { includeIncomplete: 'true' }, NO_RETRY);
    expect(ada.map((a) => a.key)).not.toContain('legacy');
    expect(ada.map((a) => a.key)).not.toContain('hidden');
  });
});

/**
 * Streaks through the SDK, on a server of their own with the manual clock (the streak rule is
 * account-wide, and rankings span every user of the tenant).
 *
 * The `it`s run in order and build one timeline: April without freezes; May daily with freezes
 * (cy, ada, kai in Pacific/Kiritimati, bea, read on 2026-05-09 at 12:00 UTC); then the Admin API's
 * freezes and restore, ties in the rankings, and June weekly. 2026-05-04 and 2026-06-08 are
 * Mondays. Pacific/Kiritimati is UTC+14: its day starts at 10:00 UTC of the day before.
 */
describe.each(targets())('SDK 1.0.42 streaks on %s', (target) => {
  let s: TestServer;
  let metricIds: Record<string, string>;
  let client: TrophyApiClient;
  const wire = new WireRecorder();

  const KIRITIMATI = 'Pacific/Kiritimati';
  const FREEZES = { initial: 1, max: 3, autoEarnInterval: 30, autoEarnAmount: 1 };
  /** The freeze fields of every streak while FREEZES is configured. */
  const fz = (freezes: number) => ({ freezes, maxFreezes: 3, freezeAutoEarnInterval: 30, freezeAutoEarnAmount: 1 });
  /** A daily MetricEventStreakResponse as parsed (dates `2026-MM-DD` given as `MM-DD`). */
  const daily = (length: number, started: string, today: string, expires: string, extended: boolean, freezes?: number) => ({
    length, frequency: 'daily', started: `2026-${started}`, periodStart: `2026-${today}`, periodEnd: `2026-${today}`,
    expires: `2026-${expires}`, extended, ...(freezes === undefined ? {} : fz(freezes)),
  });
  /** A weekly MetricEventStreakResponse as parsed. */
  const weekly = (length: number, started: string, start: string, end: string, expires: string, extended: boolean) => ({
    length, frequency: 'weekly', started: `2026-${started}`, periodStart: `2026-${start}`, periodEnd: `2026-${end}`,
    expires: `2026-${expires}`, extended,
  });
  /** A daily history item. */
  const hday = (date: string, length: number, usedFreeze?: boolean) => ({
    periodStart: `2026-${date}`, periodEnd: `2026-${date}`, length, ...(usedFreeze === undefined ? {} : { usedFreeze }), usedPause: false,
  });
  const FREEZE_KEYS = ['freezes', 'maxFreezes', 'freezeAutoEarnInterval', 'freezeAutoEarnAmount'];

  /** Sets the clock and sends a value of 1 through the SDK; returns the parsed currentStreak. */
  const event = async (at: string, user: string | TrophyApi.UpsertedUser, metric = 'lessons') => {
    await s.setClock(at);
    const r = await client.metrics.event(metric, { user: typeof user === 'string' ? { id: user } : user, value: 1 }, NO_RETRY);
    return r.currentStreak;
  };
  /** The workers keep the rankings from the event log: let them catch up before a rank is read. */
  const drain = () => s.workers!.testing.drainNow();
  const streak = async (id: string, historyPeriods?: number) => {
    await drain();
    return client.users.streak(id, historyPeriods === undefined ? undefined : { historyPeriods }, NO_RETRY);
  };
  const issue = (userId: string, level: 'error' | 'warning', reason: string) =>
    ({ userId, level, reason, severity: level, message: reason });

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true, processes: true });
    metricIds = await s.metrics('lessons', 'quizzes');
    client = sdkClient(s);
    wire.install();
  });
  afterAll(async () => {
    wire.uninstall();
    await s?.close();
  });

  it('without freezes: currentStreak extends once a day, is lost after a missed day, and has no freeze fields', async () => {
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: metricIds.lessons, threshold: 1 }] });

    await s.setClock('2026-04-01T10:00:00Z');
    const { result: first, calls } = await wire.capture(() =>
      client.metrics.event('lessons', { user: { id: 'nf-una', name: 'Una' }, value: 1 }, NO_RETRY));
    expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([['POST', '/v1/metrics/lessons/event', 201]]);
    expect(first.currentStreak).toEqual(daily(1, '04-01', '04-01', '04-02', true));
    const wireStreak = JSON.parse(calls[0].response).currentStreak;
    for (const k of FREEZE_KEYS) {
      expect(wireStreak, k).not.toHaveProperty(k);
      expect((first.currentStreak as unknown as Record<string, unknown>)[k], k).toBeUndefined();
    }

    expect(await event('2026-04-01T20:00:00Z', 'nf-una')).toEqual(daily(1, '04-01', '04-01', '04-02', false));
    expect(await event('2026-04-02T10:00:00Z', 'nf-una')).toEqual(daily(2, '04-01', '04-02', '04-03', true));

    // The 3rd passes without an event: on the 4th, an event of a metric outside the rule sees the streak lost.
    await s.setClock('2026-04-04T10:00:00Z');
    const { result: lost, calls: c2 } = await wire.capture(() =>
      client.metrics.event('quizzes', { user: { id: 'nf-una' }, value: 1 }, NO_RETRY));
    expect(lost.currentStreak).toEqual({ length: 0, frequency: 'daily', extended: false });
    expect(JSON.parse(c2[0].response).currentStreak).toEqual({
      length: 0, frequency: 'daily', started: null, periodStart: null, periodEnd: null, expires: null, extended: false,
    });

    const { result: read, calls: c3 } = await wire.capture(() => streak('nf-una', 5));
    expect(c3.map((c) => [c.method, c.path, c.status])).toEqual([['GET', '/v1/users/nf-una/streak?historyPeriods=5', 200]]);
    expect(read).toEqual({
      length: 0, frequency: 'daily', pauses: [], extended: null,
      streakHistory: [hday('03-31', 0), hday('04-01', 1), hday('04-02', 2), hday('04-03', 0), hday('04-04', 0)],
    });
    expect(read.rank).toBeUndefined();
    const raw = JSON.parse(c3[0].response);
    expect(raw.rank).toBeNull(); // spec-null: present as null
    for (const h of raw.streakHistory) expect(h).not.toHaveProperty('usedFreeze'); // only with freezes

    // Acting again starts a new streak.
    expect(await event('2026-04-04T10:00:00Z', 'nf-una')).toEqual(daily(1, '04-04', '04-04', '04-05', true));
  });

  it('with freezes: currentStreak over several days, in UTC and in Pacific/Kiritimati, bridged by a freeze', async () => {
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: metricIds.lessons, threshold: 1 }], freezes: FREEZES });
    const ada = { id: 'sk-ada', name: 'Ada' };
    const kai = { id: 'sk-kai', name: 'Kai', tz: KIRITIMATI };
    const cy = { id: 'sk-cy', name: 'Cy' };
    const steps: [at: string, user: string | TrophyApi.UpsertedUser, metric: string, expected: object, note: string][] = [
      ['2026-05-01T08:00:00Z', cy, 'lessons', daily(1, '05-01', '05-01', '05-03', true, 1), 'cy starts; a freeze keeps it a day longer'],
      ['2026-05-02T08:00:00Z', cy, 'lessons', daily(2, '05-01', '05-02', '05-04', true, 1), 'cy day 2'],
      ['2026-05-03T08:00:00Z', cy, 'lessons', daily(3, '05-01', '05-03', '05-05', true, 1), 'cy day 3'],
      ['2026-05-04T08:00:00Z', cy, 'lessons', daily(4, '05-01', '05-04', '05-06', true, 1), 'cy day 4'],
      ['2026-05-04T10:00:00Z', ada, 'lessons', daily(1, '05-04', '05-04', '05-06', true, 1), 'ada starts'],
      ['2026-05-04T15:00:00Z', ada, 'lessons', daily(1, '05-04', '05-04', '05-06', false, 1), 'ada again the same day'],
      ['2026-05-05T08:00:00Z', cy, 'lessons', daily(5, '05-01', '05-05', '05-07', true, 1), 'cy day 5'],
      ['2026-05-05T09:00:00Z', ada, 'lessons', daily(2, '05-04', '05-05', '05-07', true, 1), 'ada day 2'],
      ['2026-05-05T09:30:00Z', kai, 'lessons', daily(1, '05-05', '05-05', '05-07', true, 1), 'kai starts at 23:30 on the 5th'],
      ['2026-05-05T10:30:00Z', kai, 'lessons', daily(2, '05-05', '05-06', '05-08', true, 1), 'kai: 00:30 on the 6th, a new day'],
      ['2026-05-05T10:30:00Z', ada, 'lessons', daily(2, '05-04', '05-05', '05-07', false, 1), 'ada at that instant: still the 5th'],
      ['2026-05-06T08:00:00Z', cy, 'lessons', daily(6, '05-01', '05-06', '05-08', true, 1), 'cy day 6, then nothing more'],
      ['2026-05-06T09:00:00Z', ada, 'lessons', daily(3, '05-04', '05-06', '05-08', true, 1), 'ada day 3, then skips the 7th'],
      ['2026-05-06T10:30:00Z', kai, 'lessons', daily(3, '05-05', '05-07', '05-09', true, 1), 'kai: the 7th, then skips the 8th'],
      ['2026-05-07T09:00:00Z', { id: 'sk-bea' }, 'lessons', daily(1, '05-07', '05-07', '05-09', true, 1), 'bea starts'],
      ['2026-05-08T09:00:00Z', ada, 'quizzes', daily(3, '05-04', '05-08', '05-08', false, 0), 'ada: the 7th bridged, freeze shown spent'],
      ['2026-05-08T09:00:00Z', ada, 'lessons', daily(4, '05-04', '05-08', '05-09', true, 0), 'ada day 4 after the bridged 7th'],
      ['2026-05-08T09:00:00Z', 'sk-bea', 'lessons', daily(2, '05-07', '05-08', '05-10', true, 1), 'bea day 2'],
      ['2026-05-08T10:30:00Z', kai, 'lessons', daily(4, '05-05', '05-09', '05-10', true, 0), 'kai: the 9th, the 8th bridged'],
      ['2026-05-09T09:00:00Z', ada, 'lessons', daily(5, '05-04', '05-09', '05-10', true, 0), 'ada day 5'],
      ['2026-05-09T09:00:00Z', 'sk-bea', 'lessons', daily(3, '05-07', '05-09', '05-11', true, 1), 'bea day 3'],
    ];
    for (const [at, user, metric, expected, note] of steps) {
      expect(await event(at, user, metric), `${at} ${note}`).toEqual(expected);
    }
    // cy missed the 7th and the 8th with one freeze: lost, and the freeze shows as gone.
    expect(await event('2026-05-09T12:00:00Z', 'sk-cy', 'quizzes')).toEqual({ length: 0, frequency: 'daily', extended: false, ...fz(0) });
  });

  it('users.streak: history oldest first ending with the current period, usedFreeze, rank, in the user\'s zone', async () => {
    await s.setClock('2026-05-09T12:00:00Z'); // Kiritimati: 02:00 on the 10th

    const { result: ada, calls } = await wire.capture(() => streak('sk-ada', 7));
    expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([['GET', '/v1/users/sk-ada/streak?historyPeriods=7', 200]]);
    expect(ada).toEqual({
      length: 5, frequency: 'daily', started: '2026-05-04', periodStart: '2026-05-09', periodEnd: '2026-05-09',
      expires: '2026-05-10', ...fz(0), rank: 1, pauses: [], extended: '2026-05-09T09:00:00.000Z',
      streakHistory: [
        hday('05-03', 0, false), hday('05-04', 1, false), hday('05-05', 2, false), hday('05-06', 3, false),
        hday('05-07', 3, true), hday('05-08', 4, false), hday('05-09', 5, false),
      ],
    });

    // Without a request: the default of 7 periods, no query string.
    await drain(); // rank follows the event log
    const { result: byDefault, calls: c2 } = await wire.capture(() => client.users.streak('sk-ada', undefined, NO_RETRY));
    expect(c2.map((c) => c.path)).toEqual(['/v1/users/sk-ada/streak']);
    expect(byDefault).toEqual(ada);
    expect((await streak('sk-ada', 1)).streakHistory).toEqual([hday('05-09', 5, false)]);

    // kai is on the 10th already: the current period is that day, not yet extended, and the 8th was bridged.
    expect(await streak('sk-kai', 4)).toEqual({
      length: 4, frequency: 'daily', started: '2026-05-05', periodStart: '2026-05-10', periodEnd: '2026-05-10',
      expires: '2026-05-10', ...fz(0), rank: 2, pauses: [], extended: '2026-05-08T10:30:00.000Z',
      streakHistory: [hday('05-07', 3, false), hday('05-08', 3, true), hday('05-09', 4, false), hday('05-10', 4, false)],
    });

    expect(await streak('sk-bea', 2)).toEqual({
      length: 3, frequency: 'daily', started: '2026-05-07', periodStart: '2026-05-09', periodEnd: '2026-05-09',
      expires: '2026-05-11', ...fz(1), rank: 3, pauses: [], extended: '2026-05-09T09:00:00.000Z',
      streakHistory: [hday('05-08', 2, false), hday('05-09', 3, false)],
    });

    // A lost streak: length 0, no dates, no rank.
    const { result: cy, calls: c3 } = await wire.capture(() => streak('sk-cy', 3));
    expect(cy).toEqual({
      length: 0, frequency: 'daily', ...fz(0), pauses: [], extended: null,
      streakHistory: [hday('05-07', 0, false), hday('05-08', 0, false), hday('05-09', 0, false)],
    });
    expect(cy.rank).toBeUndefined();
    expect(JSON.parse(c3[0].response)).toMatchObject({ started: null, periodStart: null, periodEnd: null, expires: null, rank: null });

    apiError(await rejectionOf(streak('sk-nobody', 3)), TrophyApi.NotFoundError, 404);
    // Out of range: a 422, the SDK's typed error for this call (test/sdk/malformed.test.ts has every call's).
    apiError(await rejectionOf(streak('sk-ada', -1)), TrophyApi.UnprocessableEntityError, 422);
  });

  it('streaks.list: several users, longest first, with the time of the last extension', async () => {
    const ids = ['sk-bea', 'sk-cy', 'sk-ghost', 'sk-ada', 'sk-kai'];
    const { result: list, calls } = await wire.capture(() => client.streaks.list({ userIds: ids }, NO_RETRY));
    expect(calls.map((c) => [c.method, c.path, c.status]))
      .toEqual([['GET', `/v1/streaks?${ids.map((id) => `userIds=${id}`).join('&')}`, 200]]);
    expect(list.slice(0, 3)).toEqual([
      { userId: 'sk-ada', streakLength: 5, extended: '2026-05-09T09:00:00.000Z' },
      { userId: 'sk-kai', streakLength: 4, extended: '2026-05-08T10:30:00.000Z' },
      { userId: 'sk-bea', streakLength: 3, extended: '2026-05-09T09:00:00.000Z' },
    ]);
    // Lost (cy) and unknown (ghost): length 0, extended null on the wire.
    expect(list.slice(3).sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
      { userId: 'sk-cy', streakLength: 0 }, { userId: 'sk-ghost', streakLength: 0 },
    ]);
    for (const item of list.slice(3)) expect(item.extended, item.userId).toBeUndefined();
    for (const item of JSON.parse(calls[0].response).slice(3)) expect(item.extended, item.userId).toBeNull();

    // A single id is sent as one parameter.
    const { result: one, calls: c2 } = await wire.capture(() => client.streaks.list({ userIds: 'sk-kai' }, NO_RETRY));
    expect(c2.map((c) => c.path)).toEqual(['/v1/streaks?userIds=sk-kai']);
    expect(one).toEqual([{ userId: 'sk-kai', streakLength: 4, extended: '2026-05-08T10:30:00.000Z' }]);

    // No ids: a 422, the SDK's typed error for this call.
    apiError(await rejectionOf(client.streaks.list({}, NO_RETRY)), TrophyApi.UnprocessableEntityError, 422);
  });

  it('streaks.rankings: active (lost streaks dropped) and longest', async () => {
    await drain(); // rankings follow the event log
    const { result: active, calls } = await wire.capture(() => client.streaks.rankings({ limit: 3, type: 'active' }, NO_RETRY));
    expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([['GET', '/v1/streaks/rankings?limit=3&type=active', 200]]);
    expect(active).toEqual([
      { userId: 'sk-ada', name: 'Ada', streakLength: 5 },
      { userId: 'sk-kai', name: 'Kai', streakLength: 4 },
      { userId: 'sk-bea', streakLength: 3 },
    ]);
    expect(active[2].name).toBeUndefined();
    expect(JSON.parse(calls[0].response)[2].name).toBeNull(); // bea has no name

    // Defaults: active, 10.
    await drain(); // rankings follow the event log
    const { result: byDefault, calls: c2 } = await wire.capture(() => client.streaks.rankings(undefined, NO_RETRY));
    expect(c2.map((c) => c.path)).toEqual(['/v1/streaks/rankings']);
    expect(byDefault).toEqual(active);
    await drain(); // rankings follow the event log
    expect((await client.streaks.rankings({ limit: 2 }, NO_RETRY)).map((r) => r.userId)).toEqual(['sk-ada', 'sk-kai']);

    // Longest ever, lost or not: cy's 6, and una's 2 from April.
    await drain(); // rankings follow the event log
    expect(await client.streaks.rankings({ type: 'longest', limit: 3 }, NO_RETRY)).toEqual([
      { userId: 'sk-cy', name: 'Cy', streakLength: 6 },
      { userId: 'sk-ada', name: 'Ada', streakLength: 5 },
      { userId: 'sk-kai', name: 'Kai', streakLength: 4 },
    ]);
    await drain(); // rankings follow the event log
    expect((await client.streaks.rankings({ type: 'longest' }, NO_RETRY)).map((r) => [r.userId, r.streakLength]))
      .toEqual([['sk-cy', 6], ['sk-ada', 5], ['sk-kai', 4], ['sk-bea', 3], ['nf-una', 2]]);
  });

  it('admin.streaks.freezes.create grants one freeze per entry up to the maximum, with parsed issues', async () => {
    expect(await event('2026-05-12T09:00:00Z', 'fz-fin')).toEqual(daily(1, '05-12', '05-12', '05-14', true, 1));

    const freezes = [{ userId: 'fz-fin' }, { userId: 'fz-fin' }, { userId: 'fz-fin' }, { userId: 'fz-ghost' }];
    const { result, calls } = await wire.capture(() => client.admin.streaks.freezes.create({ freezes }, NO_RETRY));
    expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([['POST', '/admin/v1/streaks/freezes', 200]]);
    expect(JSON.parse(calls[0].body ?? '{}')).toEqual({ freezes });
    // 1 held + 2 granted = the maximum of 3; the third entry and the unknown user are issues.
    expect(result).toEqual({
      issues: [
        issue('fz-fin', 'warning', 'Would exceed maximum freeze limit'),
        issue('fz-ghost', 'error', 'User does not exist'),
      ],
    });
    expect(result.issues.map((i) => i.level)).toEqual([TrophyApi.BulkInsertIssueLevel.Warning, TrophyApi.BulkInsertIssueLevel.Error]);
    apiError(await rejectionOf(client.users.get('fz-ghost', NO_RETRY)), TrophyApiError, 404);

    expect(await streak('fz-fin', 1)).toMatchObject({ length: 1, expires: '2026-05-16', ...fz(3) });

    // Three days skipped (13th to 15th): the three freezes bridge them.
    expect(await event('2026-05-16T09:00:00Z', 'fz-fin')).toEqual(daily(2, '05-12', '05-16', '05-17', true, 0));
    expect((await streak('fz-fin', 5)).streakHistory).toEqual([
      hday('05-12', 1, false), hday('05-13', 1, true), hday('05-14', 1, true), hday('05-15', 1, true), hday('05-16', 2, false),
    ]);

    // Within the maximum: no issues.
    expect(await client.admin.streaks.freezes.create({ freezes: [{ userId: 'fz-fin' }] }, NO_RETRY)).toEqual({ issues: [] });
    expect(await streak('fz-fin', 1)).toMatchObject({ length: 2, expires: '2026-05-18', ...fz(1) });
  });

  it('admin.streaks.restore restores a lost streak to its longest length, with parsed restoredUsers and issues', async () => {
    const rae = { id: 'rs-rae', name: 'Rae' };
    expect(await event('2026-05-19T09:00:00Z', rae)).toEqual(daily(1, '05-19', '05-19', '05-21', true, 1));
    expect(await event('2026-05-20T09:00:00Z', rae)).toEqual(daily(2, '05-19', '05-20', '05-22', true, 1));
    expect(await event('2026-05-22T09:00:00Z', rae)).toEqual(daily(3, '05-19', '05-22', '05-23', true, 0)); // the 21st bridged
    // The 23rd missed with no freeze left: lost on the 24th.
    await s.setClock('2026-05-24T12:00:00Z');
    const lost = await streak('rs-rae', 1);
    expect(lost).toMatchObject({ length: 0, ...fz(0) });
    expect(lost.rank).toBeUndefined();
    expect(await event('2026-05-24T12:00:00Z', 'rs-new')).toEqual(daily(1, '05-24', '05-24', '05-26', true, 1));

    const users = [{ id: 'rs-rae' }, { id: 'rs-new' }, { id: 'rs-ghost' }];
    const { result, calls } = await wire.capture(() => client.admin.streaks.restore({ users }, NO_RETRY));
    expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([['POST', '/admin/v1/streaks/restore', 200]]);
    expect(JSON.parse(calls[0].body ?? '{}')).toEqual({ users });
    expect(result).toEqual({
      restoredUsers: ['rs-rae'],
      issues: [issue('rs-new', 'warning', 'No streak to restore'), issue('rs-ghost', 'error', 'User does not exist')],
    });

    // Restored to 3, alive through today, ranked again.
    expect(await streak('rs-rae', 1)).toMatchObject({
      length: 3, periodStart: '2026-05-24', periodEnd: '2026-05-24', expires: '2026-05-24', ...fz(0), rank: 1,
    });
    expect((await streak('rs-new', 1)).rank).toBe(2);
    expect(await event('2026-05-24T13:00:00Z', rae)).toMatchObject({
      length: 4, extended: true, periodStart: '2026-05-24', expires: '2026-05-25', ...fz(0),
    });

    expect(await client.admin.streaks.restore({ users: [{ id: 'rs-rae' }] }, NO_RETRY)).toEqual({
      restoredUsers: [],
      issues: [issue('rs-rae', 'warning', 'Streak is already at maximum length')],
    });
  });

  it('ranks equal streaks by who reached the length first (docs/api.md: ties in rankings)', async () => {
    // m reaches 2 first, then z, then a: neither alphabetical nor reverse-alphabetical order.
    for (const day of ['05-26', '05-27']) {
      await event(`2026-${day}T08:00:00Z`, { id: 'tie-m', name: 'M' });
      await event(`2026-${day}T09:00:00Z`, { id: 'tie-z', name: 'Z' });
      await event(`2026-${day}T10:00:00Z`, { id: 'tie-a', name: 'A' });
    }
    await s.setClock('2026-05-27T12:00:00Z');
    await drain(); // rankings follow the event log
    const ranking = await client.streaks.rankings({ type: 'active' }, NO_RETRY);
    const ranks = Object.fromEntries(await Promise.all(['tie-m', 'tie-z', 'tie-a'].map(async (id) => [id, (await streak(id, 1)).rank])));
    // Both reads at once, so that a failure shows the order of each.
    expect({ ranking: ranking.map((r) => r.userId), ranks }).toEqual({
      ranking: ['tie-m', 'tie-z', 'tie-a'], ranks: { 'tie-m': 1, 'tie-z': 2, 'tie-a': 3 },
    });
    expect(ranking).toEqual([
      { userId: 'tie-m', name: 'M', streakLength: 2 },
      { userId: 'tie-z', name: 'Z', streakLength: 2 },
      { userId: 'tie-a', name: 'A', streakLength: 2 },
    ]);
  });

  it('weekly: Monday-to-Sunday periods in each user\'s zone, through every read', async () => {
    await putStreakSettings(s, { frequency: 'weekly', metrics: [{ metricId: metricIds.lessons, threshold: 1 }] });
    const wes = { id: 'wk-wes', name: 'Wes' };
    const kir = { id: 'wk-kir', name: 'Kir', tz: KIRITIMATI };
    const steps: [at: string, user: TrophyApi.UpsertedUser, expected: object, note: string][] = [
      ['2026-05-31T12:00:00Z', wes, weekly(1, '05-25', '05-25', '05-31', '06-07', true), 'wes on a Sunday'],
      ['2026-06-07T09:30:00Z', kir, weekly(1, '06-01', '06-01', '06-07', '06-14', true), 'kir: Sunday 23:30'],
      ['2026-06-07T10:30:00Z', kir, weekly(2, '06-01', '06-08', '06-14', '06-21', true), 'kir: Monday 00:30, a new week'],
      ['2026-06-07T10:30:00Z', wes, weekly(2, '05-25', '06-01', '06-07', '06-14', true), 'wes at that instant: still Sunday'],
      ['2026-06-08T09:00:00Z', wes, weekly(3, '05-25', '06-08', '06-14', '06-21', true), 'wes on Monday'],
      ['2026-06-10T09:00:00Z', wes, weekly(3, '05-25', '06-08', '06-14', '06-21', false), 'wes again that week'],
      ['2026-06-10T09:00:00Z', kir, weekly(2, '06-01', '06-08', '06-14', '06-21', false), 'kir again that week'],
    ];
    for (const [at, user, expected, note] of steps) {
      const got = await event(at, user);
      expect(got, `${at} ${note}`).toEqual(expected);
      for (const k of FREEZE_KEYS) expect((got as unknown as Record<string, unknown>)[k], `${note}: ${k}`).toBeUndefined();
    }

    await s.setClock('2026-06-10T12:00:00Z');
    const week = (start: string, end: string, length: number) => ({ periodStart: `2026-${start}`, periodEnd: `2026-${end}`, length, usedPause: false });
    expect(await streak('wk-wes', 4)).toEqual({
      length: 3, frequency: 'weekly', started: '2026-05-25', periodStart: '2026-06-08', periodEnd: '2026-06-14',
      expires: '2026-06-21', rank: 1, pauses: [], extended: '2026-06-08T09:00:00.000Z',
      streakHistory: [week('05-18', '05-24', 0), week('05-25', '05-31', 1), week('06-01', '06-07', 2), week('06-08', '06-14', 3)],
    });
    expect(await streak('wk-kir', 2)).toEqual({
      length: 2, frequency: 'weekly', started: '2026-06-01', periodStart: '2026-06-08', periodEnd: '2026-06-14',
      expires: '2026-06-21', rank: 2, pauses: [], extended: '2026-06-07T10:30:00.000Z',
      streakHistory: [week('06-01', '06-07', 1), week('06-08', '06-14', 2)],
    });
    // sk-ada's daily streak does not carry over into weekly periods.
    expect(await client.streaks.list({ userIds: ['wk-kir', 'sk-ada', 'wk-wes'] }, NO_RETRY)).toEqual([
      { userId: 'wk-wes', streakLength: 3, extended: '2026-06-08T09:00:00.000Z' },
      { userId: 'wk-kir', streakLength: 2, extended: '2026-06-07T10:30:00.000Z' },
      { userId: 'sk-ada', streakLength: 0 },
    ]);
    await drain(); // rankings follow the event log
    expect(await client.streaks.rankings({ type: 'active', limit: 10 }, NO_RETRY)).toEqual([
      { userId: 'wk-wes', name: 'Wes', streakLength: 3 },
      { userId: 'wk-kir', name: 'Kir', streakLength: 2 },
    ]);
  });
});

describe.each(targets())('SDK 1.0.42 points on %s', (target) => {
  let s: TestServer;
  let client: TrophyApiClient;
  let metricIds: Record<string, string>;
  let triggerIds: string[];

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true, processes: true });
    await s.setClock('2026-04-01T08:00:00Z');
    metricIds = await s.metrics('lessons');
    const ach = await createAchievements(s, [{ name: 'Onboarded', key: 'onboarded', trigger: 'api' }]);
    const r = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'XP', key: 'xp', description: 'Experience', badge: { url: 'https://cdn.example.com/xp.png' }, maxPoints: 1000,
        levels: [{ name: 'Rookie', key: 'rookie', points: 20 }],
        triggers: [
          { type: 'metric', metricId: metricIds.lessons, metricThreshold: 2, points: 10, status: 'active' },
          { type: 'achievement', achievementId: ach.onboarded, points: 5, status: 'active' },
          { type: 'user_creation', points: 1, status: 'active' },
          { type: 'time', timeUnit: 'hours', timeInterval: 6, points: 2 },
        ],
      }],
    });
    expect(r.status, r.text).toBe(201);
    triggerIds = (r.body.created[0].triggers as { id: string }[]).map((t) => t.id);
    client = sdkClient(s);
  });
  afterAll(async () => { await s?.close(); });

  it('metrics.event parses the points the event awarded, keyed by system', async () => {
    const first = await client.metrics.event('lessons', { user: { id: 'pt-ada' }, value: 1 }, NO_RETRY);
    expect(first.points).toEqual({
      xp: {
        id: expect.any(String), key: 'xp', name: 'XP', description: 'Experience', badgeUrl: 'https://cdn.example.com/xp.png',
        maxPoints: 1000, total: 1, added: 1,
        awards: [{ id: expect.any(String), awarded: 1, date: '2026-04-01T08:00:00.000Z', total: 1,
          trigger: expect.objectContaining({ id: triggerIds[2], type: 'user_creation', points: 1 }), boosts: [] }],
      },
    });
    const second = await client.metrics.event('lessons', { user: { id: 'pt-ada' }, value: 5 }, NO_RETRY);
    // 1 + 5 = 6 lessons pass 2, 4 and 6: three times 10 points.
    expect(second.points.xp).toMatchObject({ total: 31, added: 30, awards: [{ awarded: 30, total: 31 }] });
    expect((second.points.xp as unknown as { level: unknown }).level).toMatchObject({ key: 'rookie', points: 20 });
  });

  it('achievements.complete parses the points of the achievement trigger', async () => {
    const r = await client.achievements.complete('onboarded', { user: { id: 'pt-ada' } }, NO_RETRY);
    expect(r.points.xp).toMatchObject({ key: 'xp', total: 36, added: 5, awards: [{ awarded: 5, trigger: { type: 'achievement' } }] });
  });

  it('users.points returns the total and the newest awards first, at most `awards`', async () => {
    const r = await client.users.points('pt-ada', 'xp', { awards: 2 }, NO_RETRY);
    expect(r).toMatchObject({ id: expect.any(String), key: 'xp', name: 'XP', total: 36, maxPoints: 1000 });
    expect(r.awards.map((a) => a.awarded)).toEqual([5, 30]);
    expect(r.awards[1].trigger).toMatchObject({ type: 'metric', metricName: 'Metric lessons', metricThreshold: 2, points: 10 });
    expect((r as unknown as { level: { key: string } }).level.key).toBe('rookie');
    apiError(await rejectionOf(client.users.points('pt-ada', 'nope', {}, NO_RETRY)), TrophyApi.NotFoundError, 404);
    apiError(await rejectionOf(client.users.points('pt-nobody', 'xp', {}, NO_RETRY)), TrophyApi.NotFoundError, 404);
  });

  it('users.pointsEventSummary sums the points per day', async () => {
    const rows = await client.users.pointsEventSummary('pt-ada', 'xp', {
      aggregation: 'daily', startDate: '2026-03-31', endDate: '2026-04-01',
    }, NO_RETRY);
    expect(rows).toEqual([{ date: '2026-03-31', total: 0, change: 0 }, { date: '2026-04-01', total: 36, change: 36 }]);
  });

  it('points.summary returns the 11 ranges of the tenant\'s totals', async () => {
    await s.workers!.testing.drainNow();
    const ranges = await client.points.summary('xp', {}, NO_RETRY);
    expect(ranges).toHaveLength(11);
    expect(ranges[0]).toEqual({ from: 0, to: 0, users: 0 });
    expect(ranges[1]).toEqual({ from: 1, to: 10, users: 0 });
    expect(ranges[4]).toEqual({ from: 31, to: 40, users: 1 });
    apiError(await rejectionOf(client.points.summary('nope', {}, NO_RETRY)), TrophyApi.NotFoundError, 404);
  });

  it('points.system returns the system with its active triggers, dates parsed', async () => {
    const r = await client.points.system('xp', NO_RETRY);
    expect(r).toMatchObject({ id: expect.any(String), name: 'XP', description: 'Experience', maxPoints: 1000 });
    expect(r.triggers.map((t) => t.type).sort()).toEqual(['achievement', 'metric', 'user_creation']);
    for (const t of r.triggers) {
      expect(t.created).toBeInstanceOf(Date);
      expect(t.updated).toBeInstanceOf(Date);
    }
    apiError(await rejectionOf(client.points.system('nope', NO_RETRY)), TrophyApi.NotFoundError, 404);
  });
});

describe.each(targets())('SDK 1.0.42 leaderboards on %s', (target) => {
  let s: TestServer;
  let client: TrophyApiClient;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', processes: true });
    await s.setClock('2026-08-03T09:00:00Z');
    const ids = await s.metrics('lessons');
    const r = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'All time', key: 'all-time', rankBy: 'metric', metricId: ids.lessons, status: 'active', maxParticipants: 50 },
        { name: 'Weekly', key: 'weekly', rankBy: 'metric', metricId: ids.lessons, status: 'active', runUnit: 'day', runInterval: 7, start: '2026-08-03' },
        { name: 'Later', key: 'later', rankBy: 'metric', metricId: ids.lessons, status: 'scheduled', start: '2026-09-01' },
      ],
    });
    expect(r.status, r.text).toBe(201);
    client = sdkClient(s);
  });
  afterAll(async () => { await s?.close(); });

  it('metrics.event parses the leaderboards the event changed', async () => {
    const r = await client.metrics.event('lessons', { user: { id: 'lb-ada', name: 'Ada' }, value: 3 }, NO_RETRY);
    expect(Object.keys(r.leaderboards).sort()).toEqual(['all-time', 'weekly']);
    expect(r.leaderboards['all-time']).toMatchObject({
      key: 'all-time', name: 'All time', rankBy: 'metric', rank: 1, threshold: 0, maxParticipants: 50, start: '2026-08-03',
    });
    expect(r.leaderboards.weekly).toMatchObject({ rank: 1, end: '2026-08-09', runUnit: 'day', runInterval: 7 });
    await client.metrics.event('lessons', { user: { id: 'lb-bo' }, value: 5 }, NO_RETRY);
  });

  it('leaderboards.all lists the active and scheduled boards with their status', async () => {
    const all = await client.leaderboards.all(NO_RETRY);
    expect(all.map((b) => [b.key, b.status]).sort()).toEqual([['all-time', 'active'], ['later', 'scheduled'], ['weekly', 'active']]);
  });

  it('leaderboards.get returns the rankings, a page of them, around a user, and a past run', async () => {
    const r = await client.leaderboards.get('all-time', {}, NO_RETRY);
    expect(r).toMatchObject({ key: 'all-time', status: 'active' });
    // laurel's percentile (of 2 participants) passes through the SDK as it does the spec's fields.
    expect(r.rankings).toEqual([
      { userId: 'lb-bo', rank: 1, value: 5, percentile: 100 },
      { userId: 'lb-ada', userName: 'Ada', rank: 2, value: 3, percentile: 50 },
    ]);
    expect((await client.leaderboards.get('all-time', { offset: 1, limit: 1 }, NO_RETRY)).rankings.map((x) => x.userId)).toEqual(['lb-ada']);
    expect((await client.leaderboards.get('all-time', { userId: 'lb-ada' }, NO_RETRY)).rankings.map((x) => x.rank)).toEqual([2]);
    await s.setClock('2026-08-11T09:00:00Z');
    expect((await client.leaderboards.get('weekly', {}, NO_RETRY)).rankings).toEqual([]);
    expect((await client.leaderboards.get('weekly', { run: '2026-08-03' }, NO_RETRY)).rankings.map((x) => x.userId)).toEqual(['lb-bo', 'lb-ada']);
    apiError(await rejectionOf(client.leaderboards.get('nope', {}, NO_RETRY)), TrophyApi.NotFoundError, 404);
  });

  it('users.leaderboard returns the rank, the value and the daily history with Date timestamps', async () => {
    const r = await client.users.leaderboard('lb-ada', 'all-time', { numEvents: 5 }, NO_RETRY);
    expect(r).toMatchObject({ key: 'all-time', rank: 2, value: 3 });
    expect(r.history).toHaveLength(1);
    // The day's start in Ada's zone (UTC) as a Date; 1.21.1's `date` passes through the SDK untouched.
    expect(r.history[0].timestamp).toEqual(new Date('2026-08-03T00:00:00.000Z'));
    expect(r.history[0]).toMatchObject({ date: '2026-08-03', rank: 1, value: 3 });
    apiError(await rejectionOf(client.users.leaderboard('lb-nobody', 'all-time', {}, NO_RETRY)), TrophyApi.NotFoundError, 404);
  });
});

describe.each(targets())('SDK 1.0.42 wrapped on %s', (target) => {
  let s: TestServer;
  let client: TrophyApiClient;

  const event = async (at: string, user: string, value: number, metric = 'lessons') => {
    await s.setClock(at);
    await client.metrics.event(metric, { user: { id: user }, value }, NO_RETRY);
  };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', processes: true });
    await s.setClock('2026-01-05T09:00:00Z');
    const metricIds = await s.metrics('lessons', 'quizzes');
    await createAchievements(s, [{ name: 'Five lessons', key: 'five', trigger: 'metric', metricId: metricIds.lessons, metricValue: 5, status: 'active' }]);
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: metricIds.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Lessons', key: 'lessons-all', rankBy: 'metric', metricId: metricIds.lessons, status: 'active' }],
    });
    expect(board.status, board.text).toBe(201);
    await putStreakSettings(s, { frequency: 'weekly', metrics: [{ metricId: metricIds.lessons, threshold: 1 }] });
    client = sdkClient(s);
    await event('2026-01-05T10:00:00Z', 'wr-ada', 2);
    await event('2026-01-06T10:00:00Z', 'wr-ada', 1, 'quizzes');
    await event('2026-01-13T10:00:00Z', 'wr-ada', 4);
    await event('2026-02-02T10:00:00Z', 'wr-ada', 1);
    await s.setClock('2026-03-01T10:00:00Z');
    await client.users.create({ id: 'wr-idle' }, NO_RETRY);
  });
  afterAll(async () => { await s?.close(); });

  it('users.wrapped parses metrics, points, achievements, a leaderboard and the longest streak', async () => {
    const r = await client.users.wrapped('wr-ada', {}, NO_RETRY);
    expect(r.user).toMatchObject({ id: 'wr-ada', subscribeToEmails: true });
    expect(r.user.created).toBeInstanceOf(Date);
    expect(r.activity).toMatchObject({ daysActive: 4, weeksActive: 3, monthsActive: 2 });
    const { mostActiveDay, mostActiveWeek, mostActiveMonth, entireYear } = r.activity;
    // One metric a day: 01-13 changed most (4).
    expect(mostActiveDay.date).toBe('2026-01-13');
    expect(mostActiveWeek).toMatchObject({ start: '2026-01-05', end: '2026-01-11' });
    expect(mostActiveMonth.month).toBe(0);
    expect(entireYear.metrics.lessons).toEqual({ name: 'Metric lessons', units: '', currentTotal: 7, changeThisPeriod: 7, percentChange: 0, byAttribute: {} });
    expect(entireYear.points.xp).toMatchObject({ name: 'XP', currentTotal: 70, changeThisPeriod: 70, percentChange: 0 });
    expect(entireYear.achievements).toHaveLength(1);
    expect(entireYear.achievements[0]).toMatchObject({ key: 'five', name: 'Five lessons' });
    expect(entireYear.achievements[0].achievedAt).toBeInstanceOf(Date);
    expect(entireYear.leaderboards['lessons-all']).toMatchObject({ key: 'lessons-all', rank: 1, value: 2 });
    expect(entireYear.longestStreak).toEqual({ length: 2, frequency: 'weekly', periodStart: '2026-01-12', periodEnd: '2026-01-18', started: '2026-01-05' });
    expect((await client.users.wrapped('wr-ada', { year: 2026 }, NO_RETRY)).activity.daysActive).toBe(4);
  });

  it('users.wrapped parses a user without activity, and raises NotFoundError for an unknown user', async () => {
    const r = await client.users.wrapped('wr-idle', { year: 2026 }, NO_RETRY);
    expect(r.activity).toMatchObject({ daysActive: 0, weeksActive: 0, monthsActive: 0 });
    expect(r.activity.mostActiveDay).toEqual({ date: '2026-01-01', metrics: {}, points: {}, achievements: [], leaderboards: {} });
    expect(r.activity.entireYear.longestStreak).toEqual({ length: 0, frequency: 'weekly' });
    apiError(await rejectionOf(client.users.wrapped('wr-nobody', {}, NO_RETRY)), TrophyApi.NotFoundError, 404);
    apiError(await rejectionOf(client.users.wrapped('wr-ada', { year: 1900 }, NO_RETRY)), TrophyApi.UnprocessableEntityError, 422);
  });

  it('users.wrapped parses percent changes and changes beyond a double\'s range, given as its largest value', async () => {
    // 1e300 against 1e-15 the day before: 1e317 percent; +1.7e308 twice after -1.7e308: a change of 3.4e308.
    await event('2026-02-10T10:00:00Z', 'wr-huge', 1e-15, 'quizzes');
    await event('2026-02-11T10:00:00Z', 'wr-huge', 1e300, 'quizzes');
    await event('2026-02-16T10:00:00Z', 'wr-vast', -1.7e308, 'quizzes');
    await event('2026-02-23T10:00:00Z', 'wr-vast', 1.7e308, 'quizzes');
    await event('2026-02-24T10:00:00Z', 'wr-vast', 1.7e308, 'quizzes');
    await s.setClock('2026-03-01T10:00:00Z');
    const huge = (await client.users.wrapped('wr-huge', { year: 2026 }, NO_RETRY)).activity;
    expect(huge.mostActiveDay.date).toBe('2026-02-11');
    expect(huge.mostActiveDay.metrics.quizzes).toMatchObject({ changeThisPeriod: 1e300, percentChange: Number.MAX_VALUE });
    const vast = (await client.users.wrapped('wr-vast', { year: 2026 }, NO_RETRY)).activity;
    expect(vast.mostActiveWeek).toMatchObject({ start: '2026-02-23', end: '2026-03-01' });
    expect(vast.mostActiveWeek.metrics.quizzes).toMatchObject({ currentTotal: 1.7e308, changeThisPeriod: Number.MAX_VALUE, percentChange: Number.MAX_VALUE });
  });
});
