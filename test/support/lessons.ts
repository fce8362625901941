/**
 * A language app's configuration for the event time and import tests (docs/api.md, "Event time"):
 * a `lessons` metric with a daily limit, `xp` points with a daily cap, an achievement at fifteen
 * lessons, a daily streak with a freeze, and daily boards of lessons and of XP; and everything a
 * user's reads show of it, to compare two users.
 */
import { expect } from 'vitest';
import { adminCreateOne } from './admin.js';
import type { TestServer } from './server.js';

const DAY = 86_400_000;
/** The metric's daily limit. */
export const LESSONS_LIMIT = 20;

const iso = (ms: number) => new Date(ms).toISOString();

/** Sets the app up on `s` (its clock where the boards may start: they start on 2026-01-01). */
export async function configureLessons(s: TestServer, boardsStart = '2026-01-01'): Promise<void> {
  const m = await s.request('POST', '/admin/v1/metrics', { body: [{ name: 'Lessons', key: 'lessons', limits: { max: LESSONS_LIMIT, period: 'day' } }] });
  expect(m.status, m.text).toBe(201);
  const metricId = m.body.created[0].id as string;
  const p = await s.request('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 1, status: 'active', maxAwards: { count: 3, period: 'day' } }] }],
  });
  expect(p.status, p.text).toBe(201);
  const a = await s.request('POST', '/admin/v1/achievements', {
    body: [{ name: 'Fifteen', key: 'fifteen', trigger: 'metric', metricId, metricValue: 15 }],
  });
  expect(a.status, a.text).toBe(201);
  const r = await s.request('PUT', '/admin/v1/streaks/settings', {
    body: { frequency: 'daily', metrics: [{ metricId, threshold: 1 }], freezes: { initial: 1, max: 1, autoEarnInterval: 0, autoEarnAmount: 0 } },
  });
  expect(r.status, r.text).toBe(200);
  const daily = { status: 'active', start: boardsStart, runUnit: 'day', runInterval: 1 };
  await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Daily', key: 'daily', rankBy: 'metric', metricId, ...daily });
  await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'XP daily', key: 'xp-daily', rankBy: 'points', pointsSystemId: p.body.created[0].id, ...daily });
}

/** A read that must answer 200: its body. */
export async function read(s: TestServer, path: string): Promise<any> {
  const r = await s.request('GET', path);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.body;
}

/**
 * Everything the user's reads show, read at the same instant for both users compared: summaries
 * from `from` to `to`, the daily board's runs from `boardsFrom` to `to`; their id taken out, and
 * what tells two users apart (an award's id, the streak's rank among all users).
 */
export async function lessonsState(s: TestServer, id: string, from: string, to: string, boardsFrom: string): Promise<unknown> {
  const range = `startDate=${from}&endDate=${to}`;
  const boards: unknown[] = [];
  for (let d = Date.parse(boardsFrom); d <= Date.parse(to); d += DAY) {
    boards.push((await read(s, `/api/users/${id}/leaderboards/daily?run=${iso(d).slice(0, 10)}`)).value);
  }
  const points = await read(s, `/api/users/${id}/points/xp?awards=100`);
  // Awards of one instant in one order (the newest first, then by their ids).
  for (const a of points.awards) delete a.id;
  points.awards.sort((a: { date: string; total: number }, b: { date: string; total: number }) => b.date.localeCompare(a.date) || b.total - a.total);
  const streak = await read(s, `/api/users/${id}/streak?historyPeriods=40`);
  delete streak.rank;
  const all = {
    total: (await read(s, `/api/users/${id}/metrics/lessons`)).current,
    days: await read(s, `/api/users/${id}/metrics/lessons/event-summary?aggregation=daily&${range}`),
    points,
    pointDays: await read(s, `/api/users/${id}/points/xp/event-summary?aggregation=daily&${range}`),
    streak,
    achievements: await read(s, `/api/users/${id}/achievements?includeIncomplete=true`),
    boards,
  };
  return JSON.parse(JSON.stringify(all).split(JSON.stringify(id).slice(1, -1)).join('<user>'));
}
