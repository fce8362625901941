/**
 * What a key scoped to one user may read of other users (docs/live.md, "What a client key may
 * see"; docs/operations.md, "Keys and tenants"): the key walks every read of the Application API in
 * the server's own `/openapi.json` (every GET, under both prefixes, with every query parameter
 * set) and an event of its own, while other users hold emails, device tokens, attributes and time
 * zones; no answer holds any of their private values, each read of its own user answers 200, and
 * each read of another user's answers 403. Counts of users by their attributes are refused to it,
 * and `GET /streaks` checks the users it reads, however `userIds` is written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-server.js';
import { rowsOf } from '../support/rankings.js';
import { eventually } from '../support/eventually.js';

interface Operation {
  tags?: string[];
  parameters?: { name?: string; in?: string }[];
}

/** A user's private values: no answer to another user's key may hold one. */
const privateOf = (id: string) => ({ email: `${id}@private.test`, token: `device-token-of-${id}`, secret: `secret-of-${id}` });
const others = ['ann', 'bob'];

/** A value for each query parameter of the Application API's reads (one that selects something). */
const QUERY: Record<string, string> = {
  aggregation: 'daily', startDate: '2026-01-01', endDate: '2026-12-31', start_date: '2026-01-01', end_date: '2026-12-31',
  year: '2026', userAttributes: 'city:paris', includeIncomplete: 'true', historyPeriods: '7', userIds: 'me',
  limit: '100', type: 'active', awards: '100', includeFinished: 'true', offset: '0', userId: 'ann', numEvents: '10',
};
/** A value for `{key}` by the path it stands in. */
const keyFor = (template: string): string =>
  template.includes('/leaderboards/') ? 'lessons-board' : template.includes('/leagues/') ? 'lessons-league' : template.includes('/points/') ? 'xp' : 'lessons';

describe('what a key scoped to a user reads of other users', () => {
  const s = useTestServer({ workers: true });
  let meKey = '';

  beforeAll(async () => {
    const { lessons } = await s.metrics('lessons');
    const attrs = await s.attributes('user', 'secret', 'city');
    const setup = [
      s.request('POST', '/admin/v1/points', {
        body: [{
          name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' }],
          levels: [{ name: 'Rookie', key: 'rookie', points: 10 }],
        }],
      }),
      s.request('POST', '/admin/v1/leaderboards', { body: [
        { name: 'Lessons', key: 'lessons-board', rankBy: 'metric', metricId: lessons, breakdownAttributes: [attrs.city], status: 'active', start: '2020-01-01' },
        {
          name: 'Lessons league', key: 'lessons-league', rankBy: 'metric', metricId: lessons, status: 'active', start: '2020-01-01', runUnit: 'day', runInterval: 1,
          league: { tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver', demote: 1 }], cohortSize: 5 },
        },
      ] }),
      s.request('POST', '/admin/v1/achievements', { body: [{ name: 'First', key: 'first', trigger: 'metric', metricId: lessons, metricValue: 1 }] }),
    ];
    for (const r of await Promise.all(setup)) expect(r.status, r.text).toBe(201);
    const streak = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] } });
    expect(streak.status, streak.text).toBe(200);
    for (const [i, id] of [...others, 'me'].entries()) {
      const p = privateOf(id);
      await s.event('lessons', {
        id, name: `Player ${id}`, tz: 'Pacific/Kiritimati', email: p.email, deviceTokens: [p.token], attributes: { secret: p.secret, city: 'paris' },
      }, 3 - i);
    }
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'me' }] });
    expect(k.status, k.text).toBe(201);
    meKey = k.body.created[0].key as string;
    // The others on the board before the walk (placements follow the answer).
    await eventually(async () => {
      const board = await s.request('GET', '/v1/leaderboards/lessons-board?userAttributes=city:paris');
      expect(board.body.rankings.map((r: { userId: string }) => r.userId)).toEqual(['ann', 'bob', 'me']);
    });
  });

  it('walks every read of the Application API and finds nothing private of another user', async () => {
    const doc = (await s.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation> & { servers?: { url: string }[] }> };
    const secrets = others.flatMap((u) => Object.values(privateOf(u)));
    const leaks: string[] = [];
    const refusedOther: string[] = [];
    let reads = 0;
    for (const [template, item] of Object.entries(doc.paths)) {
      const get = item.get;
      if (get === undefined || !(get.tags ?? []).includes('Application API') || template.endsWith('/live')) continue;
      const all = new URLSearchParams();
      for (const p of get.parameters ?? []) if (p.in === 'query' && p.name !== undefined && QUERY[p.name] !== undefined) all.set(p.name, QUERY[p.name]);
      for (const { url: prefix } of item.servers ?? [{ url: '' }]) {
        const path = (user: string) => `${prefix}${template.replace('{id}', user).replace('{key}', keyFor(template))}`;
        // With every query parameter set (200), and with none (a read that needs one refuses with a 4xx).
        for (const q of [`?${all}`, '']) {
          const r = await s.request('GET', path('me') + q, { key: meKey });
          reads++;
          if (q === '') expect(r.status, `GET ${path('me')}: ${r.text}`).toBeLessThan(500);
          // (Counting users by their attributes is refused to such a key: below.)
          else expect(r.status, `GET ${path('me')}${q}: ${r.text}`).toBe(template.endsWith('/points/{key}/summary') ? 403 : 200);
          for (const secret of secrets) if (r.text.includes(secret)) leaks.push(`GET ${path('me')}${q}: ${secret}`);
        }
        if (template.includes('{id}')) {
          const r = await s.request('GET', `${path('ann')}?${all}`, { key: meKey });
          if (r.status !== 403) refusedOther.push(`GET ${path('ann')}: ${r.status}`);
          for (const secret of secrets) if (r.text.includes(secret)) leaks.push(`GET ${path('ann')}: ${secret}`);
        }
      }
    }
    // Its own event's answer: the achievements, streak, points and ranks it moved.
    const event = await s.request('POST', '/v1/metrics/lessons/event', { key: meKey, body: { user: { id: 'me' }, value: 5 } });
    expect(event.status, event.text).toBe(201);
    for (const secret of secrets) if (event.text.includes(secret)) leaks.push(`POST /v1/metrics/lessons/event: ${secret}`);
    expect(leaks).toEqual([]);
    expect(refusedOther).toEqual([]);
    // Every read of both prefixes, twice: the walk covered the API, not a few routes.
    expect(reads).toBeGreaterThanOrEqual(2 * 2 * 20);
    // What is public shows: the others on the board, by name.
    const board = await s.request('GET', '/v1/leaderboards/lessons-board?userAttributes=city:paris', { key: meKey });
    expect(rowsOf(board.body)[0]).toEqual({ userId: 'me', userName: 'Player me', rank: 1, value: 6 });
    expect(rowsOf(board.body)[1]).toEqual({ userId: 'ann', userName: 'Player ann', rank: 2, value: 3 });
    // And the others in its league's cohort.
    const league = await s.request('GET', '/v1/users/me/leagues/lessons-league', { key: meKey });
    expect(league.body.rankings.map((r: { userId: string }) => r.userId).sort()).toEqual(['ann', 'bob', 'me']);
  });

  it('refuses a key scoped to a user counts of users by their attributes, which would tell another user\'s', async () => {
    const guess = `/v1/points/xp/summary?userAttributes=secret:${privateOf('ann').secret}`;
    const refused = await s.request('GET', guess, { key: meKey });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.code).toBe('wrong_user');
    // Unfiltered counts name nobody; an account key may filter.
    expect((await s.request('GET', '/v1/points/xp/summary', { key: meKey })).status).toBe(200);
    expect((await s.request('GET', guess)).status).toBe(200);
  });

  it('checks the users of GET /streaks as it reads them, an empty value or a comma in an id whatever', async () => {
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'me,ann' }] });
    expect(k.status, k.text).toBe(201);
    const key = k.body.created[0].key as string;
    for (const q of ['userIds=me%2Cann&userIds=', 'userIds=&userIds=me%2Cann', 'userIds=me%2Cann']) {
      const r = await s.request('GET', `/v1/streaks?${q}`, { key });
      expect(r.status, `${q}: ${r.text}`).toBe(403);
      expect(r.text).not.toContain('"userId":"ann"');
    }
  });
});
