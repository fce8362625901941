/**
 * Setting laurel up through its Admin API, for any test that talks to a server: batches created or
 * changed with every item accepted, one item created, the streak rule, the configuration as
 * Redis stores it, an email for each completed achievement, an erasure waited for until the
 * workers finished it, and batch events sent and waited for until every item was applied.
 */
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { eventually } from './eventually.js';
import type { TestServer } from './server.js';

/**
 * Email notifications on (a sender and a public URL) with an active `achievement_completed`
 * template: the drain schedules an email delivery for each completion of a user with an email.
 */
export async function emailOnCompletion(s: TestServer): Promise<void> {
  for (const r of [
    await s.request('PUT', '/admin/v1/notifications/settings', { body: { email: { from: 'Acme <hello@acme.test>' }, publicUrl: 'https://acme.test/laurel' } }),
    await s.request('POST', '/admin/v1/notifications/templates', {
      body: [{ key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Well done, {{ user.name }}!', text: 'Done.' }],
    }),
  ]) expect(r.status, r.text).toBeLessThan(300);
}

/** An item of `POST /admin/v1/achievements`. */
export interface AchievementInput {
  name: string;
  key: string;
  trigger: 'metric' | 'streak' | 'api' | 'achievement';
  description?: string | null;
  badge?: { url: string } | null;
  metricId?: string;
  metricValue?: number;
  streakLength?: number;
  achievementIds?: string[];
  userAttributes?: { attributeId: string; attributeValue: string }[];
  eventAttributes?: { attributeId: string; attributeValue: string }[];
  status?: 'active' | 'inactive' | 'locked' | 'archived';
}

/**
 * Creates a batch through an Admin API create endpoint (`{ created, issues }`); fails unless every
 * item was created. Returns the created entities' ids by key.
 */
export async function adminCreate(s: TestServer, path: string, items: { key: string }[]): Promise<Record<string, string>> {
  const r = await s.request('POST', path, { body: items });
  if (r.status !== 201 || r.body.issues?.length !== 0 || r.body.created?.length !== items.length) {
    throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  }
  return Object.fromEntries((r.body.created as { key: string; id: string }[]).map((e) => [e.key, e.id]));
}

/**
 * Creates one item through an Admin API create endpoint and expects 201 without issues; returns
 * the created view.
 */
export async function adminCreateOne(s: TestServer, path: string, item: Record<string, unknown>): Promise<any> {
  const r = await s.request('POST', path, { body: [item] });
  expect(r.status, r.text).toBe(201);
  expect(r.body.issues).toEqual([]);
  return r.body.created[0];
}

/** Creates achievements through the Admin API; returns their ids by key. */
export function createAchievements(s: TestServer, items: AchievementInput[]): Promise<Record<string, string>> {
  return adminCreate(s, '/admin/v1/achievements', items);
}

/** Changes entities through an Admin API update endpoint (`{ updated, issues }`); fails on any issue. */
export async function adminUpdate(s: TestServer, path: string, changes: ({ id: string } & Record<string, unknown>)[]): Promise<void> {
  const r = await s.request('PATCH', path, { body: changes });
  if (r.status !== 200 || r.body.issues?.length !== 0 || r.body.updated?.length !== changes.length) {
    throw new Error(`PATCH ${path}: ${r.status} ${r.text}`);
  }
}

/** The streak rule of `PUT /admin/v1/streaks/settings` (laurel's own Admin resource). */
export interface StreakSettingsInput {
  frequency: 'daily' | 'weekly' | 'monthly';
  evaluation?: 'all' | 'any';
  metrics: { metricId: string; threshold: number }[];
  freezes?: { initial: number; max: number; autoEarnInterval: number; autoEarnAmount: number } | null;
}

/** Sets the streak rule through the Admin API (the SDK has no call for it); fails unless 200. */
export async function putStreakSettings(s: TestServer, settings: StreakSettingsInput): Promise<void> {
  const r = await s.request('PUT', '/admin/v1/streaks/settings', { body: settings });
  if (r.status !== 200) throw new Error(`PUT /admin/v1/streaks/settings: ${r.status} ${r.text}`);
}

/** The configuration entities of a kind (`leaderboards`, `points`, `ptriggers`, ...), parsed, straight from Redis. */
export async function storedConfig(s: TestServer, kind: string): Promise<any[]> {
  const redis = new Redis(s.settings.redisUrl);
  try {
    return Object.values(await redis.hgetall(`${s.prefix}:{cfg}:${kind}`)).map((v) => JSON.parse(v));
  } finally {
    redis.disconnect();
  }
}

/**
 * Waits until the workers have finished an erasure (`DELETE /admin/v1/users/{id}`'s id): a drain
 * archives its entry (the scheduled job's may be the one that does), then the erasures' pass runs.
 */
export async function erasureDone(s: TestServer, erasureId: string): Promise<void> {
  await expect.poll(async () => {
    await s.workers!.testing.drainNow();
    await s.workers!.testing.erasuresNow();
    return (await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status;
  }, { timeout: 20_000 }).toBe('done');
}

/**
 * Sends batch events (`POST /admin/v1/metrics/events`), `perBatch` items a request, each batch
 * waited for until the workers applied every item (none failed).
 */
export async function batchApplied(s: TestServer, items: Record<string, unknown>[], perBatch: number): Promise<void> {
  for (let i = 0; i < items.length; i += perBatch) {
    const part = items.slice(i, i + perBatch);
    const r = await s.request('POST', '/admin/v1/metrics/events', { body: part });
    expect(r.status, r.text).toBe(202);
    await eventually(async () => {
      const progress = (await s.request('GET', `/admin/v1/metrics/events/${r.body.batchId}`)).body;
      expect(progress.processed + progress.failed).toBe(part.length);
      expect(progress.failed).toBe(0);
    }, 120_000);
  }
}

/**
 * A board of each kind, 100 places each: all time and daily on a metric, one on a points system's
 * points, one on streaks (keys `all`, `daily`, `xp-board`, `streaks`).
 */
export async function boardOfEachKind(s: TestServer, metricId: string, pointsSystemId: string): Promise<void> {
  const boards = await s.request('POST', '/admin/v1/leaderboards', {
    body: [
      { name: 'All', key: 'all', status: 'active', rankBy: 'metric', metricId, maxParticipants: 100 },
      { name: 'Daily', key: 'daily', status: 'active', rankBy: 'metric', metricId, maxParticipants: 100, runUnit: 'day', runInterval: 1 },
      { name: 'XP', key: 'xp-board', status: 'active', rankBy: 'points', pointsSystemId, maxParticipants: 100 },
      { name: 'Streaks', key: 'streaks', status: 'active', rankBy: 'streak', maxParticipants: 100 },
    ],
  });
  expect(boards.status, boards.text).toBe(201);
}
