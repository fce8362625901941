/**
 * The metric event path and its idempotency rules, over HTTP, on single Redis and on the Redis
 * Cluster.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('metric events on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  let ids: Record<string, string>;

  beforeAll(async () => {
    ids = await s.metrics('lessons', 'quizzes');
    await s.attributes('user', 'plan');
    await s.attributes('event', 'device');
    await s.setClock('2026-03-10T12:00:00Z');
  });

  const event = (metric: string, body: unknown, headers: Record<string, string> = {}) =>
    s.request('POST', `/api/metrics/${metric}/event`, { body, headers });

  it('answers 201 with the full event response and creates the user', async () => {
    const r = await event('lessons', { user: { id: 'ada', name: 'Ada' }, value: 2 });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      metricId: ids.lessons,
      total: 2,
      achievements: [],
      currentStreak: {
        length: 0, frequency: 'daily', started: null, periodStart: null, periodEnd: null, expires: null, extended: false,
      },
      points: {},
      leaderboards: {},
    });
    const user = await s.request('GET', '/v1/users/ada');
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ id: 'ada', name: 'Ada', subscribeToEmails: true, control: false });
  });

  it('adds negative and fractional values to the total', async () => {
    await event('lessons', { user: { id: 'bob' }, value: 0.1 });
    await event('lessons', { user: { id: 'bob' }, value: 0.2 });
    const r = await event('lessons', { user: { id: 'bob' }, value: -1.5 });
    expect(r.body.total).toBeCloseTo(-1.2, 12);
    const m = await s.request('GET', '/v1/users/bob/metrics/lessons');
    expect(m.body.current).toBeCloseTo(-1.2, 12);
  });

  it('mixes integer and fractional values without drift', async () => {
    const totals: number[] = [];
    for (const value of [1, 2.5, 1, -0.5, 1, 0.1, 0.2, -0.3, 1e15, -1e15]) {
      totals.push((await event('lessons', { user: { id: 'mix' }, value })).body.total);
    }
    expect(totals).toEqual([1, 3.5, 4.5, 4, 5, 5.1, 5.3, 5, 1e15 + 5, 5]);
    const q = '?aggregation=daily&startDate=2026-03-10&endDate=2026-03-10';
    expect((await s.request('GET', `/v1/users/mix/metrics/lessons/event-summary${q}`)).body).toEqual([{ date: '2026-03-10', total: 5, change: 5 }]);
    // Integers keep all their digits, as the metric's total does.
    await event('lessons', { user: { id: 'big' }, value: 9007199254740991 });
    await event('lessons', { user: { id: 'big' }, value: -7777777777777777 });
    expect((await s.request('GET', '/v1/users/big/metrics/lessons')).body.current).toBe(1229421476963214);
    expect((await s.request('GET', `/v1/users/big/metrics/lessons/event-summary${q}`)).body).toEqual([{ date: '2026-03-10', total: 1229421476963214, change: 1229421476963214 }]);
  });

  it('answers on /v1 as on /api, and keeps totals per metric', async () => {
    const a = await s.request('POST', '/v1/metrics/quizzes/event', { body: { user: { id: 'cy' }, value: 5 } });
    const b = await event('lessons', { user: { id: 'cy' }, value: 1 });
    expect(a.status).toBe(201);
    expect(a.body.total).toBe(5);
    expect(b.body.total).toBe(1);
  });

  it('refuses non-finite, missing and mistyped values with 400', async () => {
    for (const raw of ['{"user":{"id":"x"},"value":1e999}', '{"user":{"id":"x"}}', '{"user":{"id":"x"},"value":"3"}',
      '{"user":{"id":""},"value":1}', '{"value":1}', '[]', '{"user":{"id":"x"},"value":1,"attributes":{"device":3}}']) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { raw });
      expect(r.status, raw).toBe(400);
      expect(typeof r.body.error, raw).toBe('string');
    }
    expect((await s.request('GET', '/v1/users/x')).status).toBe(404);
  });

  it('refuses strings that are not text (U+0000, a lone surrogate) with 400, anywhere in the body or path', async () => {
    for (const raw of ['{"user":{"id":"a\\u0000b"},"value":1}', '{"user":{"id":"a\\ud800"},"value":1}', '{"user":{"id":"\\udc00a"},"value":1}',
      '{"user":{"id":"n1"},"value":1,"attributes":{"device":"x\\u0000"}}', '{"user":{"id":"n1","name":"\\ud83d"},"value":1}']) {
      const r = await s.request('POST', '/api/metrics/lessons/event', { raw });
      expect(r.status, raw).toBe(400);
      expect(r.body.error, raw).toMatch(/U\+0000 or an unpaired surrogate/);
    }
    // A pair written as escapes is text, and an escaped backslash before u0000 too.
    const pair = await s.request('POST', '/api/metrics/lessons/event', { raw: '{"user":{"id":"n\\ud83d\\ude00","name":"\\\\u0000"},"value":1}' });
    expect(pair.status, pair.text).toBe(201);
    expect((await s.request('GET', `/v1/users/${encodeURIComponent('n😀')}`)).body).toMatchObject({ id: 'n😀', name: '\\u0000' });
    expect((await s.request('PUT', '/v1/users/a%00b', { body: { name: 'x' } })).status).toBe(400);
  });

  it('answers 404 for an unknown metric and changes nothing', async () => {
    const r = await event('nope', { user: { id: 'ghost' }, value: 1 });
    expect(r.status).toBe(404);
    expect(r.body.error).toContain('nope');
    expect((await s.request('GET', '/v1/users/ghost')).status).toBe(404);
  });

  it('checks event attribute keys and names the unknown ones', async () => {
    const ok = await event('lessons', { user: { id: 'dee' }, value: 1, attributes: { device: 'ios' } });
    expect(ok.status).toBe(201);
    const bad = await event('lessons', { user: { id: 'dee' }, value: 1, attributes: { device: 'ios', os: '1', app: '2' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/os, app/);
    expect((await s.request('GET', '/v1/users/dee/metrics/lessons')).body.current).toBe(1);
  });

  it('upserts the user inline: new fields update, absent fields stay', async () => {
    await event('lessons', { user: { id: 'eve', email: 'eve@example.com', tz: 'Europe/Paris', attributes: { plan: 'pro' } }, value: 1 });
    await event('lessons', { user: { id: 'eve', name: 'Eve', email: null }, value: 1 });
    const u = (await s.request('GET', '/v1/users/eve')).body;
    expect(u).toMatchObject({ id: 'eve', name: 'Eve', email: 'eve@example.com', tz: 'Europe/Paris', attributes: { plan: 'pro' } });
  });

  it('appends one entry to the partition event log per processed event, none per replay', async () => {
    const { redis, keys } = s.api.services;
    const log = keys.forUser('_', 'logged').log;
    const before = await redis.xlen(log);
    const h = { 'Idempotency-Key': 'L1' };
    const r = await event('lessons', { user: { id: 'logged' }, value: 2.5, attributes: { device: 'web' } }, h);
    expect((await event('lessons', { user: { id: 'logged' }, value: 2.5 }, h)).status).toBe(202);
    expect(await redis.xlen(log)).toBe(before + 1);
    const [[, [field, json]]] = await redis.xrevrange(log, '+', '-', 'COUNT', 1);
    expect(field).toBe('event');
    expect(JSON.parse(json)).toEqual({
      e: r.body.eventId, t: '_', u: 'logged', m: ids.lessons, v: 2.5, ts: Date.parse('2026-03-10T12:00:00Z'),
      d: '2026-03-10', k: 'L1', a: { device: 'web' }, p: s.api.services.processId, z: '',
    });
  });

  describe('idempotency', () => {
    it('processes a key once: a replay answers 202 with the current state and changes nothing', async () => {
      const first = await event('lessons', { user: { id: 'ida' }, value: 3 }, { 'Idempotency-Key': 'lesson-1' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ total: 3, idempotencyKey: 'lesson-1', idempotentReplayed: false });

      await event('lessons', { user: { id: 'ida' }, value: 4 });
      const replay = await event('lessons', { user: { id: 'ida', name: 'Changed' }, value: 100 }, { 'Idempotency-Key': 'lesson-1' });
      expect(replay.status).toBe(202);
      expect(replay.body).toMatchObject({
        eventId: first.body.eventId, metricId: ids.lessons, total: 7, idempotencyKey: 'lesson-1', idempotentReplayed: true,
        achievements: [], points: {}, leaderboards: {},
      });
      expect(replay.body.currentStreak.extended).toBe(false);
      const u = await s.request('GET', '/v1/users/ida');
      expect(u.body.name).toBeNull();
      expect((await s.request('GET', '/v1/users/ida/metrics/lessons')).body.current).toBe(7);
    });

    it('tracks keys per user and per metric', async () => {
      const h = { 'Idempotency-Key': 'shared' };
      expect((await event('lessons', { user: { id: 'jo' }, value: 1 }, h)).status).toBe(201);
      expect((await event('quizzes', { user: { id: 'jo' }, value: 1 }, h)).status).toBe(201);
      expect((await event('lessons', { user: { id: 'kim' }, value: 1 }, h)).status).toBe(201);
      expect((await event('lessons', { user: { id: 'jo' }, value: 1 }, h)).status).toBe(202);
      expect((await event('quizzes', { user: { id: 'jo' }, value: 1 }, h)).status).toBe(202);
    });

    it('omits the idempotency fields when no key is sent', async () => {
      const r = await event('lessons', { user: { id: 'lu' }, value: 1 });
      expect(r.body).not.toHaveProperty('idempotencyKey');
      expect(r.body).not.toHaveProperty('idempotentReplayed');
    });

    it('lets twenty concurrent requests with one key produce exactly one 201', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        event('lessons', { user: { id: 'race' }, value: i + 1 }, { 'Idempotency-Key': 'once' })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((x) => x === 201)).toHaveLength(1);
      expect(statuses.filter((x) => x === 202)).toHaveLength(19);
      const winner = results.find((r) => r.status === 201)!;
      expect(new Set(results.map((r) => r.body.eventId))).toEqual(new Set([winner.body.eventId]));
      const m = await s.request('GET', '/v1/users/race/metrics/lessons');
      expect(m.body.current).toBe(winner.body.total);
    });

    it('accepts keys of any characters up to 255 and refuses longer ones', async () => {
      // Colons, braces (hash-tag syntax) and percent signs must not leak into the Redis key layout.
      const key = 'lesson:42 / {p1} %3A';
      expect((await event('lessons', { user: { id: 'max' }, value: 1 }, { 'Idempotency-Key': key })).status).toBe(201);
      const replay = await event('lessons', { user: { id: 'max' }, value: 1 }, { 'Idempotency-Key': key });
      expect(replay.status).toBe(202);
      expect(replay.body.idempotencyKey).toBe(key);
      const long = await event('lessons', { user: { id: 'max' }, value: 1 }, { 'Idempotency-Key': 'k'.repeat(256) });
      expect(long.status).toBe(400);
    });

    it('keeps a key whose first request failed validation unused', async () => {
      const h = { 'Idempotency-Key': 'retry-me' };
      const bad = await event('lessons', { user: { id: 'neo', subscribeToEmails: true }, value: 1 }, h);
      expect(bad.status).toBe(422);
      const good = await event('lessons', { user: { id: 'neo' }, value: 1 }, h);
      expect(good.status).toBe(201);
    });
  });

  it('forgets keys after LAUREL_IDEMPOTENCY_WINDOW', async () => {
    const w = await startTestServer({ target, clock: 'manual', env: { LAUREL_IDEMPOTENCY_WINDOW: '3600' } });
    try {
      await w.metrics('lessons');
      const at = (iso: string) => w.setClock(iso);
      const send = () => w.request('POST', '/api/metrics/lessons/event', {
        body: { user: { id: 'win' }, value: 1 }, headers: { 'Idempotency-Key': 'k' },
      });
      await at('2026-03-10T12:00:00Z');
      expect((await send()).status).toBe(201);
      await at('2026-03-10T12:59:59Z');
      expect((await send()).status).toBe(202);
      await at('2026-03-10T13:00:01Z');
      const again = await send();
      expect(again.status).toBe(201);
      expect(again.body.total).toBe(2);
      expect((await send()).status).toBe(202);
    } finally {
      await w.close();
    }
  });

  describe('time zones and daily buckets', () => {
    it('buckets events by the local day of the user', async () => {
      // 2026-03-10T12:00Z is already the 11th in Kiritimati (UTC+14) and still the 10th in Pago Pago (UTC-11).
      await event('lessons', { user: { id: 'kiri', tz: 'Pacific/Kiritimati' }, value: 1 });
      await event('lessons', { user: { id: 'pago', tz: 'Pacific/Pago_Pago' }, value: 1 });
      const q = '?aggregation=daily&startDate=2026-03-09&endDate=2026-03-11';
      const kiri = await s.request('GET', `/v1/users/kiri/metrics/lessons/event-summary${q}`);
      const pago = await s.request('GET', `/v1/users/pago/metrics/lessons/event-summary${q}`);
      expect(kiri.body.map((r: any) => r.change)).toEqual([0, 0, 1]);
      expect(pago.body.map((r: any) => r.change)).toEqual([0, 1, 0]);
    });

    it('uses the stored time zone when an event carries none, also after it changes', async () => {
      await event('lessons', { user: { id: 'mover', tz: 'Pacific/Kiritimati' }, value: 1 });
      // No tz: the api assumes the cached zone, the script confirms it.
      await event('lessons', { user: { id: 'mover' }, value: 1 });
      // Change the zone through PUT, behind the event path's back; the next event must notice.
      await s.request('PUT', '/v1/users/mover', { body: { tz: 'Pacific/Pago_Pago' } });
      // Still the 10th in Pago Pago, but the user's clock reached the 11th: it stays there.
      await event('lessons', { user: { id: 'mover' }, value: 1 });
      // 14:00 UTC the next day: 03:00 on the 11th in Pago Pago (already the 12th in Kiritimati).
      await s.setClock('2026-03-11T14:00:00Z');
      await event('lessons', { user: { id: 'mover' }, value: 1 });
      await s.setClock('2026-03-10T12:00:00Z');
      const q = '?aggregation=daily&startDate=2026-03-10&endDate=2026-03-12';
      const rows = (await s.request('GET', `/v1/users/mover/metrics/lessons/event-summary${q}`)).body;
      expect(rows).toEqual([
        { date: '2026-03-10', total: 0, change: 0 }, { date: '2026-03-11', total: 4, change: 4 }, { date: '2026-03-12', total: 4, change: 0 },
      ]);
    });
  });
});
