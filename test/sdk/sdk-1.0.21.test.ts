/**
 * An older official SDK, `@trophyso/node@1.0.21` (a version apps still pin), whose
 * `environment` is one base-URL string rather than `{ api, admin }`: pointed at laurel's `/api`
 * prefix as README.md says, every call it has answers and parses. Runs against the api as
 * `npm start` runs it (the default processes), on single Redis and on the Cluster.
 */
import { TrophyApiClient } from 'trophy-node-1.0.21';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAchievements, putStreakSettings } from '../support/admin.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const NO_RETRY = { maxRetries: 0 };

describe.each(targets())('SDK 1.0.21 (a base-URL string) on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual', processes: true });
  let trophy: TrophyApiClient;

  beforeAll(async () => {
    await s.setClock('2026-04-01T08:00:00Z');
    const { lessons } = await s.metrics('lessons');
    await createAchievements(s, [
      { name: 'First lesson', key: 'first-lesson', trigger: 'metric', metricId: lessons, metricValue: 1 },
      { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
    ]);
    await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
    trophy = new TrophyApiClient({ apiKey: s.adminKey, environment: `${s.url}/api` });
  });

  it('sends an event and reads back the user, metrics, achievements, streak and points', async () => {
    const ev = await trophy.metrics.event('lessons', { user: { id: 'old-ada', name: 'Ada', tz: 'UTC' }, value: 2 }, NO_RETRY);
    expect(ev).toMatchObject({ total: 2, achievements: [expect.objectContaining({ key: 'first-lesson' })] });
    expect(ev.points?.xp).toMatchObject({ total: 20, added: 20 });
    expect(await trophy.users.get('old-ada', NO_RETRY)).toMatchObject({ id: 'old-ada', name: 'Ada', tz: 'UTC' });
    expect(await trophy.users.identify('old-ada', { name: 'Ada L.' }, NO_RETRY)).toMatchObject({ id: 'old-ada', name: 'Ada L.' });
    expect(await trophy.users.update('old-ada', { email: 'ada@example.com' }, NO_RETRY)).toMatchObject({ email: 'ada@example.com' });
    expect(await trophy.users.create({ id: 'old-kai', name: 'Kai' }, NO_RETRY)).toMatchObject({ id: 'old-kai' });
    expect((await trophy.users.allMetrics('old-ada', NO_RETRY)).map((m) => [m.key, m.current])).toEqual([['lessons', 2]]);
    expect(await trophy.users.singleMetric('old-ada', 'lessons', NO_RETRY)).toMatchObject({ key: 'lessons', current: 2 });
    expect(await trophy.users.metricEventSummary('old-ada', 'lessons', {
      aggregation: 'daily', startDate: '2026-04-01', endDate: '2026-04-01',
    }, NO_RETRY)).toEqual([expect.objectContaining({ date: '2026-04-01', total: 2, change: 2 })]);
    expect((await trophy.users.achievements('old-ada', undefined, NO_RETRY)).map((a) => a.key)).toEqual(['first-lesson']);
    expect(await trophy.users.streak('old-ada', undefined, NO_RETRY)).toMatchObject({ length: 1 });
    expect(await trophy.users.points('old-ada', 'xp', undefined, NO_RETRY)).toMatchObject({ key: 'xp', total: 20 });
    expect(await trophy.users.pointsEventSummary('old-ada', 'xp', {
      aggregation: 'daily', startDate: '2026-04-01', endDate: '2026-04-01',
    }, NO_RETRY)).toEqual([expect.objectContaining({ date: '2026-04-01', total: 20 })]);
  });

  it('completes an achievement and reads achievements, streaks and points systems', async () => {
    const done = await trophy.achievements.complete('onboarded', { user: { id: 'old-ada' } }, NO_RETRY);
    expect(done.achievement).toMatchObject({ key: 'onboarded' });
    expect((await trophy.achievements.all(NO_RETRY)).map((a) => a.key).sort()).toEqual(['first-lesson', 'onboarded']);
    expect(await trophy.streaks.list({ userIds: ['old-ada'] }, NO_RETRY)).toEqual([expect.objectContaining({ userId: 'old-ada', streakLength: 1 })]);
    expect((await trophy.streaks.rankings({ limit: 5 }, NO_RETRY)).map((r) => r.userId)).toEqual(['old-ada']);
    expect(await trophy.points.system('xp', NO_RETRY)).toMatchObject({ key: 'xp', name: 'XP' });
    expect(await trophy.points.summary('xp', undefined, NO_RETRY)).toEqual(expect.any(Array));
  });
});
