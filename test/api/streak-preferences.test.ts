/**
 * Per-user streak preferences (PATCH /users/{id}/preferences `streak`) with the manual clock, on
 * single Redis and on the Cluster: a disabled streak is 0 everywhere until enabled again, a rule
 * of the user's own (metrics outside the tenant's, thresholds, AND and OR), what a change does
 * mid-period, the answers and their validation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('streak preferences on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual' });
  let ids: Record<string, string>;

  const at = (iso: string) => s.setClock(iso);
  const prefs = (user: string, body: unknown) => s.request('PATCH', `/api/users/${user}/preferences`, { body });
  const setStreak = async (user: string, streak: unknown) => {
    const r = await prefs(user, { streak });
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const post = (user: string, metric = 'lessons', value = 1) =>
    s.request('POST', `/api/metrics/${metric}/event`, { body: { user: { id: user }, value } });
  const streakOf = async (user: string, metric = 'lessons', value = 1) => {
    const r = await post(user, metric, value);
    expect(r.status, r.text).toBe(201);
    return r.body.currentStreak;
  };
  const lengthOf = async (user: string) => (await s.request('GET', `/api/users/${user}/streak`)).body.length;
  const listed = async (user: string) => (await s.request('GET', `/api/streaks?userIds=${user}`)).body[0].streakLength;
  const ranked = async () => ((await s.request('GET', '/api/streaks/rankings?limit=100')).body as { userId: string; streakLength: number }[])
    .map((e) => [e.userId, e.streakLength]);
  const board = async () => ((await s.request('GET', '/api/leaderboards/streaky')).body.rankings as { userId: string; value: number }[])
    .map((e) => [e.userId, e.value]);

  beforeAll(async () => {
    // words: no feature of its own (the tenant's rule does not name it), so its events take the
    // featureless script, but for users whose rule names it.
    ids = await s.metrics('lessons', 'quizzes', 'words');
  });

  it('refuses streak preferences while no streak rule is configured', async () => {
    await at('2026-01-05T10:00:00Z');
    expect((await post('early')).status).toBe(201);
    const r = await prefs('early', { streak: { enabled: false } });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/streak rule/);
    expect((await s.request('GET', '/api/users/early/preferences')).body).toEqual({ notifications: {} });
  });

  describe('with a daily rule on lessons', () => {
    beforeAll(async () => {
      const r = await s.request('PUT', '/admin/v1/streaks/settings', {
        body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] },
      });
      expect(r.status, r.text).toBe(200);
      const a = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Two days', key: 'two-days', trigger: 'streak', streakLength: 2 }] });
      expect(a.status, a.text).toBe(201);
      const b = await s.request('POST', '/admin/v1/leaderboards', { body: [{ name: 'Streaks', key: 'streaky', rankBy: 'streak', status: 'active' }] });
      expect(b.status, b.text).toBe(201);
    });

    it('validates the streak preferences: 422 for a bad shape (as SDK 1.0.42 types a malformed body here) or an unknown metric, 404 for an unknown user', async () => {
      await at('2026-02-02T10:00:00Z');
      await post('val');
      for (const streak of [
        { enabled: 'no' }, { evaluationMode: 'XOR' }, { evaluationMode: 'or' }, { metrics: [] }, { metrics: [{ key: 'lessons' }] },
        { metrics: [{ key: 'lessons', threshold: 0 }] }, { metrics: [{ key: 'lessons', threshold: -1 }] },
        { metrics: [{ key: 'lessons', threshold: '1' }] }, 'off',
      ]) {
        const r = await prefs('val', { streak });
        expect(r.status, JSON.stringify(streak)).toBe(422);
        expect(r.body).toMatchObject({ error: expect.any(String), code: 'invalid_body' });
      }
      const unknown = await prefs('val', { streak: { metrics: [{ key: 'lessons', threshold: 1 }, { key: 'nope', threshold: 1 }] } });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toMatch(/"nope"/);
      const twice = await prefs('val', { streak: { metrics: [{ key: 'lessons', threshold: 1 }, { key: 'lessons', threshold: 2 }] } });
      expect(twice.status).toBe(422);
      expect((await prefs('ghost', { streak: { enabled: false } })).status).toBe(404);
      // Nothing of the refused requests was kept.
      expect((await s.request('GET', '/api/users/val/preferences')).body).toEqual({ notifications: {} });
      // An unknown field of an Application body is ignored, and not stored.
      await post('val-other');
      const other = await prefs('val-other', { streak: { other: true, metrics: [{ key: 'lessons', threshold: 1, colour: 'red' }] }, colour: 'red' });
      expect(other.status, other.text).toBe(200);
      expect(other.text).not.toContain('colour');
      expect((await s.request('GET', '/api/users/val-other/preferences')).body).toEqual({ notifications: {}, streak: { metrics: [{ key: 'lessons', threshold: 1 }] } });
    });

    it('answers the streak preferences set, merged with those stored, and none for a user without', async () => {
      await post('pat');
      expect(await setStreak('pat', { evaluationMode: 'AND' })).toEqual({ notifications: {}, streak: { evaluationMode: 'AND' } });
      expect(await setStreak('pat', { metrics: [{ key: 'quizzes', threshold: 2.5 }, { key: 'lessons', threshold: 1 }] })).toEqual({
        notifications: {}, streak: { evaluationMode: 'AND', metrics: [{ key: 'quizzes', threshold: 2.5 }, { key: 'lessons', threshold: 1 }] },
      });
      const r = await prefs('pat', { notifications: { recap: ['email'] }, streak: { evaluationMode: 'OR', enabled: true } });
      const all = {
        notifications: { recap: ['email'] },
        streak: { enabled: true, evaluationMode: 'OR', metrics: [{ key: 'quizzes', threshold: 2.5 }, { key: 'lessons', threshold: 1 }] },
      };
      expect(r.body).toEqual(all);
      // Notifications alone, or a streak of nulls: the streak preferences are kept as they are.
      expect((await prefs('pat', { notifications: { recap: ['push'] }, streak: { enabled: null } })).body)
        .toEqual({ ...all, notifications: { recap: ['push'] } });
      expect((await s.request('GET', '/api/users/pat/preferences')).body).toEqual({ ...all, notifications: { recap: ['push'] } });
      expect((await s.request('GET', '/api/users/val/preferences')).body).toEqual({ notifications: {} });
    });

    it('gives a disabled user no streak anywhere and no streak achievement, until enabled again', async () => {
      await at('2026-03-02T10:00:00Z');
      expect(await streakOf('dis')).toMatchObject({ length: 1, extended: true });
      expect(await streakOf('ref')).toMatchObject({ length: 1, extended: true });
      expect(await ranked()).toContainEqual(['dis', 1]);
      expect(await board()).toContainEqual(['dis', 1]);

      expect(await setStreak('dis', { enabled: false })).toEqual({ notifications: {}, streak: { enabled: false } });
      expect(await lengthOf('dis')).toBe(0);
      expect((await s.request('GET', '/api/users/dis/streak')).body).toMatchObject({ length: 0, rank: null, extended: null });
      expect(await listed('dis')).toBe(0);
      expect((await ranked()).map(([u]) => u)).not.toContain('dis');
      expect((await board()).map(([u]) => u)).not.toContain('dis');

      // The next day: ref extends to 2 and completes the achievement, dis does neither.
      await at('2026-03-03T10:00:00Z');
      const refEvent = await post('ref');
      expect(refEvent.body.currentStreak).toMatchObject({ length: 2, extended: true });
      expect(refEvent.body.achievements.map((a: { key: string }) => a.key)).toEqual(['two-days']);
      const disEvent = await post('dis', 'lessons', 5);
      expect(disEvent.body.currentStreak).toMatchObject({ length: 0, extended: false, started: null });
      expect(disEvent.body.achievements).toEqual([]);
      expect(disEvent.body.leaderboards).toEqual({});
      await at('2026-03-04T10:00:00Z');
      expect(await streakOf('dis')).toMatchObject({ length: 0, extended: false });
      expect(await lengthOf('dis')).toBe(0);
      expect(await listed('dis')).toBe(0);
      expect((await ranked()).map(([u]) => u)).not.toContain('dis');
      expect((await board()).map(([u]) => u)).not.toContain('dis');
      expect((await s.request('GET', '/api/users/dis/achievements')).body).toEqual([]);

      // An admin's restore does not give it back.
      const restore = await s.request('POST', '/admin/v1/streaks/restore', { body: { users: [{ id: 'dis' }] } });
      expect(restore.body).toMatchObject({ restoredUsers: [], issues: [{ userId: 'dis', severity: 'warning' }] });
      expect(await lengthOf('dis')).toBe(0);

      // Enabled again: the streak starts anew with the next extension.
      await setStreak('dis', { enabled: true });
      expect(await lengthOf('dis')).toBe(0);
      expect(await streakOf('dis')).toMatchObject({ length: 1, extended: true, started: '2026-03-04' });
      expect(await ranked()).toContainEqual(['dis', 1]);
      await at('2026-03-05T10:00:00Z');
      expect(await streakOf('dis')).toMatchObject({ length: 2, extended: true, started: '2026-03-04' });
      expect((await s.request('GET', '/api/users/dis/achievements')).body.map((a: { key: string }) => a.key)).toEqual(['two-days']);
    });

    it('extends a streak by the user\'s own metric, one the tenant\'s rule does not name', async () => {
      await at('2026-04-01T10:00:00Z');
      await post('wes', 'words');
      await setStreak('wes', { metrics: [{ key: 'words', threshold: 10 }] });
      await at('2026-04-02T10:00:00Z');
      // The tenant's metric no longer counts for wes; words do, once the day's sum reaches 10.
      expect(await streakOf('wes', 'lessons', 5)).toMatchObject({ length: 0, extended: false });
      expect(await streakOf('wes', 'words', 6)).toMatchObject({ length: 0, extended: false });
      expect(await streakOf('wes', 'words', 4)).toMatchObject({ length: 1, extended: true });
      expect(await streakOf('wes', 'words', 50)).toMatchObject({ length: 1, extended: false });
      await at('2026-04-03T10:00:00Z');
      const second = await post('wes', 'words', 10);
      expect(second.body.currentStreak).toMatchObject({ length: 2, extended: true });
      expect(second.body.achievements.map((a: { key: string }) => a.key)).toEqual(['two-days']);
      expect(second.body.leaderboards.streaky).toMatchObject({ rank: expect.any(Number) });
      expect(await lengthOf('wes')).toBe(2);
      expect(await listed('wes')).toBe(2);
      expect(await ranked()).toContainEqual(['wes', 2]);
      expect(await board()).toContainEqual(['wes', 2]);
      // A user without preferences: words extend nothing.
      expect(await streakOf('nat', 'words', 100)).toMatchObject({ length: 0, extended: false });
      expect(await streakOf('nat', 'lessons', 1)).toMatchObject({ length: 1, extended: true });
    });

    it('extends by any of the user\'s metrics with OR, and only by all of them with AND', async () => {
      await at('2026-05-04T10:00:00Z');
      const both = [{ key: 'lessons', threshold: 1 }, { key: 'quizzes', threshold: 2 }];
      for (const u of ['orr', 'and']) await post(u, 'words');
      await setStreak('orr', { evaluationMode: 'OR', metrics: both });
      await setStreak('and', { evaluationMode: 'AND', metrics: both });
      await at('2026-05-05T10:00:00Z');
      expect(await streakOf('orr', 'quizzes', 2)).toMatchObject({ length: 1, extended: true });
      expect(await streakOf('and', 'quizzes', 2)).toMatchObject({ length: 0, extended: false });
      expect(await streakOf('and', 'lessons', 1)).toMatchObject({ length: 1, extended: true });
      await at('2026-05-06T10:00:00Z');
      expect(await streakOf('orr', 'lessons', 1)).toMatchObject({ length: 2, extended: true });
      expect(await streakOf('and', 'lessons', 1)).toMatchObject({ length: 1, extended: false });
      expect(await streakOf('and', 'quizzes', 1)).toMatchObject({ length: 1, extended: false });
      expect(await streakOf('and', 'quizzes', 1)).toMatchObject({ length: 2, extended: true });
    });

    it('takes the user\'s threshold in place of the tenant\'s, and counts a period again after a change', async () => {
      await at('2026-06-01T10:00:00Z');
      await post('thr', 'words');
      await setStreak('thr', { metrics: [{ key: 'lessons', threshold: 3 }] });
      expect(await streakOf('thr', 'lessons', 2)).toMatchObject({ length: 0, extended: false });
      expect(await streakOf('thr', 'lessons', 1)).toMatchObject({ length: 1, extended: true });
      await at('2026-06-02T10:00:00Z');
      expect(await streakOf('thr', 'lessons', 2)).toMatchObject({ length: 1, extended: false });
      // A change mid-period: the period's sum starts again under the new rule.
      await setStreak('thr', { metrics: [{ key: 'lessons', threshold: 2 }] });
      expect(await streakOf('thr', 'lessons', 1)).toMatchObject({ length: 1, extended: false });
      expect(await streakOf('thr', 'lessons', 1)).toMatchObject({ length: 2, extended: true });
    });

    it('adds fractions to the total and toward the user\'s threshold', async () => {
      await at('2026-06-05T10:00:00Z');
      await post('half', 'words');
      await setStreak('half', { metrics: [{ key: 'lessons', threshold: 1 }] });
      expect(await streakOf('half', 'lessons', 0.5)).toMatchObject({ length: 0, extended: false });
      const r = await post('half', 'lessons', 0.25);
      expect(r.status, r.text).toBe(201);
      expect(r.body.total).toBe(0.75);
      expect(await streakOf('half', 'lessons', 0.25)).toMatchObject({ length: 1, extended: true });
    });

    it('follows the user\'s rule on metrics that award points, by the usual points plan or the general one', async () => {
      await at('2026-08-03T10:00:00Z');
      // One metric trigger on quizzes: its events take the usual points plan.
      const xp = await s.request('POST', '/admin/v1/points', {
        body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.quizzes, metricThreshold: 1, points: 10, status: 'active' }] }],
      });
      expect(xp.status, xp.text).toBe(201);
      await post('fp', 'words');
      await setStreak('fp', { metrics: [{ key: 'quizzes', threshold: 2 }] });
      const first = await post('fp', 'quizzes', 1);
      expect(first.body.currentStreak).toMatchObject({ length: 0, extended: false });
      expect(first.body.points.xp).toMatchObject({ added: 10, total: 10 });
      const second = await post('fp', 'quizzes', 1);
      expect(second.body.currentStreak).toMatchObject({ length: 1, extended: true });
      expect(second.body.points.xp).toMatchObject({ added: 10, total: 20 });
      // Without preferences, quizzes award points and extend nothing.
      const plain = await post('np', 'quizzes', 5);
      expect(plain.body.currentStreak).toMatchObject({ length: 0, extended: false });
      expect(plain.body.points.xp).toMatchObject({ added: 50 });

      // A streak trigger: every metric's events take the general points plan.
      const bonus = await s.request('POST', '/admin/v1/points', {
        body: [{ name: 'Bonus', key: 'bonus', triggers: [{ type: 'streak', streakLength: 1, points: 3, status: 'active' }] }],
      });
      expect(bonus.status, bonus.text).toBe(201);
      await post('gp', 'lessons', 0);
      await setStreak('gp', { metrics: [{ key: 'words', threshold: 1 }] });
      const lessons = await post('gp', 'lessons', 1);
      expect(lessons.body.currentStreak).toMatchObject({ length: 0, extended: false });
      expect(lessons.body.points).toEqual({});
      const words = await post('gp', 'words', 1);
      expect(words.body.currentStreak).toMatchObject({ length: 1, extended: true });
      expect(words.body.points.bonus).toMatchObject({ added: 3, total: 3 });
      await at('2026-08-04T10:00:00Z');
      expect((await post('fp', 'quizzes', 2)).body).toMatchObject({ currentStreak: { length: 2, extended: true }, points: { xp: { added: 20 }, bonus: { added: 3 } } });
    });

    it('is seen by an event of a process that remembered other preferences', async () => {
      await at('2026-07-01T10:00:00Z');
      await post('nat', 'words');
      await setStreak('nat', { metrics: [{ key: 'words', threshold: 1 }] });
      expect(await streakOf('nat', 'words', 1)).toMatchObject({ length: 1, extended: true });
      // Written behind the api's back (another process would): the event script sees the token
      // changed and the api takes the preferences stored.
      const { redis, keys } = s.api.services;
      const u = keys.forUser('_', 'nat');
      const stored = await redis.hmget(u.user, 's:o', 's:ov');
      await redis.hset(u.user, 's:o', JSON.stringify({ metrics: [[ids.quizzes, 1]] }), 's:ov', 'ffffffffffffffff');
      await at('2026-07-02T10:00:00Z');
      expect(await streakOf('nat', 'words', 1)).toMatchObject({ length: 1, extended: false });
      expect(await streakOf('nat', 'quizzes', 1)).toMatchObject({ length: 2, extended: true });
      await redis.hset(u.user, 's:o', stored[0]!, 's:ov', stored[1]!);
    });
  });
});
