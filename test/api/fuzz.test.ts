/**
 * Random event sequences against every feature at once (achievements with and without filters, a
 * composite, a daily streak with freezes, points triggers of every kind the event path awards, a
 * capped leaderboard on the metric and one on points), on single Redis and on the Cluster: odd
 * values (negative, fractional, zero), attributes, repeated idempotency keys, days passing and
 * users changing time zone. Whatever comes, the answer is 201, 202 or a 4xx with an error, never
 * a 5xx; and the metric totals the API reports are the sums of the processed events' values.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const ZONES = ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Europe/Berlin', 'America/New_York'];

describe.each(targets())('random events on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  let run = 0;
  let lessonsSeen = false; // a lessons event was processed (in any run)

  beforeAll(async () => {
    await s.setClock('2026-03-28T20:00:00Z');
    const ids = await s.metrics('lessons', 'quizzes');
    const attrs = { ...await s.attributes('user', 'plan'), ...await s.attributes('event', 'source') };
    const ach = await s.request('POST', '/admin/v1/achievements', {
      body: [
        { name: 'Five', key: 'five', trigger: 'metric', metricId: ids.lessons, metricValue: 5 },
        { name: 'Twenty', key: 'twenty', trigger: 'metric', metricId: ids.lessons, metricValue: 20 },
        { name: 'App five', key: 'app-five', trigger: 'metric', metricId: ids.lessons, metricValue: 5,
          eventAttributes: [{ attributeId: attrs.source, attributeValue: 'app' }] },
        { name: 'Pro two', key: 'pro-two', trigger: 'metric', metricId: ids.lessons, metricValue: 2,
          userAttributes: [{ attributeId: attrs.plan, attributeValue: 'pro' }] },
        { name: 'Three days', key: 'three-days', trigger: 'streak', streakLength: 3 },
      ],
    });
    expect(ach.status, ach.text).toBe(201);
    const [five, twenty] = ach.body.created as { id: string }[];
    const composite = await s.request('POST', '/admin/v1/achievements', {
      body: [{ name: 'Both', key: 'both', trigger: 'achievement', achievementIds: [five.id, twenty.id] }],
    });
    expect(composite.status, composite.text).toBe(201);
    await putStreakSettings(s, {
      frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 2 }, { metricId: ids.quizzes, threshold: 1 }],
      evaluation: 'any', freezes: { initial: 1, max: 2, autoEarnInterval: 3, autoEarnAmount: 1 },
    });
    const points = await s.request('POST', '/admin/v1/points', {
      body: [
        {
          name: 'XP', key: 'xp', maxPoints: 500,
          levels: [{ name: 'One', key: 'one', points: 10 }, { name: 'Two', key: 'two', points: 100 }],
          triggers: [
            { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' },
            { type: 'metric', metricId: ids.lessons, metricThreshold: 2, points: 5, status: 'active',
              eventAttributes: [{ attributeId: attrs.source, attributeValue: 'app' }] },
            { type: 'metric', metricId: ids.quizzes, metricThreshold: 1, points: 3, status: 'active',
              userAttributes: [{ attributeId: attrs.plan, attributeValue: 'pro' }] },
            { type: 'achievement', achievementId: five.id, points: 50, status: 'active' },
            { type: 'streak', streakLength: 2, points: 20, status: 'active' },
            { type: 'user_creation', points: 1, status: 'active' },
          ],
        },
        {
          name: 'Energy', key: 'energy', maxPoints: 3,
          triggers: [
            { type: 'user_creation', points: 3, status: 'active' },
            { type: 'metric', metricId: ids.quizzes, metricThreshold: 1, points: -1, blockIfOutOfPoints: true, status: 'active' },
          ],
        },
      ],
    });
    expect(points.status, points.text).toBe(201);
    const xp = (points.body.created as { id: string; key: string }[]).find((p) => p.key === 'xp')!;
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Top lessons', key: 'top-lessons', rankBy: 'metric', metricId: ids.lessons, maxParticipants: 3, status: 'active' },
        { name: 'Daily XP', key: 'daily-xp', rankBy: 'points', pointsSystemId: xp.id, maxParticipants: 2,
          runUnit: 'day', runInterval: 1, status: 'active' },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
  });

  const step = fc.record({
    user: fc.integer({ min: 0, max: 2 }),
    metric: fc.constantFrom('lessons', 'lessons', 'quizzes'),
    value: fc.constantFrom(-3, -1, -0.5, 0, 0.5, 1, 1, 2, 5, 100),
    source: fc.constantFrom(undefined, 'app', 'web'),
    plan: fc.constantFrom(undefined, 'pro', 'free'),
    tz: fc.option(fc.constantFrom(...ZONES), { freq: 4, nil: undefined }),
    key: fc.option(fc.constantFrom('k1', 'k2', 'k3'), { freq: 4, nil: undefined }),
    hours: fc.constantFrom(0, 0, 0, 5, 23, 49),
  });

  it('answers every event with 201, 202 or a 4xx, and keeps totals equal to what was processed', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      run++;
      const sums = new Map<string, number>();
      const xp = new Map<string, number>();
      const known = new Set<string>(); // users a processed event created
      let clock = Date.parse('2026-03-28T20:00:00Z') + run * 400 * 3_600_000;
      await s.setClock(new Date(clock).toISOString());
      for (const x of steps) {
        if (x.hours > 0) {
          clock += x.hours * 3_600_000;
          await s.setClock(new Date(clock).toISOString());
        }
        const id = `f${run}-u${x.user}`;
        const user: Record<string, unknown> = { id };
        if (x.tz !== undefined) user.tz = x.tz;
        if (x.plan !== undefined) user.attributes = { plan: x.plan };
        const body: Record<string, unknown> = { user, value: x.value };
        if (x.source !== undefined) body.attributes = { source: x.source };
        const headers = x.key === undefined ? undefined : { 'Idempotency-Key': `${run}-${x.key}` };
        const r = await s.request('POST', `/api/metrics/${x.metric}/event`, { body, headers });
        expect(r.status < 500, `${r.status} ${r.text}`).toBe(true);
        if (r.status === 201) {
          const k = `${id}/${x.metric}`;
          sums.set(k, (sums.get(k) ?? 0) + x.value);
          known.add(id);
          if (x.metric === 'lessons') lessonsSeen = true;
          expect(r.body.total).toBeCloseTo(sums.get(k)!, 9);
          expect(Array.isArray(r.body.achievements)).toBe(true);
          if (r.body.points.xp) xp.set(id, r.body.points.xp.total);
        } else if (r.status !== 202) {
          expect(r.status).toBe(422);
          expect(r.body.code).toBe('out_of_points');
        }
      }
      for (const [k, sum] of sums) {
        const [id, metric] = k.split('/');
        const r = await s.request('GET', `/api/users/${id}/metrics/${metric}`);
        expect(r.status, r.text).toBe(200);
        expect(r.body.current).toBeCloseTo(sum, 9);
      }
      // Every award shows in its event's response: the last total shown is the total.
      for (const [id, total] of xp) {
        const r = await s.request('GET', `/api/users/${id}/points/xp`);
        expect(r.status, r.text).toBe(200);
        expect(r.body.total).toBe(total);
      }
      for (const path of ['streak?historyPeriods=5', 'achievements?includeIncomplete=true', 'points/xp?awards=5', 'points/energy']) {
        const r = await s.request('GET', `/api/users/f${run}-u0/${path}`);
        expect(r.status, `${path}: ${r.text}`).toBe(known.has(`f${run}-u0`) ? 200 : 404);
      }
      for (const board of ['top-lessons', 'daily-xp']) {
        const r = await s.request('GET', `/api/leaderboards/${board}`);
        expect(r.status, r.text).toBe(200);
        const rows = r.body.rankings as { userId: string; rank: number; value: number }[];
        expect(rows.length).toBeLessThanOrEqual(board === 'top-lessons' ? 3 : 2);
        rows.forEach((row, i) => {
          expect(row.rank).toBe(i + 1);
          if (i > 0) expect(row.value).toBeLessThanOrEqual(rows[i - 1].value);
        });
        if (board === 'top-lessons') {
          // A perpetual board admits anyone until full, and ranks each member's total.
          if (lessonsSeen) expect(rows.length).toBeGreaterThan(0);
          for (const row of rows) {
            const m = await s.request('GET', `/api/users/${row.userId}/metrics/lessons`);
            expect(row.value).toBeCloseTo(m.body.current, 9);
          }
        }
      }
    }), { numRuns: 40 });
  });
});
