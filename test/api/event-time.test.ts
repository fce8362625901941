/**
 * Event time (docs/api.md, "Event time"), through the real server over HTTP with the manual clock
 * and the workers in the test, on single Redis and on the Cluster: `occurredAt` on an event and a
 * batch item, checked against the window (refused whole, nothing applied, outside it), echoed; the
 * event counts when it happened (its day's summary and limit, its streak period, its board run,
 * the completion's `achievedAt`, the award's date), a board's run that was final when it arrived
 * left as it was (`late: true`). As a property: one user's events sent late, in the order they
 * happened, with delays and zones of any kind, leave that user exactly as the same events sent as
 * they happened leave another (totals, summaries, streak and its history, achievements, points and
 * their awards, and their values on the board runs not final yet).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { configureLessons, lessonsState, read as readOf } from '../support/lessons.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu', 'Europe/Paris', 'America/New_York', 'America/St_Johns', 'UTC', 'Etc/GMT+12'];

const iso = (ms: number) => new Date(ms).toISOString();

describe.each(targets())('event time on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual', workers: true });
  let user = 0;
  const next = () => `et${user++}`;

  beforeAll(async () => {
    await s.setClock('2026-01-01T00:00:00Z');
    await configureLessons(s);
  });

  const send = (id: string, value: number, occurredAt?: string, tz?: string) => s.request('POST', '/api/metrics/lessons/event', {
    body: { user: tz === undefined ? { id } : { id, tz }, value, ...(occurredAt === undefined ? {} : { occurredAt }) },
  });
  const read = (path: string) => readOf(s, path);

  it('refuses an occurredAt that is not a date and time, or outside the window, applying nothing', async () => {
    await s.setClock('2026-03-10T12:00:00Z');
    const id = next();
    expect((await send(id, 1)).status).toBe(201);
    for (const text of ['yesterday', '2026-03-10T10:00:00', '2026-04-31T10:00:00Z', '2026-03-10T24:00:00Z', '2026-03-10 10:00:00Z', '2026-03-10T10:00:00+2:00']) {
      const r = await send(id, 1, text);
      expect([r.status, r.body.code], text).toEqual([400, 'invalid_body']);
      expect(r.body.error).toContain('occurredAt must be an ISO 8601 date and time');
    }
    for (const text of ['2026-03-03T11:59:59Z', '2026-03-10T14:05:01+02:00', '2026-03-10T12:05:00.001Z']) {
      const r = await send(id, 1, text);
      expect([r.status, r.body.code], text).toEqual([422, 'occurred_at_out_of_window']);
    }
    expect((await read(`/api/users/${id}/metrics/lessons`)).current).toBe(1);
    // The window's two ends are in it.
    for (const text of ['2026-03-03T12:00:00Z', '2026-03-10T17:05:00+05:00']) {
      const r = await send(id, 1, text);
      expect(r.status, `${text}: ${r.text}`).toBe(201);
      expect(r.body.occurredAt).toBe(text);
    }
    expect((await send(id, 1)).body.occurredAt).toBeUndefined();
    // A batch holding one such item is refused whole, naming it.
    const batch = await s.request('POST', '/admin/v1/metrics/events', {
      body: [{ key: 'lessons', user: { id }, value: 5, occurredAt: '2026-03-09T12:00:00Z' }, { key: 'lessons', user: { id }, value: 5, occurredAt: '2026-03-01T12:00:00Z' }],
    });
    expect([batch.status, batch.body.code], batch.text).toEqual([422, 'occurred_at_out_of_window']);
    expect(batch.body.error).toMatch(/^Item 1: occurredAt "2026-03-01T12:00:00Z" is more than 7 days before the event arrived/);
    await s.workers!.testing.batchesNow();
    expect((await read(`/api/users/${id}/metrics/lessons`)).current).toBe(4);
  });

  it('counts an event when it happened: its day, its streak period, its run, the completion and the award', async () => {
    const id = next();
    // Lessons on the 2nd and the 3rd (Paris), sent as they happened.
    await s.setClock('2026-04-02T08:00:00Z');
    expect((await send(id, 10, undefined, 'Europe/Paris')).status).toBe(201);
    await s.setClock('2026-04-04T07:00:00Z');
    // The lesson of the evening of the 3rd, sent offline the next morning: the streak is whole.
    const r = await send(id, 6, '2026-04-03T20:30:00+02:00');
    expect(r.status, r.text).toBe(201);
    expect(r.body.occurredAt).toBe('2026-04-03T20:30:00+02:00');
    expect(r.body.currentStreak).toMatchObject({ length: 2, extended: true });
    expect(r.body.achievements.map((a: { key: string; achievedAt: string }) => [a.key, a.achievedAt])).toEqual([['fifteen', '2026-04-03T18:30:00.000Z']]);
    expect(r.body.leaderboards.daily).toMatchObject({ start: '2026-04-03', rank: 1 });
    const days = await read(`/api/users/${id}/metrics/lessons/event-summary?aggregation=daily&startDate=2026-04-02&endDate=2026-04-04`);
    expect(days.map((d: { date: string; change: number }) => [d.date, d.change])).toEqual([['2026-04-02', 10], ['2026-04-03', 6], ['2026-04-04', 0]]);
    const xp = await read(`/api/users/${id}/points/xp?awards=10`);
    expect(xp.awards.map((a: { date: string }) => a.date)).toEqual(['2026-04-03T18:30:00.000Z', '2026-04-02T08:00:00.000Z']);
    expect((await read(`/api/users/${id}/leaderboards/daily?run=2026-04-03`)).value).toBe(6);

    // Older than the user's latest event: it counts in the latest period their clock reached, the 3rd.
    const older = await send(id, 2, '2026-04-01T09:00:00+02:00');
    expect(older.status, older.text).toBe(201);
    expect(older.body.leaderboards.daily).toMatchObject({ start: '2026-04-03', rank: 1 });
    expect((await read(`/api/users/${id}/leaderboards/daily?run=2026-04-03`)).value).toBe(8);

    // A new user's first event, three days late: its day and total count; its run of the 1st, final
    // since, does not move.
    const other = next();
    const late = await send(other, 2, '2026-04-01T09:00:00+02:00', 'Europe/Paris');
    expect(late.status, late.text).toBe(201);
    // The metric's board and the points board of the XP it awarded: each run of the 1st was final.
    for (const key of ['daily', 'xp-daily']) {
      expect(late.body.leaderboards[key], key).toMatchObject({ start: '2026-04-01', rank: null, previousRank: null, late: true });
      expect((await read(`/api/users/${other}/leaderboards/${key}?run=2026-04-01`)).rank, key).toBeNull();
    }
    expect(Object.keys(late.body.leaderboards).sort()).toEqual(['daily', 'xp-daily']);
    const first = await read(`/api/users/${other}/metrics/lessons/event-summary?aggregation=daily&startDate=2026-04-01&endDate=2026-04-01`);
    expect(first).toEqual([expect.objectContaining({ date: '2026-04-01', change: 2 })]);
    expect((await read(`/api/users/${other}/streak`)).streakHistory.at(-1)).toMatchObject({ periodStart: '2026-04-04', length: 0 });
  });

  it('applies a batch item when it happened', async () => {
    const id = next();
    await s.setClock('2026-05-06T12:00:00Z');
    const batch = await s.request('POST', '/admin/v1/metrics/events', {
      body: [{ key: 'lessons', user: { id, tz: 'UTC' }, value: 3, occurredAt: '2026-05-05T10:00:00Z' }, { key: 'lessons', user: { id }, value: 4 }],
    });
    expect(batch.status, batch.text).toBe(202);
    await s.workers!.testing.batchesNow();
    const days = await read(`/api/users/${id}/metrics/lessons/event-summary?aggregation=daily&startDate=2026-05-05&endDate=2026-05-06`);
    expect(days.map((d: { date: string; change: number }) => [d.date, d.change])).toEqual([['2026-05-05', 3], ['2026-05-06', 4]]);
    expect((await read(`/api/users/${id}/streak`)).length).toBe(2);
  });

  const state = (id: string, from: string, to: string, boardsFrom: string) => lessonsState(s, id, from, to, boardsFrom);

  const steps = fc.array(fc.record({
    // When it happened, after the one before; how late it is sent.
    after: fc.oneof(fc.integer({ min: 0, max: 3 * HOUR }), fc.integer({ min: 3 * HOUR, max: 40 * HOUR })),
    delay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20 * HOUR })),
    tz: fc.option(fc.constantFrom(...ZONES), { freq: 3 }),
    value: fc.integer({ min: 1, max: 9 }),
  }), { minLength: 1, maxLength: 8 });
  const start = fc.integer({ min: Date.UTC(2026, 5, 1), max: Date.UTC(2026, 10, 1) });

  it('leaves a user whose events arrive late, in the order they happened, as they would have been', { timeout: 600_000 }, async () => {
    await fc.assert(fc.asyncProperty(start, steps, async (from, list) => {
      const [now, late] = [next(), next()];
      // When each happened and when it arrives (in order: a later one never arrives first).
      let at = from;
      let arrival = 0;
      const events = list.map((step, i) => {
        at += step.after;
        arrival = Math.max(arrival, at + step.delay);
        return { i, at, arrival, tz: i === 0 ? step.tz ?? 'UTC' : step.tz ?? undefined, value: step.value };
      });
      // Both users' sends in the order of the service's clock, the one sent as it happened first.
      const sends = [...events.map((e) => ({ e, ms: e.at, id: now })), ...events.map((e) => ({ e, ms: e.arrival, id: late }))]
        .sort((a, b) => a.ms - b.ms || Number(a.id === late) - Number(b.id === late) || a.e.i - b.e.i);
      for (const { e, ms, id } of sends) {
        await s.setClock(iso(ms));
        const r = await send(id, e.value, id === late ? iso(e.at) : undefined, e.tz);
        expect(r.status, r.text).toBe(201);
      }
      await s.setClock(iso(arrival));
      // The board runs compared: those not final yet, which no event can have arrived too late for
      // (a run is final once UTC-12 has finished its last day: 36 hours after it began in UTC).
      const open = iso(Math.floor((arrival - 36 * HOUR) / DAY) * DAY + DAY).slice(0, 10);
      const range = [iso(from - DAY).slice(0, 10), iso(arrival + DAY).slice(0, 10), open] as const;
      expect(await state(late, ...range)).toEqual(await state(now, ...range));
    }), { numRuns: 40 });
  });
});
