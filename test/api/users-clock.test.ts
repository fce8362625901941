/**
 * The user's clock (docs/api.md, "Time zones and travel"), with the manual clock, on single Redis
 * and on the Cluster: a user who flips their zone, by the events' `tz`, a batch's items or
 * `PATCH users/{id}` with a key scoped to them, counts no limit, award cap or summary day twice;
 * moving west after the day turned re-opens nothing; a summary's running total never falls when
 * nothing took points away; a day acted on after moving east counts, a date jumped over in under 24
 * hours is not missed (no freeze spent) and one jumped over later is; what the clock holds is in
 * the user's export. A restore, from a snapshot and from the log alone, gives every clock back as
 * it was (single Redis, as the other restore tests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { restoreServer } from '../support/restore.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const KIRITIMATI = 'Pacific/Kiritimati'; // UTC+14
const PAGO_PAGO = 'Pacific/Pago_Pago'; // UTC-11

describe.each(targets())('the user\'s clock on %s', (target) => {
  let s: TestServer;
  let ids: Record<string, string>;

  const at = (iso: string) => s.setClock(iso);
  const post = async (metric: string, user: Record<string, unknown>, value: number, key?: string) => {
    const r = await s.request('POST', `/api/metrics/${metric}/event`, { body: { user, value }, key });
    expect(r.status, r.text).toBe(201);
    return r.body;
  };
  const total = async (metric: string, user: string) => (await s.request('GET', `/api/users/${user}/metrics/${metric}`)).body.current as number;
  const daily = async (path: string, start: string, end: string) => {
    const r = await s.request('GET', `${path}/event-summary?aggregation=daily&startDate=${start}&endDate=${end}`);
    expect(r.status, r.text).toBe(200);
    return r.body as { date: string; total: number; change: number }[];
  };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await at('2026-03-02T12:00:00Z');
    ids = await s.metrics('plain', 'lessons', 'taps');
    const limited = await s.request('POST', '/admin/v1/metrics', {
      body: [
        { name: 'Drills', key: 'drills', limits: { max: 20, period: 'day' } },
        { name: 'Sprints', key: 'sprints', limits: { max: 5, period: 'hour' } },
        { name: 'Laps', key: 'laps', limits: { max: 100, period: 'week' } },
        { name: 'Reads', key: 'reads', limits: { max: 10, period: 'day' } },
      ],
    });
    expect(limited.status, limited.text).toBe(201);
    ids.reads = limited.body.created[3].id;
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'XP', key: 'xp', triggers: [
          { type: 'metric', metricId: ids.taps, metricThreshold: 1, points: 10, status: 'active', maxAwards: { count: 3, period: 'day' } },
          { type: 'metric', metricId: ids.reads, metricThreshold: 10, points: 5, status: 'active', maxAwards: { count: 1, period: 'day' } },
          { type: 'metric', metricId: ids.plain, metricThreshold: 1, points: 5, status: 'active' },
        ],
      }],
    });
    expect(points.status, points.text).toBe(201);
    const streak = await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }], freezes: { initial: 2, max: 2, autoEarnInterval: 0, autoEarnAmount: 0 } },
    });
    expect(streak.status, streak.text).toBe(200);
  });
  afterAll(async () => { await s?.close(); });

  describe('a user who flips their zone farms no limit', () => {
    // 12:00 UTC on Sunday 8 March: Monday the 9th in Kiritimati, still Sunday the 8th in Pago Pago.
    beforeAll(async () => { await at('2026-03-08T12:00:00Z'); });

    it('counts a daily limit once a day of the clock, however often the zone flips', async () => {
      const totals = [];
      for (let i = 0; i < 6; i++) totals.push((await post('drills', { id: 'flip', tz: i % 2 === 0 ? KIRITIMATI : PAGO_PAGO }, 25)).total);
      expect(totals).toEqual([20, 20, 20, 20, 20, 20]);
      // The day after on the clock (Kiritimati's), whatever the zone says: a new day.
      await at('2026-03-09T10:30:00Z');
      expect((await post('drills', { id: 'flip', tz: PAGO_PAGO }, 25)).total).toBe(20); // Pago Pago: still the 8th, the clock the 9th
      await at('2026-03-09T11:00:00Z'); // Kiritimati: 01:00 on the 10th
      expect((await post('drills', { id: 'flip', tz: KIRITIMATI }, 25)).total).toBe(40);
      await at('2026-03-08T12:00:00Z');
    });

    it('counts an hourly limit once an hour of the clock (UTC and Kolkata, five and a half hours apart)', async () => {
      const totals = [];
      for (let i = 0; i < 6; i++) totals.push((await post('sprints', { id: 'hours', tz: i % 2 === 0 ? 'UTC' : 'Asia/Kolkata' }, 5)).total);
      // UTC's hour, then Kolkata's (a move east starts the later hour at once), then Kolkata's hour held.
      expect(totals).toEqual([5, 10, 10, 10, 10, 10]);
    });

    it('counts a weekly limit once a week of the clock', async () => {
      const totals = [];
      for (let i = 0; i < 6; i++) totals.push((await post('laps', { id: 'weeks', tz: i % 2 === 0 ? KIRITIMATI : PAGO_PAGO }, 150)).total);
      expect(totals).toEqual([100, 100, 100, 100, 100, 100]);
    });

    it('pays a trigger capped at three awards a day three times', async () => {
      let points = 0;
      for (let i = 0; i < 8; i++) {
        const body = await post('taps', { id: 'taps', tz: i % 2 === 0 ? KIRITIMATI : PAGO_PAGO }, 1);
        points = body.points.xp?.total ?? points;
      }
      expect(points).toBe(30);
    });

    it('counts a batch whose items flip the zone as the events one by one', async () => {
      const items = Array.from({ length: 10 }, (_, i) => ({ key: 'drills', user: { id: 'batch', tz: i % 2 === 0 ? KIRITIMATI : PAGO_PAGO }, value: 25 }));
      const r = await s.request('POST', '/admin/v1/metrics/events', { body: items });
      expect(r.status, r.text).toBe(202);
      await eventually(async () => {
        expect((await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`)).body).toMatchObject({ processed: 10, failed: 0 });
      });
      expect(await total('drills', 'batch')).toBe(20);
    });

    it('counts the limit once for a key scoped to the user that moves its zone before each event', async () => {
      await post('plain', { id: 'device' }, 1);
      const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'device' }] });
      expect(k.status, k.text).toBe(201);
      const key = k.body.created[0].key as string;
      for (let i = 0; i < 8; i++) {
        const moved = await s.request('PATCH', '/api/users/device', { body: { tz: i % 2 === 0 ? KIRITIMATI : PAGO_PAGO }, key });
        expect(moved.status, moved.text).toBe(200);
        await post('drills', { id: 'device' }, 25, key);
      }
      expect(await total('drills', 'device')).toBe(20);
    });
  });

  it('re-opens nothing when the user moves west after their day turned', async () => {
    await at('2026-03-11T03:50:00Z'); // New York: 23:50 on the 10th
    expect(await post('reads', { id: 'west', tz: 'America/New_York' }, 10)).toMatchObject({ total: 10, points: { xp: { total: 5 } } });
    await at('2026-03-11T04:10:00Z'); // New York: 00:10 on the 11th
    expect(await post('reads', { id: 'west' }, 10)).toMatchObject({ total: 20, points: { xp: { total: 10 } } });
    await at('2026-03-11T04:20:00Z'); // Los Angeles: 21:20 on the 10th; the clock stays on the 11th
    const west = await post('reads', { id: 'west', tz: 'America/Los_Angeles' }, 10);
    expect(west.total).toBe(20);
    expect(west.limited).toEqual({ counted: 0, ignored: 10 });
    expect(west.points).toEqual({});
    expect((await daily('/api/users/west/metrics/reads', '2026-03-10', '2026-03-11')).map((d) => [d.date, d.change])).toEqual([
      ['2026-03-10', 10], ['2026-03-11', 10],
    ]);
  });

  it('keeps a summary\'s running total from falling when nothing took points away', async () => {
    await at('2026-03-20T20:00:00Z'); // Toronto: 16:00 on the 20th
    await post('plain', { id: 'trip', tz: 'America/Toronto' }, 1);
    await at('2026-03-20T20:10:00Z'); // Auckland: 09:10 on the 21st
    await post('plain', { id: 'trip', tz: 'Pacific/Auckland' }, 1);
    await at('2026-03-20T20:20:00Z'); // Toronto again: 16:20 on the 20th; the clock stays on the 21st
    expect((await post('plain', { id: 'trip', tz: 'America/Toronto' }, 1)).points.xp.total).toBe(15);
    expect(await daily('/api/users/trip/points/xp', '2026-03-20', '2026-03-21')).toEqual([
      { date: '2026-03-20', total: 5, change: 5 }, { date: '2026-03-21', total: 15, change: 10 },
    ]);
    expect((await daily('/api/users/trip/metrics/plain', '2026-03-20', '2026-03-21')).map((d) => d.change)).toEqual([1, 2]);
    const weekly = await s.request('GET', '/api/users/trip/points/xp/event-summary?aggregation=weekly&startDate=2026-03-16&endDate=2026-03-22');
    expect(weekly.body).toEqual([{ date: '2026-03-16', total: 15, change: 15 }]);
  });

  describe('streaks across zones', () => {
    const streak = async (user: string, periods = 4) => {
      const r = await s.request('GET', `/api/users/${user}/streak?historyPeriods=${periods}`);
      expect(r.status, r.text).toBe(200);
      return r.body;
    };

    it('counts a day acted on after moving east (Paris, then Seoul)', async () => {
      await at('2026-11-28T17:00:00Z'); // Paris: 18:00 on the 28th
      expect((await post('lessons', { id: 'seoul', tz: 'Europe/Paris' }, 1)).currentStreak).toMatchObject({ length: 1, extended: true });
      await at('2026-11-28T17:30:00Z'); // Seoul: 02:30 on the 29th
      expect((await post('lessons', { id: 'seoul', tz: 'Asia/Seoul' }, 1)).currentStreak).toMatchObject({ length: 2, extended: true });
      await at('2026-11-30T01:00:00Z'); // Seoul: 10:00 on the 30th
      expect((await post('lessons', { id: 'seoul' }, 1)).currentStreak).toMatchObject({ length: 3, extended: true, freezes: 2 });
      expect((await streak('seoul')).streakHistory.map((p: { periodStart: string; length: number }) => [p.periodStart, p.length])).toEqual([
        ['2026-11-27', 0], ['2026-11-28', 1], ['2026-11-29', 2], ['2026-11-30', 3],
      ]);
    });

    it('misses no date jumped over in under 24 hours, and spends no freeze on it', async () => {
      await at('2026-11-21T06:00:00Z'); // Los Angeles: 22:00 on the 20th
      await post('lessons', { id: 'flight', tz: 'America/Los_Angeles' }, 1);
      await at('2026-11-21T20:00:00Z'); // Tokyo: 05:00 on the 22nd, 14 hours later: the 21st jumped over
      expect(await streak('flight')).toMatchObject({ length: 1, freezes: 2 });
      expect((await post('lessons', { id: 'flight', tz: 'Asia/Tokyo' }, 1)).currentStreak).toMatchObject({ length: 2, extended: true, freezes: 2 });
      expect((await streak('flight', 3)).streakHistory).toEqual([
        { periodStart: '2026-11-20', periodEnd: '2026-11-20', length: 1, usedFreeze: false, usedPause: false },
        { periodStart: '2026-11-21', periodEnd: '2026-11-21', length: 1, usedFreeze: true, usedPause: false },
        { periodStart: '2026-11-22', periodEnd: '2026-11-22', length: 2, usedFreeze: false, usedPause: false },
      ]);
    });

    it('keeps the jumped date resting through an event that extends no streak', async () => {
      await at('2026-11-21T06:00:00Z'); // Los Angeles: 22:00 on the 20th
      await post('lessons', { id: 'landed', tz: 'America/Los_Angeles' }, 1);
      await at('2026-11-21T20:00:00Z'); // Tokyo: 05:00 on the 22nd; the first event there is another metric's
      await post('plain', { id: 'landed', tz: 'Asia/Tokyo' }, 1);
      await at('2026-11-22T02:00:00Z'); // Tokyo: 11:00 on the 22nd
      expect((await post('lessons', { id: 'landed' }, 1)).currentStreak).toMatchObject({ length: 2, extended: true, freezes: 2 });
    });

    it('misses a date jumped over 24 hours or more after the last event', async () => {
      await at('2026-11-21T06:00:00Z'); // Los Angeles: 22:00 on the 20th
      await post('lessons', { id: 'late', tz: 'America/Los_Angeles' }, 1);
      await at('2026-11-22T07:00:00Z'); // Tokyo: 16:00 on the 22nd, 25 hours later: the 21st missed
      expect((await post('lessons', { id: 'late', tz: 'Asia/Tokyo' }, 1)).currentStreak).toMatchObject({ length: 2, extended: true, freezes: 1 });
    });
  });

  it('answers the user\'s time now on their clock, held while their zone is behind it', async () => {
    await at('2026-03-09T11:30:00Z'); // Kiritimati: 01:30 on the 10th, where flip's clock is
    const r = await s.request('GET', '/admin/v1/users/flip/clock');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      tz: KIRITIMATI, date: '2026-03-10', hour: 1, held: false, jumped: null,
      stored: { date: '2026-03-10', hour: 1, lastEventAt: '2026-03-09T11:00:00.000Z' },
    });
    expect((await s.request('PATCH', '/api/users/flip', { body: { tz: PAGO_PAGO } })).status).toBe(200);
    expect((await s.request('GET', '/admin/v1/users/flip/clock')).body).toMatchObject({ tz: PAGO_PAGO, date: '2026-03-10', hour: 1, held: true });
    expect((await s.request('GET', '/admin/v1/users/nobody/clock')).status).toBe(404);
    expect((await s.request('GET', '/admin/v1/users/flip/clock', { key: null })).status).toBe(401);
  });

  it('shows the clock in the user\'s export', async () => {
    const r = await s.request('GET', '/admin/v1/users/flip/export');
    expect(r.status, r.text).toBe(200);
    expect(r.body.clock).toEqual({ date: '2026-03-10', hour: 1, lastEventAt: '2026-03-09T11:00:00.000Z' });
  });
});

describe('the user\'s clock through a restore', () => {
  for (const fromLogAlone of [false, true]) {
    it(`comes back as it was (${fromLogAlone ? 'from the log alone' : 'from a snapshot and the log after it'})`, { timeout: 120_000 }, async () => {
      let s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '168h' } });
      await s.workers!.testing.snapshotIdle();
      const { prefix } = s;
      const post = async (user: Record<string, unknown>, value: number) => {
        const r = await s.request('POST', '/api/metrics/drills/event', { body: { user, value } });
        expect(r.status, r.text).toBe(201);
        return r.body;
      };
      try {
        await s.setClock('2026-03-08T12:00:00Z');
        const m = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Drills', key: 'drills', limits: { max: 20, period: 'day' } }] });
        expect(m.status, m.text).toBe(201);
        // held: the clock on Kiritimati's day in Pago Pago; flew: a jump over the 20th (Los Angeles, then Tokyo).
        await post({ id: 'held', tz: KIRITIMATI }, 5);
        await post({ id: 'held', tz: PAGO_PAGO }, 5);
        await s.setClock('2026-03-20T06:00:00Z');
        await post({ id: 'flew', tz: 'America/Los_Angeles' }, 1);
        if (!fromLogAlone) await s.workers!.testing.snapshotNow(true);
        await s.setClock('2026-03-20T20:00:00Z');
        await post({ id: 'flew', tz: 'Asia/Tokyo' }, 1);
        await s.setClock('2026-03-08T12:30:00Z');
        await post({ id: 'held', tz: PAGO_PAGO }, 5);
        const clocks = async () => Promise.all(['held', 'flew'].map(async (id) => (await s.request('GET', `/admin/v1/users/${id}/export`)).body.clock));
        const before = await clocks();
        const stored = await Promise.all(['held', 'flew'].map((id) => s.api.services.redis.hget(s.api.services.keys.forUser('_', id).user, 'ck')));
        const restored = await restoreServer(s, fromLogAlone);
        s = restored.server;
        expect(restored.result.failed).toBe(0);
        await s.setClock('2026-03-08T12:40:00Z');
        expect(await clocks()).toEqual(before);
        expect(await Promise.all(['held', 'flew'].map((id) => s.api.services.redis.hget(s.api.services.keys.forUser('_', id).user, 'ck')))).toEqual(stored);
        expect(stored.every((ck) => ck !== null)).toBe(true);
        // Still held on Kiritimati's 9th, where 15 counted: the limit counts on it as before.
        expect((await post({ id: 'held' }, 20)).limited).toEqual({ counted: 5, ignored: 15 });
      } finally {
        await s.close();
        await deletePostgresRows(s.settings, [prefix]);
      }
    });
  }
});
