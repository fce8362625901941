/**
 * Achievements end to end over HTTP, on single Redis and on the Cluster: the Admin API, completion
 * on events (thresholds, filters, composites, at most once), the API kind, statuses, the listings
 * with completions and rarity, and the backfill worker.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScripts, preloadScripts } from '../../src/redis/scripts.js';
import { putStreakSettings } from '../support/admin.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('achievements on %s', (target) => {
  const s = useTestServer({ target, clock: 'manual', workers: true });
  let metricId: string;
  const ids: Record<string, string> = {};
  const attr: Record<string, string> = {};

  const admin = (method: string, body?: unknown, query = '') => s.request(method, `/admin/v1/achievements${query}`, { body });
  const event = (user: unknown, value: number, attributes?: Record<string, string>) =>
    s.request('POST', '/api/metrics/lessons/event', { body: { user, value, attributes } });
  const keysOf = (list: { key: string }[]) => list.map((a) => a.key);

  beforeAll(async () => {
    await s.setClock('2026-05-01T10:00:00Z');
    metricId = (await s.metrics('lessons')).lessons;
    const attrs = await s.request('POST', '/admin/v1/attributes', {
      body: [{ name: 'Plan', key: 'plan', type: 'user' }, { name: 'Source', key: 'source', type: 'event' }],
    });
    for (const a of attrs.body.created) attr[a.key] = a.id;
    const r = await admin('POST', [
      { name: 'Five lessons', key: 'five', trigger: 'metric', metricId, metricValue: 5, badge: { url: 'https://img/5.png' } },
      { name: 'Ten lessons', key: 'ten', trigger: 'metric', metricId, metricValue: 10, description: 'Keep going' },
      { name: 'Twenty lessons', key: 'twenty', trigger: 'metric', metricId, metricValue: 20 },
      { name: 'Onboarded', key: 'onboarded', trigger: 'api' },
      { name: 'Mobile learner', key: 'mobile', trigger: 'metric', metricId, metricValue: 3,
        eventAttributes: [{ attributeId: attr.source, attributeValue: 'mobile' }] },
      { name: 'Pro starter', key: 'pro-start', trigger: 'metric', metricId, metricValue: 1,
        userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
      { name: 'Hidden', key: 'hidden', trigger: 'metric', metricId, metricValue: 1, status: 'inactive' },
      { name: 'Seven days', key: 'week', trigger: 'streak', streakLength: 7 },
    ]);
    expect(r.status).toBe(201);
    expect(r.body.issues).toEqual([]);
    for (const a of r.body.created) ids[a.key] = a.id;
    const composite = await admin('POST', [
      { name: 'All-rounder', key: 'all-rounder', trigger: 'achievement', achievementIds: [ids.ten, ids.onboarded] },
    ]);
    ids['all-rounder'] = composite.body.created[0].id;
    const top = await admin('POST', [{ name: 'Master', key: 'master', trigger: 'achievement', achievementIds: [ids['all-rounder'], ids.twenty] }]);
    ids.master = top.body.created[0].id;
    // Creating them queued backfills (nobody qualifies yet); let them finish before users appear.
    await s.workers!.testing.achievementsIdle();
  });

  describe('Admin API', () => {
    it('refuses unsound achievements item by item', async () => {
      const r = await admin('POST', [
        { name: 'x', key: 'bad-metric', trigger: 'metric', metricId: 'nope', metricValue: 1 },
        { name: 'x', key: 'no-value', trigger: 'metric', metricId },
        { name: 'x', key: 'bad-prereq', trigger: 'achievement', achievementIds: ['nope'] },
        { name: 'x', key: 'api-filtered', trigger: 'api', eventAttributes: [{ attributeId: attr.source, attributeValue: 'a' }] },
        { name: 'x', key: 'wrong-attr', trigger: 'api', userAttributes: [{ attributeId: attr.source, attributeValue: 'a' }] },
        { name: 'x', key: 'five', trigger: 'api' },
        { name: 'x', key: 'zero', trigger: 'metric', metricId, metricValue: 0 },
        { name: 'x', key: 'no-length', trigger: 'streak' },
        { name: 'x', key: 'bad-metric-key', trigger: 'metric', metricKey: 'nope', metricValue: 1 },
        // Another trigger's fields would be kept and never used.
        { name: 'x', key: 'api-metric', trigger: 'api', metricId },
        { name: 'x', key: 'streak-value', trigger: 'streak', streakLength: 3, metricValue: 5 },
        { name: 'x', key: 'metric-length', trigger: 'metric', metricId, metricValue: 5, streakLength: 3 },
        { name: 'x', key: 'api-metric-key', trigger: 'api', metricKey: 'lessons' },
      ]);
      expect(r.status).toBe(200);
      expect(r.body.created).toEqual([]);
      expect(r.body.issues.map((i: any) => i.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect(r.body.issues.slice(9).map((i: any) => i.message)).toEqual([
        'metricId applies to metric achievements only', 'metricValue applies to metric achievements only',
        'streakLength applies to streak achievements only', 'metricId applies to metric achievements only',
      ]);
      const byKey = await admin('POST', [{ name: 'By key', key: 'by-key', trigger: 'metric', metricKey: 'lessons', metricValue: 1000 }]);
      expect(byKey.body.created[0]).toMatchObject({ metricId, metricValue: 1000 });
      await admin('DELETE', undefined, `?ids=${byKey.body.created[0].id}`);
      expect(r.body.issues[5].message).toMatch(/^An achievement with key ".*" already exists$/);
    });

    it('lists, gets, updates and refuses changes that would break things', async () => {
      const one = await s.request('GET', `/admin/v1/achievements/${ids.five}`);
      expect(one.body).toMatchObject({ key: 'five', trigger: 'metric', metricId, metricValue: 5, badge: { url: 'https://img/5.png' }, status: 'active' });
      const list = await s.request('GET', '/admin/v1/achievements?limit=100');
      expect(keysOf(list.body)).toEqual(['five', 'ten', 'twenty', 'onboarded', 'mobile', 'pro-start', 'hidden', 'week', 'all-rounder', 'master']);
      const upd = await admin('PATCH', [
        { id: ids.ten, trigger: 'api' },
        { id: ids.onboarded, achievementIds: [ids.master] },
        { id: ids['all-rounder'], achievementIds: [ids.ten, ids.onboarded, ids.master] },
        { id: ids.week, description: 'A whole week' },
      ]);
      expect(upd.body.updated.map((a: any) => a.key)).toEqual(['week']);
      expect(upd.body.issues.map((i: any) => i.message)).toEqual([
        expect.stringMatching(/trigger cannot change/), expect.stringMatching(/achievementIds apply to achievement/), expect.stringMatching(/cycle/),
      ]);
      const del = await admin('DELETE', undefined, `?ids=${ids.ten}`);
      expect(del.body.issues[0].message).toMatch(/used by achievement "all-rounder"/);
      // Archived, a prerequisite would leave its composite out of reach; listed twice, it is a mistake.
      const more = await admin('PATCH', [
        { id: ids.ten, status: 'archived' },
        { id: ids['all-rounder'], achievementIds: [ids.ten, ids.ten, ids.onboarded] },
      ]);
      expect(more.body.updated).toEqual([]);
      expect(more.body.issues.map((i: any) => i.message)).toEqual([
        'Achievement "ten" is a prerequisite of achievement "all-rounder"; archive or change those first',
        `achievementIds lists "${ids.ten}" twice`,
      ]);
    });
  });

  describe('completion on events', () => {
    it('completes every threshold an event crosses, each once, with the response fields', async () => {
      const first = await event({ id: 'ann' }, 12);
      expect(first.status).toBe(201);
      expect(first.body.achievements).toEqual([
        {
          id: ids.five, key: 'five', name: 'Five lessons', trigger: 'metric', description: null, badgeUrl: 'https://img/5.png',
          userAttributes: [], metricId, metricValue: 5, metricName: 'Metric lessons', eventAttributes: [],
          achievedAt: '2026-05-01T10:00:00.000Z',
        },
        expect.objectContaining({ key: 'ten', description: 'Keep going', badgeUrl: null, metricValue: 10 }),
      ]);
      const second = await event({ id: 'ann' }, 10);
      expect(keysOf(second.body.achievements)).toEqual(['twenty']);
      expect((await event({ id: 'ann' }, 100)).body.achievements).toEqual([]);
    });

    it('completes after Redis forgot the plan sent by id (the library reloaded): the api sends it in full', async () => {
      // In a tenant of its own: the listings below count this suite's users.
      expect((await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'reload', name: 'Reload' }] })).status).toBe(201);
      const send = (value: number) => s.request('POST', '/api/metrics/lessons/event', { tenant: 'reload', body: { user: { id: 'u' }, value } });
      expect((await send(4)).body.achievements).toEqual([]);
      // FUNCTION LOAD REPLACE runs the library anew, with nothing remembered.
      await preloadScripts(s.api.services.redis, loadScripts());
      const r = await send(1);
      expect(r.status).toBe(201);
      expect(keysOf(r.body.achievements)).toEqual(['five']);
    });

    it('never completes one twice: concurrent events, and totals that fall and rise again', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => event({ id: 'race' }, 1)));
      const lists = results.map((r) => keysOf(r.body.achievements)).filter((l) => l.length > 0);
      expect(lists.flat().sort()).toEqual(['five', 'ten', 'twenty']);
      await event({ id: 'race' }, -15);
      expect((await event({ id: 'race' }, 15)).body.achievements).toEqual([]);
    });

    it('counts only matching events for an event-filtered achievement', async () => {
      expect(keysOf((await event({ id: 'mo' }, 2, { source: 'mobile' })).body.achievements)).toEqual([]);
      expect(keysOf((await event({ id: 'mo' }, 5, { source: 'web' })).body.achievements)).toEqual(['five']);
      expect(keysOf((await event({ id: 'mo' }, 1, { source: 'mobile' })).body.achievements)).toEqual(['mobile']);
    });

    it('completes a user-attribute-filtered achievement only for matching users', async () => {
      expect(keysOf((await event({ id: 'free', attributes: { plan: 'free' } }, 1)).body.achievements)).toEqual([]);
      expect(keysOf((await event({ id: 'pro', attributes: { plan: 'pro' } }, 1)).body.achievements)).toEqual(['pro-start']);
    });

    it('ignores inactive achievements and stops completing locked ones', async () => {
      await admin('PATCH', [{ id: ids.five, status: 'locked' }]);
      expect(keysOf((await event({ id: 'late' }, 6)).body.achievements)).toEqual([]);
      const mine = await s.request('GET', '/v1/users/late/achievements?includeIncomplete=true');
      expect(keysOf(mine.body)).not.toContain('five');
      expect(keysOf(mine.body)).not.toContain('hidden');
      const ann = await s.request('GET', '/v1/users/ann/achievements');
      expect(keysOf(ann.body)).toContain('five');
      await admin('PATCH', [{ id: ids.five, status: 'active' }]);
      await s.workers!.testing.achievementsIdle();
    });
  });

  describe('api and composite achievements', () => {
    it('completes an api achievement once: a second call answers the original completion', async () => {
      const first = await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'cal', name: 'Cal' } } });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        completionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        achievement: expect.objectContaining({ key: 'onboarded', trigger: 'api', achievedAt: '2026-05-01T10:00:00.000Z' }),
        points: {},
      });
      await s.setClock('2026-05-02T10:00:00Z');
      const again = await s.request('POST', '/v1/achievements/onboarded/complete', { body: { user: { id: 'cal' } } });
      expect(again.status).toBe(201);
      expect(again.body.completionId).toBe(first.body.completionId);
      expect(again.body.achievement.achievedAt).toBe('2026-05-01T10:00:00.000Z');
      expect((await s.request('GET', '/v1/users/cal')).body.name).toBe('Cal');
    });

    it('cascades composites when their last prerequisite completes, on an event or through the API', async () => {
      const viaEvent = await event({ id: 'cal' }, 10);
      expect(keysOf(viaEvent.body.achievements)).toEqual(['five', 'ten', 'all-rounder']);
      expect(keysOf((await event({ id: 'cal' }, 10)).body.achievements)).toEqual(['twenty', 'master']);

      await event({ id: 'dee' }, 10);
      await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'dee' } } });
      const mine = await s.request('GET', '/v1/users/dee/achievements');
      expect(keysOf(mine.body)).toEqual(['five', 'ten', 'onboarded', 'all-rounder']);
    });

    it('refuses to complete other kinds, unknown and inactive achievements', async () => {
      const body = { user: { id: 'eve' } };
      expect((await s.request('POST', '/api/achievements/ten/complete', { body })).status).toBe(422);
      expect((await s.request('POST', '/api/achievements/nope/complete', { body })).status).toBe(404);
      expect((await s.request('POST', '/api/achievements/hidden/complete', { body })).status).toBe(404);
      // Malformed: 422, the status SDK 1.0.42 types for this call (it types no 400), code unchanged.
      const malformed = await s.request('POST', '/api/achievements/onboarded/complete', { body: {} });
      expect([malformed.status, malformed.body.code]).toEqual([422, 'invalid_body']);
      expect((await s.request('GET', '/v1/users/eve')).status).toBe(404);
    });
  });

  describe('listings', () => {
    it('lists active achievements with completions and rarity, filtered by user attributes', async () => {
      const all = await s.request('GET', '/v1/achievements');
      expect(all.status).toBe(200);
      expect(keysOf(all.body)).toEqual(['five', 'ten', 'twenty', 'onboarded', 'mobile', 'pro-start', 'week', 'all-rounder', 'master']);
      const users = (await Promise.all(['ann', 'race', 'mo', 'free', 'pro', 'late', 'cal', 'dee'].map((id) => s.request('GET', `/v1/users/${id}`))))
        .filter((r) => r.status === 200).length;
      const ten = all.body.find((a: any) => a.key === 'ten');
      // ten: ann, race, cal, dee.
      expect(ten).toMatchObject({ completions: 4, rarity: Math.round((4 / users) * 10000) / 100 });
      expect(all.body.find((a: any) => a.key === 'week')).toMatchObject({ completions: 0, rarity: 0, streakLength: 7 });
      const free = await s.request('GET', '/v1/achievements?userAttributes=plan:free');
      expect(keysOf(free.body)).not.toContain('pro-start');
      const pro = await s.request('GET', '/v1/achievements?userAttributes=plan:pro');
      expect(keysOf(pro.body)).toContain('pro-start');
      expect((await s.request('GET', '/v1/achievements?userAttributes=shoe:42')).status).toBe(422);
      expect((await s.request('GET', '/v1/achievements?userAttributes=broken')).status).toBe(422);
    });

    it('lists a user\'s completed achievements, and with includeIncomplete the rest with progress', async () => {
      const done = await s.request('GET', '/v1/users/mo/achievements');
      expect(done.body.map((a: any) => [a.key, a.achievedAt !== null])).toEqual([['five', true], ['mobile', true]]);
      expect(done.body[0]).toMatchObject({ completions: expect.any(Number), rarity: expect.any(Number) });
      const all = await s.request('GET', '/v1/users/mo/achievements?includeIncomplete=true');
      const ten = all.body.find((a: any) => a.key === 'ten');
      expect(ten).toMatchObject({ achievedAt: null, progress: { current: 8, target: 10 } });
      expect((await s.request('GET', '/v1/users/nobody/achievements')).status).toBe(404);
    });

    it('shows a metric\'s achievements in the user\'s metrics', async () => {
      const m = await s.request('GET', '/v1/users/mo/metrics/lessons');
      const byKey = Object.fromEntries(m.body.achievements.map((a: any) => [a.key, a.achievedAt]));
      expect(byKey.five).toBe('2026-05-01T10:00:00.000Z');
      expect(byKey.twenty).toBeNull();
      expect(byKey.hidden).toBeUndefined();
    });
  });

  describe('backfill', () => {
    it('completes a new or re-activated achievement, silently, for users who already qualify', async () => {
      const created = await admin('POST', [{ name: 'Fifty', key: 'fifty', trigger: 'metric', metricId, metricValue: 50 }]);
      const fifty = created.body.created[0].id;
      await s.workers!.testing.achievementsIdle();
      // ann: 122 lessons; cal: 30; mo: 8.
      const ann = await s.request('GET', '/v1/users/ann/achievements');
      expect(keysOf(ann.body)).toContain('fifty');
      expect(keysOf((await s.request('GET', '/v1/users/cal/achievements')).body)).not.toContain('fifty');

      await admin('PATCH', [{ id: ids.hidden, status: 'active' }]);
      await s.workers!.testing.achievementsIdle();
      const mo = await s.request('GET', '/v1/users/mo/achievements');
      expect(keysOf(mo.body)).toContain('hidden');
      // Statistics are cached for a second per process: wait for the backfill's count to show.
      let completions = 0;
      for (const until = Date.now() + 3000; completions !== 1 && Date.now() < until;) {
        completions = (await s.request('GET', '/v1/achievements')).body.find((a: any) => a.id === fifty).completions;
        if (completions !== 1) await new Promise((r) => setTimeout(r, 100));
      }
      expect(completions).toBe(1);
    });

    it('completes a new streak achievement for users whose longest streak reached it', async () => {
      await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId, threshold: 1 }] });
      for (const day of ['10', '11', '12']) {
        await s.setClock(`2026-06-${day}T10:00:00Z`);
        await event({ id: 'streaker' }, 1);
        await event({ id: 'switched-off' }, 1);
      }
      await event({ id: 'once' }, 1);
      // A user whose streak preferences disable the streak qualifies no more.
      const off = await s.request('PATCH', '/v1/users/switched-off/preferences', { body: { streak: { enabled: false } } });
      expect(off.status, off.text).toBe(200);
      await admin('POST', [{ name: 'Three in a row', key: 'three-row', trigger: 'streak', streakLength: 3 }]);
      await s.workers!.testing.achievementsIdle();
      expect(keysOf((await s.request('GET', '/v1/users/streaker/achievements')).body)).toContain('three-row');
      expect(keysOf((await s.request('GET', '/v1/users/once/achievements')).body)).not.toContain('three-row');
      expect(keysOf((await s.request('GET', '/v1/users/switched-off/achievements')).body)).not.toContain('three-row');
    });
  });

  describe('user filters met late', () => {
    // Last: its users would change the listings' counts.
    it('completes a user-filtered achievement on the next event once the user matches, past the goal already', async () => {
      // (Whatever else the first event completes, the filtered one waits for the filter.)
      expect(keysOf((await event({ id: 'tardy', attributes: { plan: 'free' } }, 2)).body.achievements)).not.toContain('pro-start');
      expect((await s.request('PUT', '/v1/users/tardy', { body: { attributes: { plan: 'pro' } } })).status).toBe(200);
      expect(keysOf((await event({ id: 'tardy' }, 1)).body.achievements)).toEqual(['pro-start']);
      expect(keysOf((await event({ id: 'tardy' }, 1)).body.achievements)).toEqual([]);
      // And when the event itself brings the attribute.
      expect(keysOf((await event({ id: 'tardy2', attributes: { plan: 'free' } }, 2)).body.achievements)).not.toContain('pro-start');
      expect(keysOf((await event({ id: 'tardy2', attributes: { plan: 'pro' } }, 1)).body.achievements)).toEqual(['pro-start']);
    });
  });
});
