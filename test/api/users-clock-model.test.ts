/**
 * The user's clock as a property (docs/api.md, "Time zones and travel"), through the real server
 * over HTTP with the manual clock, on single Redis and on the Cluster: random sequences of one
 * user's events (fast-check), each at a later instant in any IANA zone (the date line's both sides,
 * half- and quarter-hour zones, DST switches among them), against a small model of the rule
 * written here on its own (luxon's wall clock, not laurel's): a metric with a daily limit, a points
 * trigger capped at three awards a day and a daily streak with a freeze. After every event: the
 * part counted, the total, the points, the streak's length and freezes as the model says; at the
 * end, the daily summaries of the metric and the points the sums of their days, no day's limit
 * exceeded, and a running total that never falls.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const LIMIT = 20;
const AWARDS_A_DAY = 3;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const EDGES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Pacific/Apia', 'Pacific/Chatham', 'Australia/Lord_Howe', 'America/St_Johns',
  'Asia/Kathmandu', 'Asia/Kolkata', 'Europe/Paris', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo', 'UTC'];
const zone = fc.oneof(fc.constantFrom(...EDGES), fc.constantFrom(...Intl.supportedValuesOf('timeZone')));

/** The day (days since 1970-01-01) and hour (hours since) of the wall clock of zone `tz` at `ms`, by luxon. */
function wall(tz: string, ms: number): { hour: number } {
  const d = DateTime.fromMillis(ms, { zone: tz });
  return { hour: Date.UTC(d.year, d.month - 1, d.day, d.hour) / HOUR };
}

const dateOf = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

interface Step {
  /** ms after the step before. */
  after: number;
  /** The zone the event names; null: it names none (the stored one stays). */
  tz: string | null;
  value: number;
}

/** The rule, one event after another (the docs' words: the clock only moves forward, a move east starts the new date at once, a date jumped over in under 24 hours is not missed). */
class Model {
  hour: number | null = null;
  at = 0;
  jump: [number, number] | null = null;
  tz = 'UTC';
  total = 0;
  points = 0;
  counted = new Map<number, number>();
  awards = new Map<number, number>();
  closing = new Map<number, number>();
  streak = { len: 0, last: null as number | null, freezes: 1 };

  event(ms: number, tz: string | null, value: number) {
    if (tz !== null) this.tz = tz;
    const own = wall(this.tz, ms).hour;
    let hour = own;
    if (this.hour !== null) {
      if (this.hour > own) hour = this.hour;
      const from = Math.floor(this.hour / 24) + 1;
      const to = Math.floor(hour / 24) - 1;
      if (to >= from && ms - this.at < DAY) this.jump = [from, to];
    }
    this.hour = hour;
    this.at = Math.max(this.at, ms);
    const day = Math.floor(hour / 24);
    const used = this.counted.get(day) ?? 0;
    const counted = Math.min(value, LIMIT - used);
    this.counted.set(day, used + counted);
    this.total += counted;
    const awarded = counted > 0 && (this.awards.get(day) ?? 0) < AWARDS_A_DAY;
    if (awarded) {
      this.awards.set(day, (this.awards.get(day) ?? 0) + 1);
      this.points += counted;
    }
    this.closing.set(day, this.points);
    const s = this.streak;
    let extended = false;
    if (counted >= 1 && (s.last === null || day > s.last)) {
      extended = true;
      const missed = s.last === null ? 0 : this.missed(s.last, day);
      if (s.last === null || s.len === 0) s.len = 1;
      else if (missed <= s.freezes) { s.freezes -= missed; s.len += 1; } else { s.len = 1; s.freezes = 0; }
      s.last = day;
    }
    // The streak as the answer shows it: alive while the freezes bridge what was missed.
    const missed = s.last === null ? 0 : this.missed(s.last, day);
    const alive = s.len > 0 && missed <= s.freezes;
    return { counted, awarded, extended, length: alive ? s.len : 0, freezes: alive ? s.freezes - missed : 0 };
  }

  /** Days after `last` and before `day` that nothing covered: those the clock did not jump over. */
  private missed(last: number, day: number): number {
    let n = 0;
    for (let d = last + 1; d < day; d++) if (this.jump === null || d < this.jump[0] || d > this.jump[1]) n++;
    return n;
  }
}

const steps = fc.array(fc.record({
  after: fc.oneof(fc.integer({ min: 0, max: 30 * 60_000 }), fc.integer({ min: HOUR, max: 30 * HOUR })),
  tz: fc.option(zone, { freq: 4 }),
  value: fc.integer({ min: 1, max: 12 }),
}), { minLength: 1, maxLength: 12 });

/** Starts near DST switches of 2026 (US, Europe, Chile, Lord Howe) and anywhere else in the year. */
const start = fc.oneof(
  fc.constantFrom(Date.UTC(2026, 2, 8, 6), Date.UTC(2026, 2, 29, 0), Date.UTC(2026, 3, 4, 23), Date.UTC(2026, 9, 3, 14), Date.UTC(2026, 9, 25, 0), Date.UTC(2026, 10, 1, 5))
    .chain((ms) => fc.integer({ min: ms - 3 * HOUR, max: ms + 3 * HOUR })),
  fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 11, 1) }),
);

describe.each(targets())('the user\'s clock as a property on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  let run = 0;

  beforeAll(async () => {
    await s.setClock('2026-01-01T00:00:00Z');
    const m = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Lessons', key: 'lessons', limits: { max: LIMIT, period: 'day' } }] });
    expect(m.status, m.text).toBe(201);
    const metricId = m.body.created[0].id as string;
    const p = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 1, status: 'active', maxAwards: { count: AWARDS_A_DAY, period: 'day' } }] }],
    });
    expect(p.status, p.text).toBe(201);
    const r = await s.request('PUT', '/admin/v1/streaks/settings', {
      body: { frequency: 'daily', metrics: [{ metricId, threshold: 1 }], freezes: { initial: 1, max: 1, autoEarnInterval: 0, autoEarnAmount: 0 } },
    });
    expect(r.status, r.text).toBe(200);
  });

  it('counts, awards, summarises and keeps streaks as the rule says, however the zone moves', { timeout: 600_000 }, async () => {
    await fc.assert(fc.asyncProperty(start, steps, async (from, list: Step[]) => {
      const user = `u${run++}`;
      const model = new Model();
      let ms = from;
      for (const [i, step] of list.entries()) {
        ms += step.after;
        await s.setClock(new Date(ms).toISOString());
        const expected = model.event(ms, i === 0 ? step.tz ?? 'UTC' : step.tz, step.value);
        const body = { user: step.tz === null && i > 0 ? { id: user } : { id: user, tz: step.tz ?? 'UTC' }, value: step.value };
        const r = await s.request('POST', '/api/metrics/lessons/event', { body });
        expect(r.status, r.text).toBe(201);
        const label = `step ${i} at ${new Date(ms).toISOString()}: ${r.text}`;
        expect(r.body.limited?.counted ?? step.value, label).toBe(expected.counted);
        expect(r.body.total, label).toBe(model.total);
        expect(r.body.points.xp?.total ?? null, label).toBe(expected.awarded ? model.points : null);
        expect(r.body.currentStreak, label).toMatchObject({ length: expected.length, extended: expected.extended, freezes: expected.freezes });
      }
      const days = [...model.counted.keys()].sort((a, b) => a - b);
      const range = `startDate=${dateOf(days[0])}&endDate=${dateOf(days[days.length - 1])}`;
      const metric = await s.request('GET', `/api/users/${user}/metrics/lessons/event-summary?aggregation=daily&${range}`);
      expect(metric.status, metric.text).toBe(200);
      const changes = new Map((metric.body as { date: string; change: number }[]).map((d) => [d.date, d.change]));
      for (const day of days) expect(changes.get(dateOf(day)), dateOf(day)).toBe(model.counted.get(day));
      for (const change of changes.values()) expect(change).toBeLessThanOrEqual(LIMIT);
      const points = await s.request('GET', `/api/users/${user}/points/xp/event-summary?aggregation=daily&${range}`);
      let before = 0;
      for (const d of points.body as { date: string; total: number; change: number }[]) {
        expect(d.total, d.date).toBeGreaterThanOrEqual(before);
        expect(d.change, d.date).toBe(d.total - before);
        before = d.total;
      }
      expect(before).toBe(model.points);
    }), { numRuns: 30 });
  });
});
