/**
 * Points on the event path, on single Redis and on the Cluster: metric triggers (every N units,
 * once per multiple, filters), achievement, streak and user-creation triggers, caps, the floor at
 * 0 and blockIfOutOfPoints, levels, concurrency, and the points reads.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('points on %s', (target) => {
  describe('an XP system', () => {
    let s: TestServer;
    let ids: Record<string, string>;
    const triggers: Record<string, string> = {};
    let firstAwardId = ''; // ana's first award, as the event answered it

    const event = (user: string, metric: string, value: number, attributes?: Record<string, string>) =>
      s.event(metric, user, value, attributes);
    const xpOf = async (user: string, query = '') => {
      const r = await s.request('GET', `/api/users/${user}/points/xp${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body;
    };

    beforeAll(async () => {
      s = await startTestServer({ target, clock: 'manual' });
      await s.setClock('2026-03-02T10:00:00Z');
      ids = await s.metrics('lessons', 'quizzes');
      const attrs = { ...await s.attributes('user', 'plan'), ...await s.attributes('event', 'source') };
      const ach = await s.request('POST', '/admin/v1/achievements', {
        body: [{ name: 'Onboarded', key: 'onboarded', trigger: 'api' }],
      });
      const onboarded = ach.body.created[0].id;
      const r = await s.request('POST', '/admin/v1/points', {
        body: [{
          name: 'XP', key: 'xp',
          levels: [{ name: 'Rookie', key: 'rookie', points: 10 }, { name: 'Pro', key: 'pro', points: 50 }],
          triggers: [
            { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' },
            { type: 'metric', metricId: ids.quizzes, metricThreshold: 5, points: 3, status: 'active' },
            { type: 'achievement', achievementId: onboarded, points: 25, status: 'active' },
            { type: 'metric', metricId: ids.lessons, metricThreshold: 2, points: 5, status: 'active',
              eventAttributes: [{ attributeId: attrs.source, attributeValue: 'app' }] },
            { type: 'metric', metricId: ids.quizzes, metricThreshold: 1, points: 100, status: 'active',
              userAttributes: [{ attributeId: attrs.plan, attributeValue: 'pro' }] },
            { type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 1000 },
          ],
        }],
      });
      expect(r.status, r.text).toBe(201);
      const created = r.body.created[0].triggers as { id: string }[];
      ['lessons', 'quizzes', 'onboarded', 'filtered', 'pro', 'inactive'].forEach((name, i) => { triggers[name] = created[i].id; });
    });
    afterAll(async () => { await s?.close(); });

    it('awards points for every threshold an event passes, and shows the level when it changes', async () => {
      const first = await event('ana', 'lessons', 1);
      firstAwardId = first.points.xp.awards[0].id;
      expect(first.points).toEqual({
        xp: {
          id: expect.any(String), key: 'xp', name: 'XP', description: null, badgeUrl: null, maxPoints: null,
          total: 10, added: 10,
          level: { id: expect.any(String), key: 'rookie', name: 'Rookie', description: '', badgeUrl: null, points: 10 },
          awards: [{
            id: expect.stringMatching(/^[0-9a-f-]{36}$/), awarded: 10, date: '2026-03-02T10:00:00.000Z', total: 10,
            trigger: expect.objectContaining({ id: triggers.lessons, type: 'metric', points: 10, metricId: ids.lessons,
              metricName: 'Metric lessons', metricThreshold: 1 }),
            boosts: [],
          }],
        },
      });
      // Three units at once: three times the points, in one award; the level does not change.
      const second = await event('ana', 'lessons', 3);
      expect(second.points.xp).toMatchObject({ total: 40, added: 30, awards: [{ awarded: 30, total: 40 }] });
      expect(second.points.xp).not.toHaveProperty('level');
      expect((await event('ana', 'lessons', 1)).points.xp).toMatchObject({ total: 50, added: 10, level: { key: 'pro' } });
      // Every 5 quizzes: 4 pass nothing, the fifth pays, 11 more pass 10 and 15.
      expect((await event('ana', 'quizzes', 4)).points).toEqual({});
      expect((await event('ana', 'quizzes', 1)).points.xp).toMatchObject({ added: 3, total: 53 });
      expect((await event('ana', 'quizzes', 11)).points.xp).toMatchObject({ added: 6, total: 59 });
    });

    it('does not pay twice for a total that falls and rises again', async () => {
      await event('bo', 'lessons', 2);
      expect((await event('bo', 'lessons', -2)).points).toEqual({});
      expect((await event('bo', 'lessons', 1)).points).toEqual({});
      expect((await event('bo', 'lessons', 1)).points).toEqual({});
      expect((await event('bo', 'lessons', 1)).points.xp).toMatchObject({ added: 10, total: 30 });
      // Fractions add up without drift: 0.1 ten times passes 1 once.
      for (let i = 0; i < 9; i++) expect((await event('cy', 'lessons', 0.1)).points).toEqual({});
      expect((await event('cy', 'lessons', 0.1)).points.xp).toMatchObject({ added: 10, total: 10 });
      // A first event below zero, matching a filtered trigger too: the high point is 0.
      expect((await event('dee', 'lessons', -2, { source: 'app' })).points).toEqual({});
      expect((await event('dee', 'lessons', 3, { source: 'app' })).points.xp).toMatchObject({ added: 10, total: 10 });
    });

    it('counts only matching events for a trigger with event filters, and only matching users for one with user filters', async () => {
      expect((await event('di', 'lessons', 1, { source: 'app' })).points.xp).toMatchObject({ added: 10 });
      expect((await event('di', 'lessons', 1)).points.xp).toMatchObject({ added: 10 });
      const third = await event('di', 'lessons', 1, { source: 'app' });
      expect(third.points.xp.added).toBe(15);
      expect(third.points.xp.awards.map((a: any) => a.trigger.id).sort()).toEqual([triggers.lessons, triggers.filtered].sort());
      expect((await event('di', 'quizzes', 1)).points).toEqual({});
      const pro = await s.request('POST', '/api/metrics/quizzes/event', { body: { user: { id: 'di', attributes: { plan: 'pro' } }, value: 1 } });
      expect(pro.body.points.xp).toMatchObject({ added: 100 });
    });

    it('reads the user points: total, level, the newest awards first, at most `awards`', async () => {
      const xp = await xpOf('ana');
      expect(xp).toMatchObject({ key: 'xp', total: 59, level: { key: 'pro' } });
      expect(xp.awards.map((a: any) => a.awarded)).toEqual([6, 3, 10, 30, 10]);
      // An award keeps its id: the read shows the one the event answered.
      expect(xp.awards[4].id).toBe(firstAwardId);
      expect(xp.awards[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/), awarded: 6, date: '2026-03-02T10:00:00.000Z', total: 59,
        trigger: expect.objectContaining({ id: triggers.quizzes, type: 'metric', metricThreshold: 5 }), boosts: [],
      });
      expect((await xpOf('ana', '?awards=2')).awards).toHaveLength(2);
      for (const bad of ['0', '101', 'x', '1.5']) {
        expect((await s.request('GET', `/api/users/ana/points/xp?awards=${bad}`)).status).toBe(422);
      }
      expect((await s.request('GET', '/api/users/ana/points/nope')).status).toBe(404);
      expect((await s.request('GET', '/api/users/nobody/points/xp')).status).toBe(404);
      const fresh = await s.request('PUT', '/api/users/eve', { body: {} });
      expect(fresh.status).toBe(201);
      expect(await xpOf('eve')).toMatchObject({ total: 0, level: null, awards: [] });
    });

    it('awards an achievement trigger when the achievement is completed through the API, once', async () => {
      const r = await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'ana' } } });
      expect(r.status).toBe(201);
      expect(r.body.points.xp).toMatchObject({ added: 25, total: 84, awards: [{ awarded: 25, trigger: { id: triggers.onboarded, type: 'achievement' } }] });
      const again = await s.request('POST', '/api/achievements/onboarded/complete', { body: { user: { id: 'ana' } } });
      expect(again.body.points).toEqual({});
      expect((await xpOf('ana')).total).toBe(84);
    });

    it('summarises points per day', async () => {
      await s.setClock('2026-03-03T10:00:00Z');
      await event('ana', 'lessons', 2);
      const r = await s.request('GET', '/api/users/ana/points/xp/event-summary?aggregation=daily&startDate=2026-03-01&endDate=2026-03-03');
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual([
        { date: '2026-03-01', total: 0, change: 0 },
        { date: '2026-03-02', total: 84, change: 84 },
        { date: '2026-03-03', total: 104, change: 20 },
      ]);
      // A range that starts after the first award: the total carries in, the change is the day's.
      const later = await s.request('GET', '/api/users/ana/points/xp/event-summary?aggregation=daily&startDate=2026-03-03&endDate=2026-03-04');
      expect(later.body).toEqual([{ date: '2026-03-03', total: 104, change: 20 }, { date: '2026-03-04', total: 104, change: 0 }]);
    });

    it('shows a system with its active triggers, and its levels', async () => {
      const r = await s.request('GET', '/api/points/xp');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ key: 'xp', name: 'XP', maxPoints: null });
      expect(r.body.triggers.map((t: any) => t.id)).not.toContain(triggers.inactive);
      expect(r.body.triggers).toHaveLength(5);
      expect(r.body.triggers.find((t: any) => t.id === triggers.onboarded)).toMatchObject({ type: 'achievement', achievementName: 'Onboarded' });
      expect((await s.request('GET', '/api/points/xp/levels')).body.map((l: any) => [l.key, l.points])).toEqual([['rookie', 10], ['pro', 50]]);
      expect((await s.request('GET', '/api/points/nope')).status).toBe(404);
    });

    it('awards every multiple exactly once under concurrent events on one user', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => s.request('POST', '/api/metrics/lessons/event', {
        body: { user: { id: 'racer' }, value: 1 },
      })));
      expect(results.every((r) => r.status === 201)).toBe(true);
      const added = results.reduce((sum, r) => sum + r.body.points.xp.added, 0);
      expect(added).toBe(200);
      expect(new Set(results.map((r) => r.body.points.xp.total)).size).toBe(20);
      expect((await xpOf('racer', '?awards=100')).awards).toHaveLength(20);
    });
  });

  describe('an energy system', () => {
    let s: TestServer;
    let ids: Record<string, string>;

    const play = (user: string, headers?: Record<string, string>) =>
      s.request('POST', '/api/metrics/plays/event', { body: { user: { id: user }, value: 1 }, headers });

    beforeAll(async () => {
      s = await startTestServer({ target });
      ids = await s.metrics('plays', 'wins');
      const ach = await s.request('POST', '/admin/v1/achievements', {
        body: [{ name: 'Winner', key: 'winner', trigger: 'metric', metricId: ids.wins, metricValue: 1 }],
      });
      const r = await s.request('POST', '/admin/v1/points', {
        body: [
          {
            name: 'Energy', key: 'energy', maxPoints: 5,
            levels: [{ name: 'Low', key: 'low', points: 1 }, { name: 'Full', key: 'full', points: 5 }],
            triggers: [
              { type: 'user_creation', points: 5, status: 'active' },
              { type: 'metric', metricId: ids.plays, metricThreshold: 1, points: -1, blockIfOutOfPoints: true, status: 'active' },
              { type: 'achievement', achievementId: ach.body.created[0].id, points: 10, status: 'active' },
            ],
          },
          {
            name: 'Mana', key: 'mana',
            triggers: [{ type: 'metric', metricId: ids.wins, metricThreshold: 1, points: -3, status: 'active' }],
          },
        ],
      });
      expect(r.status, r.text).toBe(201);
    });
    afterAll(async () => { await s?.close(); });

    it('grants energy at creation, spends it, and refuses the event that would go below 0 without changing anything', async () => {
      const first = await play('ann');
      expect(first.status).toBe(201);
      expect(first.body.points.energy).toMatchObject({ total: 4, added: 4, awards: [{ awarded: 5, total: 5 }, { awarded: -1, total: 4 }] });
      // From nothing to 4: the level went up to Low (Full was passed on the way, not reached at the end).
      expect(first.body.points.energy.level).toMatchObject({ key: 'low' });
      const levels: unknown[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await play('ann');
        expect(r.body.points.energy.total).toBe(3 - i);
        levels.push(r.body.points.energy.level);
      }
      // Down again: the level shows only when it changes, and null when none is reached.
      expect(levels).toEqual([undefined, undefined, undefined, null]);
      const refused = await play('ann', { 'Idempotency-Key': 'last-try' });
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ error: expect.stringContaining('energy'), code: 'out_of_points' });
      expect((await s.request('GET', '/api/users/ann/metrics/plays')).body.current).toBe(5);
      expect((await s.request('GET', '/api/users/ann/points/energy')).body.total).toBe(0);
      // The refused request did not use up its idempotency key.
      expect((await play('ann', { 'Idempotency-Key': 'last-try' })).status).toBe(422);
    });

    it('caps totals at maxPoints and floors them at 0', async () => {
      const created = await s.request('POST', '/api/users', { body: { id: 'bob' } });
      expect(created.status).toBe(201);
      expect((await s.request('GET', '/api/users/bob/points/energy')).body).toMatchObject({ total: 5, awards: [{ awarded: 5 }] });
      // The achievement's +10 finds energy full: nothing to award. Mana (no block) stays at 0.
      const win = await s.request('POST', '/api/metrics/wins/event', { body: { user: { id: 'bob' }, value: 1 } });
      expect(win.status).toBe(201);
      expect(win.body.achievements.map((a: any) => a.key)).toEqual(['winner']);
      expect(win.body.points).toEqual({});
      expect((await s.request('GET', '/api/users/bob/points/mana')).body.total).toBe(0);
      expect((await s.request('GET', '/api/users/bob/points/energy')).body.total).toBe(5);
    });

    it('answers a replay with no points and spends nothing twice', async () => {
      const once = await play('cid', { 'Idempotency-Key': 'p1' });
      expect(once.body.points.energy.total).toBe(4);
      const replay = await play('cid', { 'Idempotency-Key': 'p1' });
      expect(replay.status).toBe(202);
      expect(replay.body.points).toEqual({});
      expect((await s.request('GET', '/api/users/cid/points/energy')).body.total).toBe(4);
    });
  });

  // The event script takes a shorter path when the metric's only points trigger is unfiltered and
  // no other kind of trigger or boost exists (lua/recordEventPlan-4.lua, "the usual plan"). The
  // same events, sent to a server with that plan and to one that also has an achievement trigger
  // (which sends every event down the general path), must come out the same.
  describe('the usual plan\'s short path', () => {
    let fast: TestServer;
    let general: TestServer;
    let run = 0;

    beforeAll(async () => {
      [fast, general] = await Promise.all([startTestServer({ target }), startTestServer({ target })]);
      const ach = await general.request('POST', '/admin/v1/achievements', { body: [{ name: 'Never', key: 'never', trigger: 'api' }] });
      const other = await general.request('POST', '/admin/v1/points', {
        body: [{ name: 'Other', key: 'other', triggers: [{ type: 'achievement', achievementId: ach.body.created[0].id, points: 1, status: 'active' }] }],
      });
      expect(other.status, other.text).toBe(201);
    });
    afterAll(async () => { await Promise.all([fast?.close(), general?.close()]); });

    const view = (r: { status: number; body: any }, key: string) => {
      const p = r.body?.points?.[key];
      return {
        status: r.status, code: r.body?.code, total: r.body?.total,
        points: p && { total: p.total, added: p.added, level: p.level?.key, awards: p.awards.map((a: any) => [a.awarded, a.total]) },
      };
    };

    it('awards, caps, floors and refuses exactly as the general path does', async () => {
      await fc.assert(fc.asyncProperty(
        fc.record({
          threshold: fc.integer({ min: 1, max: 4 }),
          points: fc.integer({ min: -6, max: 12 }).filter((p) => p !== 0),
          cap: fc.option(fc.integer({ min: 5, max: 40 }), { nil: undefined }),
          block: fc.boolean(),
          events: fc.array(fc.record({
            user: fc.constantFrom('u1', 'u2'),
            value: fc.oneof(fc.integer({ min: -4, max: 9 }), fc.constantFrom(0.5, 1.5, -0.5)),
          }), { minLength: 1, maxLength: 12 }),
        }),
        async ({ threshold, points, cap, block, events }) => {
          run++;
          const metric = `m${run}`;
          const system = `s${run}`;
          for (const s of [fast, general]) {
            const ids = await s.metrics(metric);
            const r = await s.request('POST', '/admin/v1/points', {
              body: [{
                name: system, key: system, ...(cap === undefined ? {} : { maxPoints: cap }),
                levels: [{ name: 'Ten', key: 'ten', points: 10 }],
                triggers: [{ type: 'metric', metricId: ids[metric], metricThreshold: threshold, points, blockIfOutOfPoints: block, status: 'active' }],
              }],
            });
            expect(r.status, r.text).toBe(201);
          }
          // The plans as the script sees them: the short path's pattern (recordEventPlan-4.lua)
          // fits the first server's points part only.
          const pointsPart = (s: TestServer) => {
            const m = s.api.services.store.current.metricsByKey.get(metric)!;
            return s.api.services.store.current.plans.get(m.id)!.hot.split('#')[2];
          };
          const usual = /^0000\|\d+,,-?\d+,\d?,,\d*,[^,;]+,[^;]+\|$/;
          expect(pointsPart(fast)).toMatch(usual);
          expect(pointsPart(general)).not.toMatch(usual);
          for (const e of events) {
            const body = { user: { id: `${e.user}-${run}` }, value: e.value };
            const [a, b] = await Promise.all([fast, general].map((s) => s.request('POST', `/api/metrics/${metric}/event`, { body })));
            expect(view(a, system)).toEqual(view(b, system));
            expect(a.status === 201 || (a.status === 422 && a.body.code === 'out_of_points'), a.text).toBe(true);
          }
          for (const user of ['u1', 'u2']) {
            const [a, b] = await Promise.all([fast, general].map((s) => s.request('GET', `/api/users/${user}-${run}/points/${system}?awards=100`)));
            expect(a.status).toBe(b.status);
            const strip = (x: any) => x.status === 200 ? { total: x.body.total, awards: x.body.awards.map((w: any) => [w.awarded, w.total]) } : x.status;
            expect(strip(a)).toEqual(strip(b));
          }
        },
      ), { numRuns: 12 });
    });

    it('keeps an integer total exact on both paths, also past the range a double holds exactly', async () => {
      // The short path adds an integer total itself while it stays below 2^53; past that, and for a
      // total that holds a fraction, HINCRBY or HINCRBYFLOAT do, as on the general path.
      const cases = [
        { from: '9007199254740990', value: 1, to: '9007199254740991' },
        { from: '9007199254740990', value: 5, to: '9007199254740995' },
        { from: '-9007199254740990', value: -7, to: '-9007199254740997' },
        { from: '2.5', value: 1, to: '3.5' },
      ];
      for (const [i, c] of cases.entries()) {
        run++;
        const metric = `big${run}`;
        for (const s of [fast, general]) {
          const ids = await s.metrics(metric);
          const r = await s.request('POST', '/admin/v1/points', {
            body: [{ name: `b${run}`, key: `b${run}`, triggers: [{ type: 'metric', metricId: ids[metric], metricThreshold: 1, points: 1, status: 'active' }] }],
          });
          expect(r.status, r.text).toBe(201);
          const { redis, keys } = s.api.services;
          const u = keys.forUser('_', `big-${i}`);
          expect((await s.request('POST', `/api/metrics/${metric}/event`, { body: { user: { id: `big-${i}` }, value: 0 } })).status).toBe(201);
          await redis.hset(u.user, `m:${ids[metric]}`, c.from);
          const e = await s.request('POST', `/api/metrics/${metric}/event`, { body: { user: { id: `big-${i}` }, value: c.value } });
          expect(e.status, e.text).toBe(201);
          expect(await redis.hget(u.user, `m:${ids[metric]}`)).toBe(c.to);
        }
      }
    });
  });

  describe('huge values', () => {
    let h: TestServer;
    let metricIds: Record<string, string>;
    beforeAll(async () => {
      h = await startTestServer({ target });
      metricIds = await h.metrics('huge', 'plain');
      const r = await h.request('POST', '/admin/v1/points', {
        body: [{ name: 'Huge', key: 'huge', triggers: [{ type: 'metric', metricId: metricIds.huge, metricThreshold: 1, points: 1, status: 'active' }] }],
      });
      expect(r.status, r.text).toBe(201);
      const b = await h.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Huge', key: 'huge-board', rankBy: 'metric', metricId: metricIds.huge, status: 'active' }],
      });
      expect(b.status, b.text).toBe(201);
    });
    afterAll(async () => { await h?.close(); });
    const send = (metric: string, user: string, value: number) =>
      h.request('POST', `/api/metrics/${metric}/event`, { body: { user: { id: user }, value } });

    it('takes a points total up to 2^53 - 1 and refuses an event that would pass it (docs/api.md, "Points")', async () => {
      const MAX = Number.MAX_SAFE_INTEGER;
      const first = await send('huge', 'h1', 1e19);
      expect(first.status, first.text).toBe(422);
      expect(first.body.code).toBe('points_out_of_range');
      // Step by step up to it: the last step that fits is taken whole, the next refused.
      expect((await send('huge', 'h2', 4e15)).body.points.huge.total).toBe(4e15);
      expect((await send('huge', 'h2', 4e15)).body.points.huge.total).toBe(8e15);
      expect((await send('huge', 'h2', MAX - 8e15)).body.points.huge).toMatchObject({ total: MAX, added: MAX - 8e15 });
      expect((await send('huge', 'h2', 1)).status).toBe(422);
      expect((await h.request('GET', '/api/users/h2/points/huge')).body.total).toBe(MAX);
      expect((await h.request('GET', '/api/users/h2/metrics/huge')).body.current).toBe(MAX);
    });

    it('refuses an event that would take a metric total past a double\'s range, changing nothing', async () => {
      // (On `huge`, whose points trigger would pass 2^53 - 1 first, with the first event: above.)
      for (const metric of ['plain']) {
        const user = `far-${metric}`;
        expect((await send(metric, user, 1e308)).status).toBe(201);
        const over = await send(metric, user, 1e308);
        expect(over.status, over.text).toBe(422);
        expect(over.body).toMatchObject({ code: 'unprocessable', error: expect.stringMatching(/would leave the range of a number/) });
        expect((await send(metric, user, -1e308)).status).toBe(201);
        const back = await h.request('GET', `/api/users/${encodeURIComponent(user)}/metrics/${metric}`);
        expect(back.body.current).toBe(0);
        const later = await send(metric, user, 1);
        expect(later.status, later.text).toBe(201);
        expect(later.body.total).toBe(1);
      }
      // The board ranks what the events left.
      expect((await send('huge', 'far-huge', 1)).status).toBe(201);
      const board = await h.request('GET', '/api/leaderboards/huge-board?limit=100');
      expect(board.status, board.text).toBe(200);
      expect(board.body.rankings.find((x: any) => x.userId === 'far-huge')).toMatchObject({ value: 1 });
    });
  });

  describe('streak triggers', () => {
    let s: TestServer;

    beforeAll(async () => {
      s = await startTestServer({ target, clock: 'manual' });
      const ids = await s.metrics('lessons');
      await putStreakSettings(s, { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] });
      const r = await s.request('POST', '/admin/v1/points', {
        body: [{ name: 'Bonus', key: 'bonus', triggers: [{ type: 'streak', streakLength: 2, points: 7, status: 'active' }] }],
      });
      expect(r.status, r.text).toBe(201);
    });
    afterAll(async () => { await s?.close(); });

    it('awards when the streak reaches the length and each multiple of it', async () => {
      const added: unknown[] = [];
      for (const day of ['02', '03', '04', '05']) {
        await s.setClock(`2026-03-${day}T12:00:00Z`);
        const r = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'sam' }, value: 1 } });
        expect(r.status).toBe(201);
        added.push(r.body.points.bonus?.added ?? 0);
        // A second event the same day extends nothing and awards nothing.
        const again = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'sam' }, value: 1 } });
        expect(again.body.points).toEqual({});
      }
      expect(added).toEqual([0, 7, 0, 7]);
      const bonus = await s.request('GET', '/api/users/sam/points/bonus');
      expect(bonus.body.awards[0].trigger).toMatchObject({ type: 'streak', streakLengthThreshold: 2 });
    });
  });

  describe('time triggers', () => {
    let s: TestServer;
    let systemId: string;

    const energy = async (user: string) => {
      const r = await s.request('GET', `/api/users/${user}/points/energy?awards=100`);
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    const play = (user: string) => s.request('POST', '/api/metrics/plays/event', { body: { user: { id: user }, value: 1 } });
    /** The total as Redis holds it, without a read that would accrue. */
    const stored = async (user: string) => {
      const { redis, keys } = s.api.services;
      return redis.hget(keys.forUser('_', user).user, `pt:${systemId}`);
    };

    beforeAll(async () => {
      s = await startTestServer({ target, clock: 'manual', workers: true });
      await s.setClock('2026-05-01T08:00:00Z');
      const ids = await s.metrics('plays');
      const r = await s.request('POST', '/admin/v1/points', {
        body: [{
          name: 'Energy', key: 'energy', maxPoints: 5,
          triggers: [
            { type: 'user_creation', points: 5, status: 'active' },
            { type: 'metric', metricId: ids.plays, metricThreshold: 1, points: -1, blockIfOutOfPoints: true, status: 'active' },
            { type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, status: 'active' },
          ],
        }],
      });
      expect(r.status, r.text).toBe(201);
      systemId = r.body.created[0].id;
      await s.workers!.testing.timeIdle();
    });
    afterAll(async () => { await s?.close(); });

    it('regenerates energy hour by hour up to the cap, each award dated when it was due', async () => {
      for (let i = 0; i < 5; i++) expect((await play('rae')).status).toBe(201);
      expect((await play('rae')).status).toBe(422);
      await s.setClock('2026-05-01T11:30:00Z');
      const after = await energy('rae');
      expect(after.total).toBe(3);
      expect(after.awards.slice(0, 3).map((a: any) => [a.awarded, a.date, a.trigger.type, a.trigger.timeUnit])).toEqual([
        [1, '2026-05-01T11:00:00.000Z', 'time', 'hour'],
        [1, '2026-05-01T10:00:00.000Z', 'time', 'hour'],
        [1, '2026-05-01T09:00:00.000Z', 'time', 'hour'],
      ]);
      // An event spends what time granted: accrued first, then consumed.
      const r = await play('rae');
      expect(r.status).toBe(201);
      expect(r.body.points.energy).toMatchObject({ total: 2, added: -1 });
      // Days later: full, and no award beyond the cap.
      await s.setClock('2026-05-04T08:00:00Z');
      expect((await energy('rae')).total).toBe(5);
      expect((await energy('rae')).awards.filter((a: any) => a.trigger.type === 'time')).toHaveLength(6);
      const summary = await s.request('GET', '/api/users/rae/points/energy/event-summary?aggregation=daily&startDate=2026-05-01&endDate=2026-05-02');
      expect(summary.body).toEqual([{ date: '2026-05-01', total: 5, change: 5 }, { date: '2026-05-02', total: 5, change: 0 }]);
    });

    it('lets the workers materialise due awards for users who do not come back, created by the API or by their first event', async () => {
      const { redis, keys } = s.api.services;
      for (const [user, day, viaApi] of [['wes', '2026-05-10', true], ['wen', '2026-05-12', false]] as const) {
        await s.setClock(`${day}T08:00:00Z`);
        if (viaApi) expect((await s.request('POST', '/api/users', { body: { id: user } })).status).toBe(201);
        for (let i = 0; i < 4; i++) expect((await play(user)).status).toBe(201);
        // The clock starts with the user, whichever script created it.
        const u = keys.forUser('_', user);
        expect(await redis.zscore(keys.partitionDue(u.partition), `_|${user}`)).toBe(String(Date.parse(`${day}T09:00:00Z`)));
        expect(await stored(user)).toBe('1');
        await s.setClock(`${day}T10:15:00Z`);
        await s.workers!.testing.accrueNow();
        expect(await stored(user)).toBe('3');
      }
    });

    it('counts a trigger that came later from when it came, for users who existed before', async () => {
      await s.setClock('2026-05-20T08:00:00Z');
      expect((await s.request('PUT', '/api/users/old', { body: {} })).status).toBe(201);
      await s.setClock('2026-05-20T09:00:00Z');
      const r = await s.request('POST', `/admin/v1/points/${systemId}/triggers`, {
        body: [{ type: 'time', timeUnit: 'days', timeInterval: 1, points: 2, status: 'active' }],
      });
      expect(r.status, r.text).toBe(201);
      await s.workers!.testing.timeIdle();
      // Spend everything just before the day is over: the daily award then has room.
      await s.setClock('2026-05-21T08:30:00Z');
      for (let i = 0; i < 5; i++) expect((await play('old')).status).toBe(201);
      await s.setClock('2026-05-21T09:00:00Z');
      const later = await energy('old');
      // Due at 09:00 both: the hourly +1 (from the user's creation) and the daily +2 (from the
      // trigger's creation, not the user's, which would have made it due at 08:00, when full).
      expect(later.total).toBe(3);
      expect(later.awards.slice(0, 2).map((a: any) => [a.awarded, a.date, a.trigger.timeUnit])).toEqual([
        [2, '2026-05-21T09:00:00.000Z', 'day'],
        [1, '2026-05-21T09:00:00.000Z', 'hour'],
      ]);
    });

    it('accrues a backlog of any length, in as many calls as it takes, for a user away for years', async () => {
      await s.setClock('2026-06-01T08:00:00Z');
      for (let i = 0; i < 5; i++) expect((await play('away')).status).toBe(201);
      expect(await stored('away')).toBe('0');
      // Two years of hourly and daily awards: over 17,000, more than thirty calls of the script's 500.
      await s.setClock('2028-06-01T08:00:00Z');
      const r = await s.request('GET', '/api/users/away/points/energy');
      expect(r.status, r.text).toBe(200);
      expect(r.body.total).toBe(5);
      expect((await play('away')).status).toBe(201);
    });
  });

  describe('time triggers with filters, and paused', () => {
    let s: TestServer;
    let systemId: string;
    let triggerId: string;

    const gems = async (user: string) => {
      const r = await s.request('GET', `/api/users/${user}/points/gems?awards=100`);
      expect(r.status, r.text).toBe(200);
      return r.body as { total: number; awards: { awarded: number; date: string }[] };
    };

    beforeAll(async () => {
      // No workers: awards are accrued by reads, events and identifications alone.
      s = await startTestServer({ target, clock: 'manual' });
      await s.setClock('2026-03-10T05:30:00Z');
      const { plan } = await s.attributes('user', 'plan');
      const r = await s.request('POST', '/admin/v1/points', {
        body: [{
          name: 'Gems', key: 'gems',
          triggers: [{ type: 'time', timeUnit: 'hours', timeInterval: 1, points: 1, status: 'active', userAttributes: [{ attributeId: plan, attributeValue: 'pro' }] }],
        }],
      });
      expect(r.status, r.text).toBe(201);
      systemId = r.body.created[0].id;
      triggerId = r.body.created[0].triggers[0].id;
    });
    afterAll(async () => { await s?.close(); });

    it('accrues what is due before an identification changes the attributes the filters read', async () => {
      for (const [id, plan] of [['tf', 'free'], ['tp', 'pro'], ['uf', 'free'], ['up', 'pro']]) {
        expect((await s.request('PUT', `/api/users/${id}`, { body: { attributes: { plan } } })).status).toBe(201);
      }
      await s.setClock('2026-03-10T08:30:00Z');
      expect((await s.request('PATCH', '/api/users/tf', { body: { attributes: { plan: 'pro' } } })).status).toBe(200);
      expect((await s.request('PATCH', '/api/users/tp', { body: { attributes: { plan: 'free' } } })).status).toBe(200);
      expect((await s.request('PUT', '/api/users/uf', { body: { attributes: { plan: 'pro' } } })).status).toBe(200);
      expect((await s.request('PUT', '/api/users/up', { body: { attributes: { plan: 'free' } } })).status).toBe(200);
      // Free from 05:30 to 08:30: nothing; pro all that time: 06:30, 07:30 and 08:30.
      expect((await gems('tf')).total).toBe(0);
      expect((await gems('uf')).total).toBe(0);
      expect((await gems('tp')).awards.map((a) => a.date)).toEqual(['2026-03-10T08:30:00.000Z', '2026-03-10T07:30:00.000Z', '2026-03-10T06:30:00.000Z']);
      expect((await gems('up')).total).toBe(3);
      // From then on, the new attributes.
      await s.setClock('2026-03-10T09:30:00Z');
      expect((await gems('tf')).total).toBe(1);
      expect((await gems('tp')).total).toBe(3);
    });

    it('pays for no time its trigger was inactive or its system archived', async () => {
      const patch = async (path: string, body: unknown) => {
        const r = await s.request('PATCH', path, { body: [body] });
        expect(r.status, r.text).toBe(200);
        expect(r.body.issues, r.text).toEqual([]);
      };
      const dates = async (user: string) => (await gems(user)).awards.map((a) => a.date.slice(11, 16));
      await s.setClock('2026-03-10T10:00:00Z');
      expect((await s.request('PUT', '/api/users/pa', { body: { attributes: { plan: 'pro' } } })).status).toBe(201);
      await s.setClock('2026-03-10T11:45:00Z');
      await patch(`/admin/v1/points/${systemId}/triggers`, { id: triggerId, status: 'inactive' });
      await s.setClock('2026-03-10T15:15:00Z');
      await patch(`/admin/v1/points/${systemId}/triggers`, { id: triggerId, status: 'active' });
      await s.setClock('2026-03-10T16:30:00Z');
      // Due hourly from 11:00; 12:00 to 15:00 fell while it was inactive.
      expect(await dates('pa')).toEqual(['16:00', '11:00']);
      await patch('/admin/v1/points', { id: systemId, status: 'archived' });
      await s.setClock('2026-03-10T19:10:00Z');
      await patch('/admin/v1/points', { id: systemId, status: 'active' });
      await s.setClock('2026-03-10T20:30:00Z');
      expect(await dates('pa')).toEqual(['20:00', '16:00', '11:00']);
      // A user created while it was off starts from their creation all the same.
      await s.setClock('2026-03-10T21:00:00Z');
      await patch(`/admin/v1/points/${systemId}/triggers`, { id: triggerId, status: 'inactive' });
      expect((await s.request('PUT', '/api/users/pb', { body: { attributes: { plan: 'pro' } } })).status).toBe(201);
      await s.setClock('2026-03-10T22:30:00Z');
      await patch(`/admin/v1/points/${systemId}/triggers`, { id: triggerId, status: 'active' });
      await s.setClock('2026-03-11T00:00:00Z');
      expect(await dates('pb')).toEqual(['00:00', '23:00']);
    });

    it('accrues what is due before an API completion, which may spend it and change the attributes the filters read', async () => {
      const a = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Unlock', key: 'unlock', trigger: 'api', status: 'active' }] });
      expect(a.status, a.text).toBe(201);
      const t = await s.request('POST', `/admin/v1/points/${systemId}/triggers`, {
        body: [{ type: 'achievement', achievementId: a.body.created[0].id, points: -2, status: 'active' }],
      });
      expect(t.status, t.text).toBe(201);
      await s.setClock('2026-03-12T10:00:00Z');
      expect((await s.request('PUT', '/api/users/cu', { body: { attributes: { plan: 'pro' } } })).status).toBe(201);
      // Pro for three hours: three gems due, then the completion spends two and leaves the plan.
      await s.setClock('2026-03-12T13:00:00Z');
      const r = await s.request('POST', '/api/achievements/unlock/complete', { body: { user: { id: 'cu', attributes: { plan: 'free' } } } });
      expect(r.status, r.text).toBe(201);
      expect(r.body.points.gems).toMatchObject({ total: 1, added: -2, awards: [{ awarded: -2, total: 1 }] });
      const after = await gems('cu');
      expect(after.total).toBe(1);
      expect(after.awards.map((x) => [x.awarded, x.date])).toEqual([
        [-2, '2026-03-12T13:00:00.000Z'], [1, '2026-03-12T13:00:00.000Z'], [1, '2026-03-12T12:00:00.000Z'], [1, '2026-03-12T11:00:00.000Z'],
      ]);
    });
  });

  describe('boosts', () => {
    let s: TestServer;
    let boosts: Record<string, string>;

    const coins = async (user: string | Record<string, unknown>) => {
      const r = await s.request('POST', '/api/metrics/plays/event', { body: { user: typeof user === 'string' ? { id: user } : user, value: 1 } });
      expect(r.status, r.text).toBe(201);
      return r.body.points.coins;
    };

    beforeAll(async () => {
      s = await startTestServer({ target, clock: 'manual' });
      const ids = await s.metrics('plays');
      const { plan } = await s.attributes('user', 'plan');
      const r = await s.request('POST', '/admin/v1/points', {
        body: [{
          name: 'Coins', key: 'coins',
          triggers: [{ type: 'metric', metricId: ids.plays, metricThreshold: 1, points: 7, status: 'active' }],
          boosts: [
            { name: 'Double days', start: '2026-06-01', end: '2026-06-02', multiplier: 2 },
            { name: 'VIP', userId: 'vip', start: '2026-06-03', multiplier: 1.5, rounding: 'up' },
            { name: 'Pro', userAttributes: [{ attributeId: plan, attributeValue: 'pro' }], start: '2026-06-03', multiplier: 1.15, rounding: 'nearest' },
            { name: 'Half more', start: '2026-06-04', end: '2026-06-04', multiplier: 1.5 },
          ],
        }],
      });
      expect(r.status, r.text).toBe(201);
      boosts = Object.fromEntries((r.body.created[0].boosts as { id: string; name: string }[]).map((b) => [b.name, b.id]));
    });
    afterAll(async () => { await s?.close(); });

    it('multiplies awards inside their window, for their users, rounding as configured, and lists them on the award', async () => {
      await s.setClock('2026-05-31T12:00:00Z');
      const plain = await coins('al');
      expect(plain).toMatchObject({ added: 7, awards: [{ awarded: 7, boosts: [] }] });
      await s.setClock('2026-06-01T12:00:00Z');
      const doubled = await coins('al');
      expect(doubled.added).toBe(14);
      expect(doubled.awards[0].boosts).toEqual([{
        id: boosts['Double days'], name: 'Double days', status: 'active', start: '2026-06-01', end: '2026-06-02', multiplier: 2, rounding: 'down',
      }]);
      await s.setClock('2026-06-03T12:00:00Z');
      expect((await coins('al')).added).toBe(7);
      expect((await coins('vip')).added).toBe(11); // 10.5 rounded up
      expect((await coins({ id: 'pro', attributes: { plan: 'pro' } })).added).toBe(8); // 8.05 to the nearest
      await s.setClock('2026-06-04T12:00:00Z');
      expect((await coins('al')).added).toBe(10); // 10.5 rounded down
      const vip = await coins('vip'); // 7 x 1.5 = 10.5, up: 11; x 1.5 = 16.5, down: 16
      expect(vip.added).toBe(16);
      expect(vip.awards[0].boosts.map((b: any) => b.name)).toEqual(['VIP', 'Half more']);
      const read = await s.request('GET', '/api/users/vip/points/coins');
      expect(read.body.awards[0]).toMatchObject({ awarded: 16, boosts: [{ name: 'VIP' }, { name: 'Half more' }] });
    });

    it('lists the global boosts, and the boosts active for a user', async () => {
      await s.setClock('2026-06-04T12:00:00Z');
      const all = await s.request('GET', '/api/points/coins/boosts');
      expect(all.body.map((b: any) => [b.name, b.status])).toEqual([['Pro', 'active'], ['Half more', 'active']]);
      const withFinished = await s.request('GET', '/api/points/coins/boosts?includeFinished=true');
      expect(withFinished.body.map((b: any) => b.name)).toEqual(['Double days', 'Pro', 'Half more']);
      const mine = await s.request('GET', '/api/users/vip/points/coins/boosts');
      expect(mine.body.map((b: any) => b.name)).toEqual(['VIP', 'Half more']);
      const pro = await s.request('GET', '/api/users/pro/points/coins/boosts');
      expect(pro.body.map((b: any) => b.name)).toEqual(['Pro', 'Half more']);
      expect((await s.request('GET', '/api/users/nobody/points/coins/boosts')).status).toBe(404);
    });
  });

  describe('summaries', () => {
    let s: TestServer;

    beforeAll(async () => {
      s = await startTestServer({ target, workers: true });
      const ids = await s.metrics('stars');
      await s.attributes('user', 'plan');
      const r = await s.request('POST', '/admin/v1/points', {
        body: [{
          name: 'Stars', key: 'stars',
          levels: [{ name: 'Bronze', key: 'bronze', points: 0 }, { name: 'Silver', key: 'silver', points: 100 }, { name: 'Gold', key: 'gold', points: 500 }],
          triggers: [{ type: 'metric', metricId: ids.stars, metricThreshold: 1, points: 1, status: 'active' }],
        }],
      });
      expect(r.status, r.text).toBe(201);
      const event = (user: Record<string, unknown>, value: number) =>
        s.request('POST', '/api/metrics/stars/event', { body: { user, value } });
      for (let i = 0; i < 5; i++) await event({ id: 'a' }, 1);
      await event({ id: 'b' }, 120);
      await event({ id: 'c' }, 600);
      await event({ id: 'e', attributes: { plan: 'pro' } }, 50);
      expect((await s.request('PUT', '/api/users/d', { body: {} })).status).toBe(201);
      // Another tenant's user on the same partition as 'a': one drained batch holds both tenants,
      // whose totals sets live on different hash slots.
      const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
      expect(t.status, t.text).toBe(201);
      const acme: string = t.body.created[0].id;
      const { keys } = s.api.services;
      let other = 0;
      while (keys.partitionOf(acme, `acme-${other}`) !== keys.partitionOf('_', 'a')) other++;
      const r2 = await s.request('POST', '/api/metrics/stars/event', { body: { user: { id: `acme-${other}` }, value: 250 }, tenant: 'acme' });
      expect(r2.status, r2.text).toBe(201);
      // No drain: the totals sets take each award before its event is answered.
    });

    it('keeps each tenant\'s totals apart', async () => {
      const r = await s.request('GET', '/api/points/stars/summary', { tenant: 'acme' });
      expect(r.status, r.text).toBe(200);
      expect(r.body.filter((x: any) => x.users > 0)).toEqual([{ from: 201, to: 300, users: 1 }]);
    });
    afterAll(async () => { await s?.close(); });

    it('spreads the tenant\'s users over 11 ranges up to the highest total rounded to a power of 10', async () => {
      const r = await s.request('GET', '/api/points/stars/summary');
      expect(r.status, r.text).toBe(200);
      expect(r.body).toHaveLength(11);
      expect(r.body[0]).toEqual({ from: 0, to: 0, users: 1 });
      expect(r.body.slice(1).map((x: any) => [x.from, x.to, x.users])).toEqual([
        [1, 100, 2], [101, 200, 1], [201, 300, 0], [301, 400, 0], [401, 500, 0],
        [501, 600, 1], [601, 700, 0], [701, 800, 0], [801, 900, 0], [901, 1000, 0],
      ]);
      const pro = await s.request('GET', '/api/points/stars/summary?userAttributes=plan:pro');
      expect(pro.body[0]).toEqual({ from: 0, to: 0, users: 0 });
      expect(pro.body[5]).toEqual({ from: 41, to: 50, users: 1 });
      expect(pro.body.reduce((n: number, x: any) => n + x.users, 0)).toBe(1);
      expect((await s.request('GET', '/api/points/stars/summary?userAttributes=shoe:42')).status).toBe(422);
      const both = await s.request('GET', '/api/points/stars/summary?userAttributes=plan:pro,plan:free');
      expect(both.status, both.text).toBe(422);
      expect(both.body.error).toMatch(/userAttributes gives plan twice/);
    });

    it('counts the users at each level', async () => {
      const r = await s.request('GET', '/api/points/stars/level-summary');
      expect(r.status, r.text).toBe(200);
      expect(r.body.map((x: any) => [x.level.key, x.users])).toEqual([['bronze', 3], ['silver', 1], ['gold', 1]]);
    });

    it('answers 422 for the level summary of a system without levels, as the spec says', async () => {
      const created = await s.request('POST', '/admin/v1/points', { body: [{ name: 'Plain', key: 'plain' }] });
      expect(created.status, created.text).toBe(201);
      const r = await s.request('GET', '/api/points/plain/level-summary');
      expect(r.status, r.text).toBe(422);
      expect(r.body).toEqual({ error: 'Points system "plain" has no levels', code: 'unprocessable' });
      expect((await s.request('GET', '/api/points/plain/levels')).body).toEqual([]);
    });
  });
});
