/**
 * SDK conformance: the official `@trophyso/node@1.0.42` client, pointed at laurel exactly as a user
 * would point it (`environment: { api: <url>/v1, admin: <url>/admin/v1 }`), must accept every
 * response of the operations laurel implements, parse them into the right values and raise the
 * right typed errors. Runs on single Redis and on the Redis Cluster.
 *
 * The SDK hides the HTTP status, the headers and its retries; a recorder around the global `fetch`
 * (test/support/sdk.ts) lets the tests check those where they matter (201 vs 202, no retried POST,
 * no Tenant-ID header, the snake_case preference keys on the wire).
 */
import { TrophyApi, TrophyApiClient, TrophyApiError } from '@trophyso/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejectionOf, sdkClient, WireRecorder, type WireCall } from './support/sdk.js';
import { startTestServer, targets, type TestServer } from './support/server.js';

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
    s = await startTestServer({ target, clock: 'manual' });
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
