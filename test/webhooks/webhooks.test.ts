/**
 * Webhooks end to end against a real HTTP receiver on loopback: the Admin API (the secret once,
 * addresses refused, rotation), both signatures verified (Standard Webhooks with the
 * `standardwebhooks` package, X-Trophy-Signature with node:crypto), payloads of a real scenario
 * through the API field by field, retries under one webhook-id until a success, a 410 disabling the
 * endpoint, points.changed gathered per 15 minutes, leaderboard.changed and rank_changed once per
 * 15 minutes, freezes earned and consumed, and two worker processes recording one event once.
 */
import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreate, adminCreateOne, putStreakSettings } from '../support/admin.js';
import { eventually } from '../support/eventually.js';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const trophySignature = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64');

describe('webhooks', () => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let ids: Record<string, string>;

  const create = async (item: Record<string, unknown>) => {
    const r = await s.request('POST', '/admin/v1/webhooks', { body: [item] });
    expect(r.status, r.text).toBe(201);
    return r.body.created[0] as { id: string; secret: string; status: string };
  };
  /** What the workers do each second, now: the drain records, the sender sends. */
  const work = async () => { await s.workers!.testing.drainNow(); return s.workers!.testing.webhooksNow(); };
  const deliveries = async (id: string) => (await s.request('GET', `/admin/v1/webhooks/${id}/deliveries?limit=100`)).body as
    { id: string; webhookId: string; type: string; status: string; attempts: number; lastStatus: number | null; payload: Record<string, unknown> }[];

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2026-06-01T10:00:00Z');
    ids = await s.metrics('lessons');
    ids = { ...ids, ...await adminCreate(s, '/admin/v1/achievements', [
      { name: 'First lesson', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 } as never,
    ]) };
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
    const level = await s.request('POST', `/admin/v1/points/${points.body.created[0].id}/levels`, { body: [{ name: 'Bronze', key: 'bronze', points: 20 }] });
    expect(level.status, level.text).toBe(201);
  });
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('answers the secret once, and refuses what cannot take webhooks', async () => {
    const w = await create({ name: 'Once', url: hook.url('/once'), events: ['achievement.completed'], status: 'inactive' });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const listed = (await s.request('GET', '/admin/v1/webhooks?limit=100')).body as Record<string, unknown>[];
    expect(listed.find((x) => x.id === w.id)).toEqual(expect.not.objectContaining({ secret: expect.anything() }));
    expect((await s.request('GET', `/admin/v1/webhooks/${w.id}`)).body).toMatchObject({ name: 'Once', status: 'inactive' });
    expect((await s.request('GET', `/admin/v1/webhooks/${w.id}`)).body.secret).toBeUndefined();
    const bad = await s.request('POST', '/admin/v1/webhooks', { body: [
      { name: 'No scheme', url: 'ftp://example.com/x', events: ['streak.lost'] },
      { name: 'No such type', url: 'https://example.com/x', events: ['streak.exploded'] },
    ] });
    // Nothing created: 200 with an issue per item (the Admin API's batch pattern).
    expect(bad.status).toBe(200);
    expect(bad.body.created).toEqual([]);
    expect(bad.body.issues).toEqual([
      expect.objectContaining({ index: 0, severity: 'error', message: 'url must use http or https' }),
      expect.objectContaining({ index: 1, severity: 'error', message: expect.stringContaining('events') }),
    ]);
    const loopback = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Here', url: 'http://127.0.0.1:9/x', events: ['streak.lost'], status: 'inactive' }] });
    expect(loopback.body.created).toHaveLength(1);
    expect((await s.request('GET', '/admin/v1/webhooks/nope/deliveries')).status).toBe(404);
  });

  it('signs every delivery both ways and sends the scenario\'s events in Trophy\'s shapes', async () => {
    const w = await create({
      name: 'All', url: hook.url('/all'),
      events: ['achievement.completed', 'streak.started', 'streak.extended', 'points.changed', 'points.level_changed'],
    });
    await s.event('lessons', { id: 'ann', name: 'Ann', email: 'ann@example.test' }, 1);
    await work();
    const first = hook.at('/all');
    expect(first.map((r) => JSON.parse(r.body).type).sort()).toEqual(['achievement.completed', 'streak.started']);
    const verifier = new StandardWebhook(w.secret);
    for (const r of first) {
      expect(() => verifier.verify(r.body, {
        'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      })).not.toThrow();
      expect(r.headers['x-trophy-signature']).toBe(trophySignature(w.secret, r.body));
      expect(r.headers['content-type']).toBe('application/json');
      expect(String(r.headers['webhook-id'])).toMatch(/^msg_[0-9a-f]{32}$/);
    }
    const body = (type: string) => JSON.parse(first.find((r) => JSON.parse(r.body).type === type)!.body);
    expect(body('achievement.completed')).toEqual({
      type: 'achievement.completed',
      user: expect.objectContaining({ id: 'ann', name: 'Ann', email: 'ann@example.test', control: false }),
      achievement: expect.objectContaining({ id: ids.first, key: 'first', name: 'First lesson', achievedAt: '2026-06-01T10:00:00.000Z' }),
    });
    expect(body('streak.started')).toEqual({
      type: 'streak.started', user: expect.objectContaining({ id: 'ann' }),
      streak: expect.objectContaining({ length: 1, frequency: 'daily', started: '2026-06-01', periodStart: '2026-06-01', periodEnd: '2026-06-01' }),
    });
    // points.changed: one per user, system and 15 minutes, sent when the window ends with the latest total.
    expect(hook.at('/all').some((r) => JSON.parse(r.body).type === 'points.changed')).toBe(false);
    await s.setClock('2026-06-01T10:15:00Z');
    await work();
    expect(hook.at('/all').slice(first.length).map((r) => JSON.parse(r.body).type)).toEqual(['points.changed']);
    // The next day: an extension, and the second award moves ann to Bronze.
    await s.setClock('2026-06-02T10:00:00Z');
    await s.event('lessons', 'ann', 1);
    await work();
    const second = hook.at('/all').slice(first.length + 1);
    expect(second.map((r) => JSON.parse(r.body).type).sort()).toEqual(['points.level_changed', 'streak.extended']);
    const levelChange = JSON.parse(second.find((r) => JSON.parse(r.body).type === 'points.level_changed')!.body);
    expect(levelChange).toMatchObject({
      user: { id: 'ann' }, points: { key: 'xp', total: 20, added: 10 }, previousLevel: null, newLevel: { key: 'bronze', name: 'Bronze', points: 20 },
    });
    expect(JSON.parse(second.find((r) => JSON.parse(r.body).type === 'streak.extended')!.body).streak).toMatchObject({ length: 2 });
    // Two more awards in the same window, drained in one pass: still one points.changed, with the latest total.
    await s.setClock('2026-06-02T10:05:00Z');
    await s.event('lessons', 'ann', 1);
    await s.event('lessons', 'ann', 1);
    await s.setClock('2026-06-02T10:15:00Z');
    await work();
    const changed = hook.at('/all').filter((r) => JSON.parse(r.body).type === 'points.changed');
    expect(changed.map((r) => JSON.parse(r.body).points.total)).toEqual([10, 40]);
    expect(JSON.parse(changed[1].body)).toMatchObject({ user: { id: 'ann' }, points: { key: 'xp', name: 'XP', total: 40, level: { key: 'bronze' } } });
    const listed = await deliveries(w.id);
    expect(listed.every((d) => d.status === 'delivered' && d.attempts === 1 && d.lastStatus === 200)).toBe(true);
    expect(listed).toHaveLength(6);
  });

  it('tries a failing receiver again under the same webhook-id until it succeeds, once', async () => {
    const w = await create({ name: 'Flaky', url: hook.url('/flaky'), events: ['achievement.completed'] });
    hook.answer('/flaky', 500, 503);
    await s.event('lessons', 'bob', 1);
    await work();
    expect(hook.at('/flaky')).toHaveLength(1);
    let [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500 });
    // Not before its backoff (5 s on the service's clock), then again.
    await work();
    expect(hook.at('/flaky')).toHaveLength(1);
    await s.setClock('2026-06-02T10:15:06Z');
    await work();
    await s.setClock('2026-06-02T10:25:00Z');
    await work();
    const got = hook.at('/flaky');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatus: 200 });
    // A retry asked for sends it again, under the same id.
    expect((await s.request('POST', `/admin/v1/webhooks/${w.id}/deliveries/${d.id}/retry`)).body).toMatchObject({ status: 'pending' });
    await work();
    expect(hook.at('/flaky')).toHaveLength(4);
    expect(hook.at('/flaky')[3].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    expect((await s.request('POST', `/admin/v1/webhooks/${w.id}/deliveries/nope/retry`)).status).toBe(404);
  });

  it('disables an endpoint that answers 410', async () => {
    const w = await create({ name: 'Gone', url: hook.url('/gone'), events: ['achievement.completed'] });
    hook.answer('/gone', 410);
    await s.event('lessons', 'cat', 1);
    await work();
    expect((await s.request('GET', `/admin/v1/webhooks/${w.id}`)).body.status).toBe('disabled');
    expect((await deliveries(w.id))[0]).toMatchObject({ status: 'failed', lastStatus: 410 });
    await s.event('lessons', 'dan', 1);
    await work();
    expect(hook.at('/gone')).toHaveLength(1);
    expect(await deliveries(w.id)).toHaveLength(1);
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const w = await create({ name: 'Rotated', url: hook.url('/rotated'), events: ['achievement.completed'] });
    const r = await s.request('POST', `/admin/v1/webhooks/${w.id}/secret`);
    expect(r.status, r.text).toBe(200);
    const fresh = r.body.secret as string;
    expect(fresh).not.toBe(w.secret);
    await s.event('lessons', 'eve', 1);
    await work();
    const [got] = hook.at('/rotated');
    for (const secret of [fresh, w.secret]) {
      expect(() => new StandardWebhook(secret).verify(got.body, {
        'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      })).not.toThrow();
    }
    expect(String(got.headers['x-trophy-signature']).split(',')).toEqual([trophySignature(fresh, got.body), trophySignature(w.secret, got.body)]);
    // A day later, the new secret alone.
    await s.setClock('2026-06-03T11:00:00Z');
    await s.event('lessons', 'fay', 1);
    await work();
    const later = hook.at('/rotated')[1];
    expect(later.headers['x-trophy-signature']).toBe(trophySignature(fresh, later.body));
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('sends the clock\'s events: a run about to start, boosts starting and finishing, a run finished with its top 10', async () => {
    await s.setClock('2026-07-01T09:00:00Z');
    const w = await create({
      name: 'Clock', url: hook.url('/clock'), events: ['leaderboard.started', 'leaderboard.finished', 'points.boost_started', 'points.boost_finished'],
    });
    const xp = (await s.request('GET', '/admin/v1/points')).body.find((p: { key: string }) => p.key === 'xp').id as string;
    const board = await s.request('POST', '/admin/v1/leaderboards', { body: [{
      name: 'Daily lessons', key: 'daily-lessons', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, start: '2026-07-02',
      runUnit: 'day', runInterval: 1, status: 'scheduled',
    }] });
    expect(board.status, board.text).toBe(201);
    const boost = await s.request('POST', `/admin/v1/points/${xp}/boosts`, { body: [{ name: 'Double day', start: '2026-07-02', end: '2026-07-02', multiplier: 2 }] });
    expect(boost.status, boost.text).toBe(201);
    const types = () => hook.at('/clock').map((r) => JSON.parse(r.body).type as string);
    await work();
    expect(types()).toEqual([]);
    // 10:00 UTC the day before the run starts.
    await s.setClock('2026-07-01T10:00:00Z');
    await work();
    expect(types()).toEqual(['leaderboard.started']);
    expect(JSON.parse(hook.at('/clock')[0].body).leaderboard).toMatchObject({ key: 'daily-lessons', start: '2026-07-02', end: '2026-07-02', rankings: [] });
    await s.setClock('2026-07-02T00:00:00Z');
    await work();
    await work();
    expect(types()).toEqual(['leaderboard.started', 'points.boost_started']);
    expect(JSON.parse(hook.at('/clock')[1].body)).toMatchObject({
      timestamp: '2026-07-02T00:00:00.000Z',
      boost: { name: 'Double day', status: 'active', start: '2026-07-02', end: '2026-07-02', multiplier: 2, pointsSystemKey: 'xp', userId: null },
    });
    // Before 10:00 UTC: the workers' own passes, which run beside the test's, find the next run's
    // announcement not due yet (at 12:00 one of them could send it before the clock moves on).
    await s.setClock('2026-07-02T09:00:00Z');
    for (const id of ['kim', 'lee']) await s.event('lessons', { id, tz: 'UTC' }, id === 'kim' ? 3 : 1);
    await s.setClock('2026-07-03T00:00:00Z');
    await work();
    expect(types().slice(2)).toEqual(['points.boost_finished']);
    // Final once every zone has finished the day (36 hours after it began in UTC).
    await s.setClock('2026-07-03T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    await s.workers!.testing.finaliseNow();
    await work();
    // With the next run's announcement: 10:00 UTC has passed on the day before it.
    expect(types().slice(3).sort()).toEqual(['leaderboard.finished', 'leaderboard.started']);
    const finished = hook.at('/clock').map((r) => JSON.parse(r.body)).find((b) => b.type === 'leaderboard.finished');
    expect(finished.leaderboard).toMatchObject({
      key: 'daily-lessons', status: 'finished', start: '2026-07-02',
      rankings: [{ userId: 'kim', rank: 1, value: 3 }, { userId: 'lee', rank: 2, value: 1 }],
    });
    expect(hook.at('/clock').map((r) => JSON.parse(r.body)).filter((b) => b.type === 'leaderboard.started').map((b) => b.leaderboard.start))
      .toEqual(['2026-07-02', '2026-07-04']);
    await s.workers!.testing.finaliseNow();
    await work();
    expect(await deliveries(w.id)).toHaveLength(5);
  });

  it('finishes without a word the runs of a board made with a start in the past, final before it was made', async () => {
    await s.setClock('2026-07-20T10:00:00Z');
    await create({ name: 'Finished', url: hook.url('/finished'), events: ['leaderboard.finished'] });
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      name: 'Back dated', key: 'back-dated', rankBy: 'metric', metricId: ids.lessons, start: '2026-07-10', runUnit: 'day', runInterval: 1, status: 'active',
    });
    await s.workers!.testing.finaliseNow();
    await work();
    // The runs of the 10th to the 18th were final before the board was made: finalised, not told.
    expect((await s.request('GET', '/api/leaderboards/back-dated?run=2026-07-15')).body.finalised).not.toBeNull();
    const told = () => hook.at('/finished').map((r) => JSON.parse(r.body).leaderboard).filter((l) => l.key === 'back-dated').map((l) => l.start);
    expect(told()).toEqual([]);
    // The 19th's became final after it (36 hours after it began): told.
    await s.setClock('2026-07-20T12:00:00Z');
    await s.workers!.testing.finaliseNow();
    await expect.poll(async () => { await work(); return told(); }).toEqual(['2026-07-19']);
  });

  it('sends streak.lost once a period ends without an extension, and not for a streak kept', async () => {
    const w = await create({ name: 'Lost', url: hook.url('/lost'), events: ['streak.lost'] });
    await s.setClock('2026-08-01T12:00:00Z');
    await s.event('lessons', { id: 'mia', tz: 'UTC' }, 1);
    await s.event('lessons', { id: 'ned', tz: 'UTC' }, 1);
    await work();
    // The next day: ned keeps his streak; mia's is not lost before the day ends.
    await s.setClock('2026-08-02T12:00:00Z');
    await s.event('lessons', 'ned', 1);
    await work();
    expect(hook.at('/lost').map((r) => r.body)).toEqual([]);
    await s.setClock('2026-08-03T00:00:01Z');
    await work();
    await work();
    expect(hook.at('/lost').map((r) => JSON.parse(r.body))).toEqual([
      { type: 'streak.lost', user: expect.objectContaining({ id: 'mia', tz: 'UTC' }), length: 1 },
    ]);
    // ned's is lost a day later, with its length.
    await s.setClock('2026-08-04T00:00:01Z');
    await work();
    expect(hook.at('/lost').map((r) => [JSON.parse(r.body).user.id, JSON.parse(r.body).length])).toEqual([['mia', 1], ['ned', 2]]);
    expect(await deliveries(w.id)).toHaveLength(2);
  });

  it('tells of an email due (emails.achievement_due) with no active template and no transport, not for a user the email skips', async () => {
    await s.setClock('2026-08-10T10:00:00Z');
    const w = await create({ name: 'Emails', url: hook.url('/emails'), events: ['emails.achievement_due'] });
    // A template of the type (inactive): the deliveries are scheduled; none would be sent.
    const t = await s.request('POST', '/admin/v1/notifications/templates', { body: [{
      key: 'done', type: 'achievement_completed', channel: 'email', status: 'inactive', subject: 'Well done', text: 'Well done.',
    }] });
    expect(t.status, t.text).toBe(201);
    await s.event('lessons', { id: 'ora', tz: 'UTC', email: 'ora@example.test' }, 1);
    // Preferences that leave email out of the type (push kept), and a user unsubscribed from all emails.
    // (Ids of their own: later cases rank other users by lessons.)
    await s.event('lessons', { id: 'push-only', tz: 'UTC', email: 'push-only@example.test' }, 1);
    const prefs = await s.request('PATCH', '/api/users/push-only/preferences', { body: { notifications: { achievement_completed: ['push'] } } });
    expect(prefs.status, prefs.text).toBe(200);
    await s.event('lessons', { id: 'unsubscribed', tz: 'UTC', email: 'unsubscribed@example.test' }, 1);
    const off = await s.request('PATCH', '/api/users/unsubscribed', { body: { subscribeToEmails: false } });
    expect(off.status, off.text).toBe(200);
    // Users created from now on are in the control group.
    await s.setClock('2026-08-10T10:01:00Z');
    await s.request('PUT', '/admin/v1/notifications/settings', { body: { controlRatio: 1 } });
    await s.event('lessons', { id: 'pat', tz: 'UTC', email: 'pat@example.test' }, 1);
    await work();
    await s.workers!.testing.notifyNow();
    await work();
    expect(hook.at('/emails')).toEqual([]);
    // 17:00 local: the email is due.
    await s.setClock('2026-08-10T17:00:00Z');
    await s.workers!.testing.notifyNow();
    await work();
    expect(hook.at('/emails').map((r) => JSON.parse(r.body))).toEqual([{
      type: 'emails.achievement_due', timestamp: '2026-08-10T17:00:00.000Z',
      user: expect.objectContaining({ id: 'ora', email: 'ora@example.test' }),
      achievement: expect.objectContaining({ key: 'first', achievedAt: '2026-08-10T10:00:00.000Z' }),
    }]);
    const suppressed = (await s.request('GET', '/admin/v1/notifications/deliveries?userId=ora')).body;
    expect(suppressed[0]).toMatchObject({ status: 'suppressed', reason: 'no_template' });
    expect(await deliveries(w.id)).toHaveLength(1);
    await s.request('PUT', '/admin/v1/notifications/settings', { body: { controlRatio: 0 } });
  });

  it('records an event once with two worker processes draining', async () => {
    const w = await create({ name: 'Twice', url: hook.url('/twice'), events: ['achievement.completed'] });
    const other = await startWorkers(s.settings, createLogger('silent'));
    try {
      for (const id of ['gus', 'hal', 'ida']) await s.event('lessons', id, 1);
      await Promise.all([s.workers!.testing.drainNow(), other.testing.drainNow()]);
      await Promise.all([s.workers!.testing.webhooksNow(), other.testing.webhooksNow()]);
    } finally {
      await other.close();
    }
    const got = hook.at('/twice');
    expect(got.map((r) => JSON.parse(r.body).user.id).sort()).toEqual(['gus', 'hal', 'ida']);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(3);
    expect(await deliveries(w.id)).toHaveLength(3);
  });

  it('sends leaderboard.changed and leaderboard.rank_changed at most once per 15 minutes, overtaken users too', async () => {
    await s.setClock('2026-10-01T10:00:00Z');
    const w = await create({ name: 'Ranks', url: hook.url('/ranks'), events: ['leaderboard.changed', 'leaderboard.rank_changed'] });
    const board = await s.request('POST', '/admin/v1/leaderboards', { body: [{
      name: 'Ranked', key: 'ranked', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 10, status: 'active',
    }] });
    expect(board.status, board.text).toBe(201);
    await s.event('lessons', { id: 'rae', name: 'Rae', tz: 'UTC' }, 2);
    await s.event('lessons', { id: 'sol', name: 'Sol', tz: 'UTC' }, 1);
    const ranked = () => hook.at('/ranks').map((r) => JSON.parse(r.body)).filter((b) => b.leaderboard.key === 'ranked');
    // The next window (the workers' own passes may have looked at this one before the events).
    await s.setClock('2026-10-01T10:15:00Z');
    await work();
    const first = ranked();
    expect(first.map((b) => [b.type, b.user?.id ?? null]).sort()).toEqual([
      ['leaderboard.changed', null], ['leaderboard.rank_changed', 'rae'], ['leaderboard.rank_changed', 'sol'],
    ]);
    expect(first.find((b) => b.type === 'leaderboard.changed').leaderboard).toMatchObject({
      key: 'ranked', name: 'Ranked', status: 'active', rankBy: 'metric', metricKey: 'lessons',
      rankings: [{ userId: 'rae', rank: 1, value: 2 }, { userId: 'sol', rank: 2, value: 1 }],
    });
    expect(first.find((b) => b.user?.id === 'sol')).toEqual({
      type: 'leaderboard.rank_changed', user: expect.objectContaining({ id: 'sol', name: 'Sol', control: false }),
      leaderboard: expect.objectContaining({ key: 'ranked', rank: 2, value: 1, previousRank: null, previousValue: null }),
    });
    // Sol overtakes Rae within the window: nothing until it ends.
    await s.setClock('2026-10-01T10:20:00Z');
    await s.event('lessons', 'sol', 3);
    await work();
    expect(ranked()).toHaveLength(3);
    await s.setClock('2026-10-01T10:30:00Z');
    await work();
    const second = ranked().slice(3);
    expect(second.map((b) => [b.type, b.user?.id ?? null]).sort()).toEqual([
      ['leaderboard.changed', null], ['leaderboard.rank_changed', 'rae'], ['leaderboard.rank_changed', 'sol'],
    ]);
    expect(second.find((b) => b.type === 'leaderboard.changed').leaderboard.rankings).toEqual([
      { userId: 'sol', rank: 1, value: 4 }, { userId: 'rae', rank: 2, value: 2 },
    ]);
    // Rae did nothing: overtaken, her rank changed.
    expect(second.find((b) => b.user?.id === 'rae').leaderboard).toMatchObject({ rank: 2, value: 2, previousRank: 1, previousValue: 2 });
    expect(second.find((b) => b.user?.id === 'sol').leaderboard).toMatchObject({ rank: 1, value: 4, previousRank: 2, previousValue: 1 });
    // Nothing changed in the next window: nothing sent.
    await s.setClock('2026-10-01T10:45:00Z');
    await work();
    expect(ranked()).toHaveLength(6);
    expect((await deliveries(w.id)).filter((d) => (d.payload.leaderboard as { key: string }).key === 'ranked')).toHaveLength(6);
  });

  it('sends streak.freeze_earned for a grant and auto-earning, streak.freeze_consumed for a period a freeze bridged', async () => {
    await putStreakSettings(s, {
      frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 1, max: 3, autoEarnInterval: 3, autoEarnAmount: 1 },
    });
    await s.setClock('2026-11-01T12:00:00Z');
    const w = await create({ name: 'Freezes', url: hook.url('/freezes'), events: ['streak.freeze_consumed', 'streak.freeze_earned'] });
    await s.event('lessons', { id: 'fern', name: 'Fern', tz: 'UTC' }, 1);
    const got = () => hook.at('/freezes').map((r) => JSON.parse(r.body)).map((b) => [b.type, b.consumed ?? b.earned, b.freezes]);
    await work();
    // The first check sees the initial freeze: nothing to report.
    expect(got()).toEqual([]);
    const grant = await s.request('POST', '/admin/v1/streaks/freezes', { body: { freezes: [{ userId: 'fern' }] } });
    expect(grant.status, grant.text).toBeLessThan(300);
    await work();
    expect(got()).toEqual([['streak.freeze_earned', 1, 2]]);
    expect(hook.at('/freezes').map((r) => JSON.parse(r.body))[0]).toEqual({
      type: 'streak.freeze_earned', user: expect.objectContaining({ id: 'fern', name: 'Fern' }), earned: 1, freezes: 2,
    });
    // Fern misses the 2nd: when it ends, a freeze bridges it.
    await s.setClock('2026-11-02T00:00:00Z');
    await work();
    await s.setClock('2026-11-03T00:00:00Z');
    await work();
    expect(got().slice(1)).toEqual([['streak.freeze_consumed', 1, 1]]);
    // And the 3rd: a second freeze spent, the day a freeze is auto-earned (every 3 days from the 1st).
    await s.setClock('2026-11-04T00:00:00Z');
    await work();
    expect(got().slice(2).sort()).toEqual([['streak.freeze_consumed', 1, 1], ['streak.freeze_earned', 1, 1]]);
    // Fern comes back: the streak goes on, nothing more consumed or earned.
    await s.setClock('2026-11-04T12:00:00Z');
    await s.event('lessons', 'fern', 1);
    await work();
    expect((await s.request('GET', '/api/users/fern/streak')).body).toMatchObject({ length: 2, freezes: 1 });
    expect(got()).toHaveLength(4);
    expect(await deliveries(w.id)).toHaveLength(4);
  });

  it('sends emails.reactivation_due when the email is due, though no template of the type exists', async () => {
    await s.setClock('2026-12-01T10:00:00Z');
    const w = await create({ name: 'Own emails', url: hook.url('/own'), events: ['emails.reactivation_due'] });
    await s.event('lessons', { id: 'gil', name: 'Gil', email: 'gil@example.test', tz: 'UTC' }, 1);
    const all = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.notifyNow(); return s.workers!.testing.webhooksNow(); };
    await all();
    await s.setClock('2026-12-04T16:59:59Z');
    await all();
    expect(hook.at('/own')).toHaveLength(0);
    await s.setClock('2026-12-04T17:00:00Z');
    await all();
    // The workers' own passes run beside these calls: one of them may be sending it right now.
    await eventually(async () => { await s.workers!.testing.webhooksNow(); expect(hook.at('/own')).toHaveLength(1); });
    expect(hook.at('/own').map((r) => JSON.parse(r.body))).toEqual([{
      type: 'emails.reactivation_due', timestamp: '2026-12-04T17:00:00.000Z', user: expect.objectContaining({ id: 'gil', email: 'gil@example.test' }),
      reactivation: { messageNumber: 1, daysSinceLastActive: 3 }, streak: null,
    }]);
    // Laurel itself sends nothing: no template.
    await eventually(async () => {
      const sent = await s.request('GET', '/admin/v1/notifications/deliveries?userId=gil&type=reactivation');
      expect(sent.body.map((d: { status: string; reason: string }) => [d.status, d.reason ?? null])).toContainEqual(['suppressed', 'no_template']);
    });
    expect(await deliveries(w.id)).toHaveLength(1);
  });

  it('keeps settled deliveries for 7 days of the service clock, then prunes them', async () => {
    await s.setClock('2026-12-20T10:00:00Z');
    const w = await create({ name: 'Kept', url: hook.url('/kept'), events: ['achievement.completed'] });
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'Late', key: 'late', trigger: 'api' } as never]);
    expect((await s.request('POST', '/api/achievements/late/complete', { body: { user: { id: 'kit' } } })).status).toBe(201);
    await work();
    expect((await deliveries(w.id)).map((d) => d.status)).toEqual(['delivered']);
    await s.setClock('2026-12-27T09:00:00Z');
    await work();
    expect(await deliveries(w.id)).toHaveLength(1);
    await s.setClock('2026-12-27T11:00:00Z');
    await work();
    expect(await deliveries(w.id)).toEqual([]);
  });
});
