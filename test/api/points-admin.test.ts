/**
 * Admin API for points systems (trophy-admin 1.21.1): systems created with nested levels, boosts
 * and triggers, the sub-resources below a system, their checks, boost status from the clock, and
 * the cascade when a system is deleted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, storedConfig } from '../support/admin.js';
import { MISSING, UUID } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

const s = useTestServer({ clock: 'manual' });
let metricIds: Record<string, string>;
let attr: Record<string, string>;
let achievementId: string;


/** Creates one system (with optional children) and returns its created view. */
const createSystem = (item: Record<string, unknown>) => adminCreateOne(s, '/admin/v1/points', item);

/** Stored entities of a kind, parsed, straight from Redis. */
const stored = (kind: 'points' | 'ptriggers' | 'plevels' | 'pboosts') => storedConfig(s, kind);

beforeAll(async () => {
  await s.setClock('2024-06-15T12:00:00.000Z');
  metricIds = await s.metrics('lessons', 'minutes');
  attr = { ...await s.attributes('user', 'plan'), ...await s.attributes('event', 'source') };
  const a = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Finisher', key: 'finisher', trigger: 'api' }] });
  expect(a.status).toBe(201);
  achievementId = a.body.created[0].id;
});

describe('points systems', () => {
  let xp: any;

  it('creates a system with nested levels, boosts and triggers, and a bare one', async () => {
    const r = await s.request('POST', '/admin/v1/points', {
      body: [
        {
          name: 'XP', key: 'xp', description: 'Experience points', badge: { url: 'https://img.example/xp.png' }, maxPoints: 1000,
          levels: [
            { name: 'Bronze', key: 'bronze', points: 0 },
            { name: 'Silver', key: 'silver', points: 100, description: 'Second', badge: { url: 'https://img.example/s.png' } },
          ],
          boosts: [
            { name: 'Double June', start: '2024-06-01', end: '2024-06-30', multiplier: 2 },
            { name: 'VIP', start: '2024-07-01', multiplier: 1.5, rounding: 'up', userId: 'vip-1' },
          ],
          triggers: [
            {
              type: 'metric', points: 10, status: 'active', metricId: metricIds.lessons, metricThreshold: 5,
              eventAttributes: [{ attributeId: attr.source, attributeValue: 'web' }],
            },
            { type: 'time', points: 5, timeUnit: 'days', timeInterval: 7 },
            { type: 'achievement', points: 50, achievementId },
            { type: 'streak', points: 3, streakLength: 7, blockIfOutOfPoints: true },
            { type: 'user_creation', points: 100, userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
          ],
        },
        { name: 'Coins', key: 'coins' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.issues).toEqual([]);
    expect(r.body.created).toHaveLength(2);
    xp = r.body.created[0];
    expect(xp).toStrictEqual({
      id: UUID, name: 'XP', key: 'xp', description: 'Experience points', status: 'active',
      badge: { url: 'https://img.example/xp.png' }, maxPoints: 1000,
      levels: [
        { id: UUID, name: 'Bronze', key: 'bronze', points: 0, description: '', badge: null },
        { id: UUID, name: 'Silver', key: 'silver', points: 100, description: 'Second', badge: { url: 'https://img.example/s.png' } },
      ],
      boosts: [
        {
          id: UUID, name: 'Double June', status: 'active', start: '2024-06-01', end: '2024-06-30', multiplier: 2,
          rounding: 'down', userId: null, userAttributes: [],
        },
        { id: UUID, name: 'VIP', status: 'scheduled', start: '2024-07-01', end: null, multiplier: 1.5, rounding: 'up', userId: 'vip-1' },
      ],
      triggers: [
        {
          id: UUID, type: 'metric', points: 10, status: 'active', userAttributes: [], metricId: metricIds.lessons,
          metricThreshold: 5, eventAttributes: [{ attributeId: attr.source, attributeValue: 'web' }], blockIfOutOfPoints: false,
        },
        { id: UUID, type: 'time', points: 5, status: 'inactive', userAttributes: [], timeUnit: 'days', timeInterval: 7, blockIfOutOfPoints: false },
        { id: UUID, type: 'achievement', points: 50, status: 'inactive', userAttributes: [], achievementId, blockIfOutOfPoints: false },
        { id: UUID, type: 'streak', points: 3, status: 'inactive', userAttributes: [], streakLength: 7, blockIfOutOfPoints: true },
        {
          id: UUID, type: 'user_creation', points: 100, status: 'inactive',
          userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }], blockIfOutOfPoints: false,
        },
      ],
    });
    // Without children in the request, no child arrays in the answer.
    expect(r.body.created[1]).toStrictEqual({
      id: UUID, name: 'Coins', key: 'coins', description: '', status: 'active', badge: null, maxPoints: null,
    });
    // The children are stored below the system, levels with their scoped key (never shown).
    const levels = await s.request('GET', `/admin/v1/points/${xp.id}/levels`);
    expect(levels.body).toEqual(xp.levels);
    expect(levels.text).not.toContain('scopedKey');
    expect((await stored('plevels')).map((l) => l.scopedKey).sort()).toEqual([`${xp.id}:bronze`, `${xp.id}:silver`]);
    expect((await s.request('GET', `/admin/v1/points/${xp.id}/triggers?limit=100`)).body).toEqual(xp.triggers);
    expect((await s.request('GET', `/admin/v1/points/${xp.id}/boosts`)).body).toEqual(xp.boosts);
  });

  it('refuses a system with an invalid nested child, creating nothing of it', async () => {
    const before = { triggers: (await stored('ptriggers')).length, levels: (await stored('plevels')).length, boosts: (await stored('pboosts')).length };
    const r = await s.request('POST', '/admin/v1/points', {
      body: [
        {
          name: 'Bad', key: 'bad', levels: [{ name: 'L', key: 'l', points: 1 }],
          triggers: [{ type: 'user_creation', points: 1 }, { type: 'metric', points: 1, metricId: MISSING, metricThreshold: 1 }],
        },
        { name: 'Bad2', key: 'bad2', levels: [{ name: 'L', key: 'l' }] },
        { name: 'Bad3', key: 'bad3', levels: [{ name: 'A', key: 'a', points: 0 }, { name: 'B', key: 'a', points: 10 }] },
        { name: 'Bad4', key: 'bad4', boosts: [{ name: 'One', start: '2024-01-01', multiplier: 1 }] },
        { name: 'Bad5', key: 'bad5', triggers: 'nope' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.created).toEqual([]);
    expect(r.body.issues).toEqual([
      { index: 0, severity: 'error', message: `triggers[1]: metricId must be the id of a metric (got "${MISSING}")` },
      { index: 1, severity: 'error', message: 'levels[0]: points is required' },
      { index: 2, severity: 'error', message: 'levels[1]: A level with key "a" already exists' },
      { index: 3, severity: 'error', message: 'boosts[0]: multiplier must not be 1' },
      { index: 4, severity: 'error', message: expect.stringContaining('triggers') },
    ]);
    const keys = (await s.request('GET', '/admin/v1/points?limit=100')).body.map((p: any) => p.key);
    expect(keys).toEqual(['xp', 'coins']);
    expect((await stored('ptriggers')).length).toBe(before.triggers);
    expect((await stored('plevels')).length).toBe(before.levels);
    expect((await stored('pboosts')).length).toBe(before.boosts);
  });

  it('keeps system keys unique and checks the system fields', async () => {
    const r = await s.request('POST', '/admin/v1/points', {
      body: [
        { name: 'XP again', key: 'xp', levels: [{ name: 'Z', key: 'z', points: 1 }] },
        { name: 'Spaces', key: 'no spaces' },
        { name: 'Zero cap', key: 'zero', maxPoints: 0 },
        { key: 'nameless' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.issues).toEqual([
      { index: 0, severity: 'error', message: 'A points system with key "xp" already exists' },
      { index: 1, severity: 'error', message: expect.stringContaining('key') },
      { index: 2, severity: 'error', message: expect.stringContaining('maxPoints') },
      { index: 3, severity: 'error', message: 'name is required' },
    ]);
    // The refused duplicate left no level behind.
    expect((await stored('plevels')).some((l) => l.key === 'z')).toBe(false);
    expect((await s.request('POST', '/admin/v1/points', { body: { name: 'x', key: 'x' } })).status).toBe(400);
  });

  it('lists, gets, updates and 404s systems', async () => {
    const first = await s.request('GET', '/admin/v1/points?limit=1');
    expect(first.body.map((p: any) => p.key)).toEqual(['xp']);
    const second = await s.request('GET', '/admin/v1/points?limit=1&skip=1');
    expect(second.body.map((p: any) => p.key)).toEqual(['coins']);

    const one = await s.request('GET', `/admin/v1/points/${xp.id}`);
    expect(one.body).toStrictEqual({
      id: xp.id, name: 'XP', key: 'xp', description: 'Experience points', status: 'active',
      badge: { url: 'https://img.example/xp.png' }, maxPoints: 1000,
    });
    expect((await s.request('GET', `/admin/v1/points/${MISSING}`)).status).toBe(404);

    const upd = await s.request('PATCH', '/admin/v1/points', {
      body: [
        { id: xp.id, name: 'Experience', description: '', badge: null, maxPoints: null },
        { id: MISSING, name: 'x' },
        { id: xp.id, maxPoints: 0 },
      ],
    });
    expect(upd.status).toBe(200);
    expect(upd.body.updated).toStrictEqual([
      { id: xp.id, name: 'Experience', key: 'xp', description: '', status: 'active', badge: null, maxPoints: null },
    ]);
    expect(upd.body.issues).toEqual([
      { id: MISSING, severity: 'error', message: `Points system "${MISSING}" not found` },
      { index: 2, severity: 'error', message: expect.stringContaining('maxPoints') },
    ]);
    const again = await s.request('PATCH', '/admin/v1/points', { body: [{ id: xp.id, maxPoints: 500, badge: { url: 'https://img.example/b.png' } }] });
    expect(again.body.updated[0]).toMatchObject({ maxPoints: 500, badge: { url: 'https://img.example/b.png' }, name: 'Experience' });
    expect((await s.request('GET', `/admin/v1/points/${xp.id}`)).body.maxPoints).toBe(500);
  });

  it('deletes a system with its triggers, levels and boosts', async () => {
    const doomed = await createSystem({
      name: 'Doomed', key: 'doomed',
      levels: [{ name: 'L1', key: 'bronze', points: 0 }],
      boosts: [{ name: 'B', start: '2024-01-01', multiplier: 3 }],
      triggers: [{ type: 'user_creation', points: 1 }],
    });
    const of = async (kind: 'ptriggers' | 'plevels' | 'pboosts') => (await stored(kind)).filter((e) => e.systemId === doomed.id);
    expect((await of('ptriggers')).length).toBe(1);
    expect((await of('plevels')).length).toBe(1);
    expect((await of('pboosts')).length).toBe(1);

    const del = await s.request('DELETE', `/admin/v1/points?ids=${doomed.id},${MISSING}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({
      deleted: [{ id: doomed.id }],
      issues: [{ id: MISSING, severity: 'error', message: `Points system "${MISSING}" not found` }],
    });
    expect((await s.request('GET', `/admin/v1/points/${doomed.id}`)).status).toBe(404);
    expect((await s.request('GET', `/admin/v1/points/${doomed.id}/levels`)).status).toBe(404);
    expect(await of('ptriggers')).toEqual([]);
    expect(await of('plevels')).toEqual([]);
    expect(await of('pboosts')).toEqual([]);
    // The other systems keep theirs; the key is free again.
    expect((await s.request('GET', `/admin/v1/points/${xp.id}/levels`)).body).toHaveLength(2);
    expect((await createSystem({ name: 'Doomed again', key: 'doomed' })).key).toBe('doomed');
  });
});

describe('points sub-resources', () => {
  let xpId: string;
  let coinsId: string;

  beforeAll(async () => {
    const list = (await s.request('GET', '/admin/v1/points?limit=100')).body;
    xpId = list.find((p: any) => p.key === 'xp').id;
    coinsId = list.find((p: any) => p.key === 'coins').id;
  });

  it('answers 404 not_found for an unknown system on every sub-resource route', async () => {
    for (const sub of ['triggers', 'levels', 'boosts']) {
      const base = `/admin/v1/points/${MISSING}/${sub}`;
      for (const [method, path, body] of [
        ['GET', base, undefined], ['GET', `${base}/${MISSING}`, undefined], ['POST', base, [{}]],
        ['PATCH', base, [{ id: MISSING }]], ['DELETE', `${base}?ids=${MISSING}`, undefined],
      ] as const) {
        const r = await s.request(method, path, { body });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body).toEqual({ code: 'not_found', error: `Points system "${MISSING}" not found` });
      }
    }
  });

  describe('triggers', () => {
    it('checks triggers as per-item issues', async () => {
      const r = await s.request('POST', `/admin/v1/points/${coinsId}/triggers`, {
        body: [
          { type: 'metric', points: 1, metricId: MISSING, metricThreshold: 1 },
          { type: 'metric', points: 1, metricId: metricIds.lessons },
          { type: 'time', points: 1, timeUnit: 'hours', timeInterval: 2, eventAttributes: [{ attributeId: attr.source, attributeValue: 'x' }] },
          { type: 'user_creation', points: 1, userAttributes: [{ attributeId: attr.source, attributeValue: 'x' }] },
          { type: 'user_creation', points: 0 },
          { type: 'time', points: 1, timeUnit: 'days', timeInterval: 1, metricId: metricIds.lessons },
          { type: 'achievement', points: 1, achievementId: MISSING },
          { type: 'streak', points: 1 },
          { type: 'time', points: 1, timeUnit: 'days' },
          { type: 'metric', points: 1, metricKey: 'nope', metricThreshold: 1 },
          { type: 'metric', points: 1, metricThreshold: 1, eventAttributes: [{ attributeId: attr.plan, attributeValue: 'x' }], metricId: metricIds.lessons },
          { type: 'bonus', points: 1 },
          { type: 'user_creation', points: 1.5 },
        ],
      });
      expect(r.status).toBe(200);
      expect(r.body.created).toEqual([]);
      expect(r.body.issues).toEqual([
        { index: 0, severity: 'error', message: `metricId must be the id of a metric (got "${MISSING}")` },
        { index: 1, severity: 'error', message: 'metricThreshold is required for a metric trigger' },
        { index: 2, severity: 'error', message: 'eventAttributes apply to metric triggers only' },
        { index: 3, severity: 'error', message: `userAttributes: "${attr.source}" is not the id of a user attribute` },
        { index: 4, severity: 'error', message: 'points must not be 0' },
        { index: 5, severity: 'error', message: 'metricId applies to metric triggers only' },
        { index: 6, severity: 'error', message: `achievementId must be the id of an achievement (got "${MISSING}")` },
        { index: 7, severity: 'error', message: 'streakLength is required for a streak trigger' },
        { index: 8, severity: 'error', message: 'timeInterval is required for a time trigger' },
        { index: 9, severity: 'error', message: 'metricKey "nope" is not the key of a metric' },
        { index: 10, severity: 'error', message: `eventAttributes: "${attr.plan}" is not the id of an event attribute` },
        { index: 11, severity: 'error', message: expect.stringContaining('type') },
        { index: 12, severity: 'error', message: expect.stringContaining('points') },
      ]);
    });

    it('creates, lists, gets, updates and deletes triggers of one system', async () => {
      const r = await s.request('POST', `/admin/v1/points/${coinsId}/triggers`, {
        body: [
          { type: 'metric', points: -2, metricKey: 'minutes', metricThreshold: 10, blockIfOutOfPoints: true, userAttributes: null },
          { type: 'streak', points: 4, streakLength: 3, status: 'active' },
        ],
      });
      expect(r.status).toBe(201);
      expect(r.body).toStrictEqual({
        created: [
          {
            id: UUID, type: 'metric', points: -2, status: 'inactive', userAttributes: [], metricId: metricIds.minutes,
            metricThreshold: 10, eventAttributes: [], blockIfOutOfPoints: true,
          },
          { id: UUID, type: 'streak', points: 4, status: 'active', userAttributes: [], streakLength: 3, blockIfOutOfPoints: false },
        ],
        issues: [],
      });
      const [metric, streak] = r.body.created;
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/triggers`)).body).toEqual([metric, streak]);
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/triggers?limit=1&skip=1`)).body).toEqual([streak]);
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/triggers/${metric.id}`)).body).toEqual(metric);

      const upd = await s.request('PATCH', `/admin/v1/points/${coinsId}/triggers`, {
        body: [
          { id: metric.id, points: -3, status: 'active', metricThreshold: 20, eventAttributes: [{ attributeId: attr.source, attributeValue: 'app' }] },
          { id: streak.id, type: 'time' },
          { id: streak.id, metricThreshold: 5 },
          { id: streak.id, points: 0 },
          { id: streak.id, streakLength: 14, userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
          { id: MISSING, points: 1 },
        ],
      });
      expect(upd.status).toBe(200);
      expect(upd.body.updated).toStrictEqual([
        {
          ...metric, points: -3, status: 'active', metricThreshold: 20,
          eventAttributes: [{ attributeId: attr.source, attributeValue: 'app' }],
        },
        { ...streak, streakLength: 14, userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
      ]);
      expect(upd.body.issues).toEqual([
        { id: streak.id, severity: 'error', message: 'type can change only while the trigger is inactive (it is active)' },
        { id: streak.id, severity: 'error', message: 'metricThreshold applies to metric triggers only' },
        { id: streak.id, severity: 'error', message: 'points must not be 0' },
        { id: MISSING, severity: 'error', message: `Trigger "${MISSING}" not found` },
      ]);
      const stillStreak = await s.request('GET', `/admin/v1/points/${coinsId}/triggers/${streak.id}`);
      expect(stillStreak.body.type).toBe('streak');
      expect(stillStreak.body.points).toBe(4);

      // An inactive trigger may change type: the old type's fields go, the new one's are required.
      const idle = (await s.request('POST', `/admin/v1/points/${coinsId}/triggers`, {
        body: [{ type: 'metric', points: 5, metricId: metricIds.minutes, metricThreshold: 2,
          eventAttributes: [{ attributeId: attr.source, attributeValue: 'app' }] }],
      })).body.created[0];
      const retype = await s.request('PATCH', `/admin/v1/points/${coinsId}/triggers`, {
        body: [{ id: idle.id, type: 'time' }, { id: idle.id, type: 'time', timeUnit: 'hours', timeInterval: 6 }],
      });
      expect(retype.body.issues).toEqual([{ id: idle.id, severity: 'error', message: 'timeUnit is required for a time trigger' }]);
      expect(retype.body.updated).toStrictEqual([
        { id: idle.id, type: 'time', points: 5, status: 'inactive', userAttributes: [], timeUnit: 'hours', timeInterval: 6, blockIfOutOfPoints: false },
      ]);
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/triggers/${idle.id}`)).body).toStrictEqual(retype.body.updated[0]);
      await s.request('DELETE', `/admin/v1/points/${coinsId}/triggers?ids=${idle.id}`);

      const del = await s.request('DELETE', `/admin/v1/points/${coinsId}/triggers?ids=${streak.id}`);
      expect(del.body).toEqual({ deleted: [{ id: streak.id }], issues: [] });
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/triggers/${streak.id}`)).status).toBe(404);
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/triggers`)).body.map((t: any) => t.id)).toEqual([metric.id]);
    });

    it('keeps a time interval short enough to count in exact milliseconds, and awards by the longest one', async () => {
      // 10^14 days is past 10^21 ms, which JavaScript writes as 8.64e+21: the accrual script could
      // not read it, and every event of a user who existed before the trigger answered 500.
      const r = await s.request('POST', `/admin/v1/points/${coinsId}/triggers`, {
        body: [
          { type: 'time', points: 1, timeUnit: 'days', timeInterval: 1e14, status: 'active' },
          { type: 'time', points: 1, timeUnit: 'hours', timeInterval: 100_000_001, status: 'active' },
        ],
      });
      expect(r.body.created).toEqual([]);
      expect(r.body.issues).toEqual([
        { index: 0, severity: 'error', message: 'timeInterval must be <= 100000000' },
        { index: 1, severity: 'error', message: 'timeInterval must be <= 100000000' },
      ]);
      const ev = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'patient' }, value: 1 } });
      expect(ev.status, ev.text).toBe(201);
      const longest = await s.request('POST', `/admin/v1/points/${coinsId}/triggers`, {
        body: [{ type: 'time', points: 1, timeUnit: 'days', timeInterval: 100_000_000, status: 'active' }],
      });
      expect(longest.status, longest.text).toBe(201);
      const id = longest.body.created[0].id;
      try {
        const read = await s.request('GET', '/api/users/patient/points/coins');
        expect(read.status, read.text).toBe(200);
        const again = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'patient' }, value: 1 } });
        expect(again.status, again.text).toBe(201);
      } finally {
        await s.request('DELETE', `/admin/v1/points/${coinsId}/triggers?ids=${id}`);
      }
    });

    it('does not reach a trigger through another system', async () => {
      const xpTrigger = (await s.request('GET', `/admin/v1/points/${xpId}/triggers`)).body[0];
      const get = await s.request('GET', `/admin/v1/points/${coinsId}/triggers/${xpTrigger.id}`);
      expect(get.status).toBe(404);
      expect(get.body.code).toBe('not_found');
      const upd = await s.request('PATCH', `/admin/v1/points/${coinsId}/triggers`, { body: [{ id: xpTrigger.id, points: 99 }] });
      expect(upd.body).toEqual({ updated: [], issues: [{ id: xpTrigger.id, severity: 'error', message: `Trigger "${xpTrigger.id}" not found` }] });
      const del = await s.request('DELETE', `/admin/v1/points/${coinsId}/triggers?ids=${xpTrigger.id}`);
      expect(del.body.deleted).toEqual([]);
      expect((await s.request('GET', `/admin/v1/points/${xpId}/triggers/${xpTrigger.id}`)).body).toEqual(xpTrigger);
    });
  });

  describe('levels', () => {
    it('keeps level keys unique within a system only', async () => {
      const dup = await s.request('POST', `/admin/v1/points/${xpId}/levels`, {
        body: [{ name: 'Bronze again', key: 'bronze', points: 5 }, { name: 'Gold', key: 'gold', points: 500 }],
      });
      expect(dup.status).toBe(201);
      expect(dup.body.issues).toEqual([{ index: 0, severity: 'error', message: 'A level with key "bronze" already exists' }]);
      expect(dup.body.created).toStrictEqual([{ id: UUID, name: 'Gold', key: 'gold', points: 500, description: '', badge: null }]);

      const other = await s.request('POST', `/admin/v1/points/${coinsId}/levels`, { body: [{ name: 'Bronze', key: 'bronze', points: 0 }] });
      expect(other.status).toBe(201);
      expect(other.body.created[0]).toMatchObject({ key: 'bronze', points: 0 });
      expect(other.body.created[0]).not.toHaveProperty('scopedKey');
    });

    it('checks, lists, gets, updates and deletes levels', async () => {
      const bad = await s.request('POST', `/admin/v1/points/${xpId}/levels`, {
        body: [{ name: 'Neg', key: 'neg', points: -1 }, { name: 'Bad key', key: 'a b', points: 1 }, { name: 'No key', points: 1 }],
      });
      expect(bad.status).toBe(200);
      expect(bad.body.issues.map((i: any) => i.index)).toEqual([0, 1, 2]);
      expect(bad.body.issues[0].message).toContain('points');
      expect(bad.body.issues[1].message).toContain('key');
      expect(bad.body.issues[2].message).toBe('key is required');

      const all = (await s.request('GET', `/admin/v1/points/${xpId}/levels`)).body;
      expect(all.map((l: any) => l.key)).toEqual(['bronze', 'silver', 'gold']);
      expect((await s.request('GET', `/admin/v1/points/${xpId}/levels?skip=2`)).body.map((l: any) => l.key)).toEqual(['gold']);
      const gold = all[2];
      expect((await s.request('GET', `/admin/v1/points/${xpId}/levels/${gold.id}`)).body).toEqual(gold);
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/levels/${gold.id}`)).status).toBe(404);

      const upd = await s.request('PATCH', `/admin/v1/points/${xpId}/levels`, {
        body: [
          { id: gold.id, name: 'Golden', points: 400, description: 'Top', badge: { url: 'https://img.example/g.png' } },
          { id: gold.id, key: 'silver' },
          { id: gold.id, points: -5 },
        ],
      });
      expect(upd.body.updated).toStrictEqual([
        { id: gold.id, name: 'Golden', key: 'gold', points: 400, description: 'Top', badge: { url: 'https://img.example/g.png' } },
      ]);
      expect(upd.body.issues).toEqual([
        { id: gold.id, severity: 'error', message: 'A level with key "silver" already exists' },
        { index: 2, severity: 'error', message: expect.stringContaining('points') },
      ]);
      const cleared = await s.request('PATCH', `/admin/v1/points/${xpId}/levels`, { body: [{ id: gold.id, badge: null, description: '' }] });
      expect(cleared.body.updated[0]).toMatchObject({ badge: null, description: '', name: 'Golden' });

      const del = await s.request('DELETE', `/admin/v1/points/${xpId}/levels?ids=${gold.id}`);
      expect(del.body).toEqual({ deleted: [{ id: gold.id }], issues: [] });
      expect((await s.request('GET', `/admin/v1/points/${xpId}/levels/${gold.id}`)).status).toBe(404);
      expect((await s.request('GET', `/admin/v1/points/${xpId}/levels`)).body.map((l: any) => l.key)).toEqual(['bronze', 'silver']);
      // The key is free again in this system.
      const again = await s.request('POST', `/admin/v1/points/${xpId}/levels`, { body: [{ name: 'Gold', key: 'gold', points: 500 }] });
      expect(again.status).toBe(201);
    });
  });

  describe('boosts', () => {
    it('checks boosts as per-item issues', async () => {
      const r = await s.request('POST', `/admin/v1/points/${xpId}/boosts`, {
        body: [
          { name: 'One', start: '2024-06-01', multiplier: 1 },
          { name: 'Both', start: '2024-06-01', multiplier: 2, userId: 'u1', userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
          { name: 'Backwards', start: '2024-06-10', end: '2024-06-09', multiplier: 2 },
          { name: 'Huge', start: '2024-06-01', multiplier: 100 },
          { name: 'Zero', start: '2024-06-01', multiplier: 0 },
          { name: 'Bad date', start: '2024-02-30', multiplier: 2 },
          { name: 'Bad format', start: '1 June 2024', multiplier: 2 },
          { name: 'Event attr', start: '2024-06-01', multiplier: 2, userAttributes: [{ attributeId: attr.source, attributeValue: 'x' }] },
          { name: 'x'.repeat(256), start: '2024-06-01', multiplier: 2 },
          { start: '2024-06-01', multiplier: 2 },
        ],
      });
      expect(r.status).toBe(200);
      expect(r.body.created).toEqual([]);
      expect(r.body.issues).toEqual([
        { index: 0, severity: 'error', message: 'multiplier must not be 1' },
        { index: 1, severity: 'error', message: 'userAttributes cannot be set on a boost for one user (userId)' },
        { index: 2, severity: 'error', message: 'end (2024-06-09) must not be before start (2024-06-10)' },
        { index: 3, severity: 'error', message: expect.stringContaining('multiplier') },
        { index: 4, severity: 'error', message: expect.stringContaining('multiplier') },
        { index: 5, severity: 'error', message: 'start must be a calendar date YYYY-MM-DD from 1970-01-01 on (got "2024-02-30")' },
        { index: 6, severity: 'error', message: expect.stringContaining('start') },
        { index: 7, severity: 'error', message: `userAttributes: "${attr.source}" is not the id of a user attribute` },
        { index: 8, severity: 'error', message: expect.stringContaining('name') },
        { index: 9, severity: 'error', message: 'name is required' },
      ]);
    });

    it('computes the status from the service clock, in UTC days, end day included', async () => {
      await s.setClock('2024-06-15T23:30:00.000Z');
      const r = await s.request('POST', `/admin/v1/points/${coinsId}/boosts`, {
        body: [
          { name: 'Past', start: '2024-06-01', end: '2024-06-14', multiplier: 2 },
          { name: 'Today', start: '2024-06-15', end: '2024-06-15', multiplier: 0.5, rounding: 'nearest' },
          { name: 'Future', start: '2024-06-16', multiplier: 3, userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
          { name: 'Mine', start: '2024-06-01', multiplier: 2, userId: 'u1', userAttributes: [] },
        ],
      });
      expect(r.status).toBe(201);
      expect(r.body.created).toStrictEqual([
        { id: UUID, name: 'Past', status: 'finished', start: '2024-06-01', end: '2024-06-14', multiplier: 2, rounding: 'down', userId: null, userAttributes: [] },
        { id: UUID, name: 'Today', status: 'active', start: '2024-06-15', end: '2024-06-15', multiplier: 0.5, rounding: 'nearest', userId: null, userAttributes: [] },
        {
          id: UUID, name: 'Future', status: 'scheduled', start: '2024-06-16', end: null, multiplier: 3, rounding: 'down', userId: null,
          userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }],
        },
        { id: UUID, name: 'Mine', status: 'active', start: '2024-06-01', end: null, multiplier: 2, rounding: 'down', userId: 'u1' },
      ]);
      const statuses = async () => (await s.request('GET', `/admin/v1/points/${coinsId}/boosts`)).body.map((b: any) => `${b.name}:${b.status}`);
      await s.setClock('2024-06-16T00:00:00.000Z');
      expect(await statuses()).toEqual(['Past:finished', 'Today:finished', 'Future:active', 'Mine:active']);
      await s.setClock('2024-05-31T12:00:00.000Z');
      expect(await statuses()).toEqual(['Past:scheduled', 'Today:scheduled', 'Future:scheduled', 'Mine:scheduled']);
      await s.setClock('2024-06-15T12:00:00.000Z');
    });

    it('gets, updates and deletes boosts', async () => {
      const all = (await s.request('GET', `/admin/v1/points/${coinsId}/boosts?limit=100`)).body;
      const past = all.find((b: any) => b.name === 'Past');
      const mine = all.find((b: any) => b.name === 'Mine');
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/boosts/${past.id}`)).body).toEqual(past);
      expect((await s.request('GET', `/admin/v1/points/${xpId}/boosts/${past.id}`)).status).toBe(404);

      const upd = await s.request('PATCH', `/admin/v1/points/${coinsId}/boosts`, {
        body: [
          { id: past.id, end: null, multiplier: 1.25, rounding: 'up', name: 'Ongoing', userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
          { id: mine.id, userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }] },
          { id: past.id, multiplier: 1 },
          { id: past.id, end: '2024-05-01' },
        ],
      });
      expect(upd.body.updated).toStrictEqual([
        {
          id: past.id, name: 'Ongoing', status: 'active', start: '2024-06-01', end: null, multiplier: 1.25, rounding: 'up', userId: null,
          userAttributes: [{ attributeId: attr.plan, attributeValue: 'pro' }],
        },
      ]);
      expect(upd.body.issues).toEqual([
        { id: mine.id, severity: 'error', message: 'userAttributes cannot be set on a boost for one user (userId)' },
        { id: past.id, severity: 'error', message: 'multiplier must not be 1' },
        { id: past.id, severity: 'error', message: 'end (2024-05-01) must not be before start (2024-06-01)' },
      ]);
      const cleared = await s.request('PATCH', `/admin/v1/points/${coinsId}/boosts`, { body: [{ id: past.id, userAttributes: null }] });
      expect(cleared.body.updated[0].userAttributes).toEqual([]);

      const del = await s.request('DELETE', `/admin/v1/points/${coinsId}/boosts?ids=${past.id},${MISSING}`);
      expect(del.body).toEqual({
        deleted: [{ id: past.id }],
        issues: [{ id: MISSING, severity: 'error', message: `Boost "${MISSING}" not found` }],
      });
      expect((await s.request('GET', `/admin/v1/points/${coinsId}/boosts/${past.id}`)).status).toBe(404);
    });
  });
});
