/**
 * Excluding a user from the rankings (docs/api.md, "Fair play: excluding a user"), with the manual
 * clock, the workers and a webhook receiver, on single Redis and on the Cluster: an excluded user
 * leaves a metric board, a capped board (whose next user then gets in), a breakdown group, a league
 * cohort, a points board and the streak rankings at once; their reads answer with `excluded: true`
 * and no rank; their events count toward their own totals, points and streak and place them
 * nowhere (their log entries say so, and the log drainer's replay of one places nothing); a
 * placement of an event from before the exclusion that arrives after it changes nothing, on a
 * board and in the streak rankings; ending the exclusion places them again with their next event;
 * a finalised run keeps its ranking; `user.excluded` and `user.included` reach a receiver; bad
 * input, an unknown user, another tenant and a key scoped to a user are refused. A restore repeats
 * the exclusion (single Redis, as the other restore tests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderOf } from '../../src/domain/leaderboards/runs.js';
import { replayEvent } from '../../src/engine/durability/replay-phase2.js';
import { entryBody, type LoggedEvent } from '../../src/model/log.js';
import { startReceiver } from '../support/receiver.js';
import { restoreServer } from '../support/restore.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

interface Ranked { userId: string; value: number }

/** The boards, by key: a perpetual one, a capped one, one broken down by team, a daily one with a league, a daily one, a points one. */
async function configure(s: TestServer): Promise<Record<string, string>> {
  const ids = await s.metrics('runs');
  const attrs = await s.attributes('user', 'team');
  const xp = await s.request('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.runs, metricThreshold: 1, points: 10, status: 'active' }] }],
  });
  expect(xp.status, xp.text).toBe(201);
  const streak = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.runs, threshold: 1 }] } });
  expect(streak.status, streak.text).toBe(200);
  const metric = { status: 'active', rankBy: 'metric', metricId: ids.runs, start: '2026-01-01' };
  const daily = { ...metric, runUnit: 'day', runInterval: 1, maxParticipants: 10 };
  const boards = await s.request('POST', '/admin/v1/leaderboards', {
    body: [
      { ...metric, name: 'All', key: 'runs-all', maxParticipants: 10 },
      { ...metric, name: 'Top two', key: 'runs-cap', maxParticipants: 2 },
      { ...metric, name: 'Teams', key: 'runs-team', maxParticipants: 10, breakdownAttributes: [attrs.team] },
      { ...daily, name: 'League', key: 'runs-league', league: { tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver', demote: 1 }], cohortSize: 5 } },
      { ...daily, name: 'Daily', key: 'runs-daily' },
      { status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, name: 'XP', key: 'xp-board', maxParticipants: 10, start: '2026-01-01' },
    ],
  });
  expect(boards.status, boards.text).toBe(201);
  return Object.fromEntries((boards.body.created as { key: string; id: string }[]).map((b) => [b.key, b.id]));
}

/** Every ranking read that could show a user, as [user, value] pairs. */
async function standings(s: TestServer): Promise<Record<string, [string, number][]>> {
  // A run nobody joined a league in has no cohort yet: an empty ranking here.
  const read = async (path: string, noCohort = false): Promise<[string, number][]> => {
    const r = await s.request('GET', path);
    if (noCohort && r.status === 404 && r.body.code === 'not_found') return [];
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    const list = (Array.isArray(r.body) ? r.body : r.body.rankings) as (Ranked & { streakLength?: number })[];
    return list.map((x) => [x.userId, x.value ?? x.streakLength!]);
  };
  return {
    all: await read('/api/leaderboards/runs-all'),
    cap: await read('/api/leaderboards/runs-cap'),
    team: await read('/api/leaderboards/runs-team?userAttributes=team:red'),
    league: await read('/api/leaderboards/runs-league?cohort=bronze-1', true),
    daily: await read('/api/leaderboards/runs-daily'),
    xp: await read('/api/leaderboards/xp-board'),
    streaks: await read('/v1/streaks/rankings'),
  };
}

describe.each(targets())('fair play: excluding a user on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let boards: Record<string, string> = {};

  const exclusion = (user: string, method: 'PUT' | 'DELETE' | 'GET', body?: unknown, opts: { key?: string; tenant?: string } = {}) =>
    s.request(method, `/admin/v1/users/${user}/exclusion`, { body, ...opts });
  /** The webhook bodies of a type received so far. */
  const hooks = (type: string) => hook.received.filter((r) => r.path === '/x').map((r) => JSON.parse(r.body)).filter((b) => b.type === type);
  const deliver = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.webhooksNow(); };
  const red = (id: string) => ({ id, attributes: { team: 'red' } });

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2026-03-02T10:00:00Z');
    boards = await configure(s);
    const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Fair', url: hook.url('/x'), events: ['user.excluded', 'user.included'] }] });
    expect(w.status, w.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('takes the user off every ranking at once and keeps them off; their events still count', async () => {
    await s.event('runs', red('ana'), 5);
    await s.event('runs', red('bo'), 3);
    await s.event('runs', red('cy'), 1);
    expect(await standings(s)).toEqual({
      all: [['ana', 5], ['bo', 3], ['cy', 1]],
      cap: [['ana', 5], ['bo', 3]],
      team: [['ana', 5], ['bo', 3], ['cy', 1]],
      league: [['ana', 5], ['bo', 3], ['cy', 1]],
      daily: [['ana', 5], ['bo', 3], ['cy', 1]],
      xp: [['ana', 50], ['bo', 30], ['cy', 10]],
      streaks: [['ana', 1], ['bo', 1], ['cy', 1]],
    });

    await s.setClock('2026-03-02T11:00:00Z');
    const r = await exclusion('ana', 'PUT', { reason: 'a bot' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ userId: 'ana', excluded: true, reason: 'a bot', excludedAt: '2026-03-02T11:00:00.000Z' });
    expect(await standings(s)).toEqual({
      all: [['bo', 3], ['cy', 1]],
      cap: [['bo', 3]],
      team: [['bo', 3], ['cy', 1]],
      league: [['bo', 3], ['cy', 1]],
      daily: [['bo', 3], ['cy', 1]],
      xp: [['bo', 30], ['cy', 10]],
      streaks: [['bo', 1], ['cy', 1]],
    });
    // Their own reads answer, and say so.
    const user = await s.request('GET', '/v1/users/ana');
    expect(user.status, user.text).toBe(200);
    expect(user.body).toMatchObject({ id: 'ana', excluded: true });
    expect((await s.request('GET', '/v1/users/bo')).body).not.toHaveProperty('excluded');
    expect((await exclusion('ana', 'GET')).body).toEqual(r.body);
    expect((await s.request('GET', '/v1/users/ana/leaderboards/runs-all')).body).toMatchObject({ rank: null });
    expect((await s.request('GET', '/v1/users/ana/leagues/runs-league')).body).toMatchObject({ rank: null });
    expect((await s.request('GET', '/v1/users/ana/streak')).body).toMatchObject({ length: 1, rank: null });
    // Through a key scoped to them too.
    const scoped = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'ana' }] });
    expect(scoped.status, scoped.text).toBe(201);
    const anaKey = scoped.body.created[0].key as string;
    const mine = await s.request('GET', '/v1/users/ana', { key: anaKey });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body).toMatchObject({ id: 'ana', excluded: true });
    const myBoard = await s.request('GET', '/v1/users/ana/leaderboards/runs-all', { key: anaKey });
    expect(myBoard.status, myBoard.text).toBe(200);
    expect(myBoard.body).toMatchObject({ rank: null });

    // The capped board's freed place: the next user placed there gets in.
    await s.event('runs', red('cy'), 1);
    expect((await standings(s)).cap).toEqual([['bo', 3], ['cy', 2]]);

    // Their events count toward their own state and place them nowhere.
    const own = await s.event('runs', red('ana'), 2);
    expect(own.total).toBe(7);
    expect(own.points.xp.total).toBe(70);
    expect(own.leaderboards).toEqual({});
    expect((await standings(s)).all).toEqual([['bo', 3], ['cy', 2]]);
    await s.setClock('2026-03-03T10:00:00Z');
    const nextDay = await s.event('runs', red('ana'), 1);
    expect(nextDay.currentStreak.length).toBe(2);
    expect(nextDay.leaderboards).toEqual({});
    const after = await standings(s);
    expect(JSON.stringify(after)).not.toContain('"ana"');

    // The log marks the excluded user's events, and the log drainer's replay of one (its api
    // process died before phase 2) places nothing.
    const { redis, keys } = s.api.services;
    const logged = (await redis.xrange(keys.forUser('_', 'ana').log, '-', '+')) as [string, string[]][];
    const [id, fields] = logged.filter(([, f]) => f[0] === 'event').at(-1)!;
    const body = JSON.parse(entryBody(fields)) as LoggedEvent;
    expect(body).toMatchObject({ u: 'ana', ex: '1', d: '2026-03-03' });
    await replayEvent(s.api.services, body, id);
    expect(JSON.stringify(await standings(s))).not.toContain('"ana"');

    // A placement of an event from before the exclusion that arrives now changes nothing.
    const k = keys.leaderboard('_', boards['runs-all'], '2026-01-01', '');
    const now = Date.parse('2026-03-02T10:00:00Z');
    const late = await redis.leaderboardRank(k.ranking, k.members, k.history('ana'), k.awards('ana'), k.expiry, k.falls, k.sequences, k.stats,
      'ana', 5, orderOf(now, `${now}-1000000`), 10, now, '', `${now}-1000000`);
    expect(late[0]).toBe(0);
    const st = keys.streakRankings('_');
    const lateStreak = await redis.streakRank(st.active, st.longest, st.expiry, st.standing, 'ana', 1, 1, now + 86_400_000,
      `${now}-1000000`, orderOf(now, `${now}-1000000`));
    expect(lateStreak).toBe(0);
    const settled = await standings(s);
    expect(settled.all).toEqual([['bo', 3], ['cy', 2]]);
    expect(settled.streaks).toEqual([['bo', 1], ['cy', 1]]);

    // Again: the exclusion stands as it was.
    const again = await exclusion('ana', 'PUT', { reason: 'another reason' });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(r.body);

    await expect.poll(async () => { await deliver(); return hooks('user.excluded').length; }).toBe(1);
    expect(hooks('user.excluded')[0]).toMatchObject({ user: { id: 'ana', excluded: true }, reason: 'a bot', excludedAt: '2026-03-02T11:00:00.000Z' });
  });

  it('ends the exclusion: the next event places the user again', async () => {
    await s.setClock('2026-03-03T11:00:00Z');
    const r = await exclusion('ana', 'DELETE');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ userId: 'ana', excluded: false, includedAt: '2026-03-03T11:00:00.000Z' });
    expect((await s.request('GET', '/v1/users/ana')).body).not.toHaveProperty('excluded');
    expect((await exclusion('ana', 'GET')).body).toEqual({ userId: 'ana', excluded: false, reason: null, excludedAt: null });
    // Nobody is placed until their next event.
    expect(JSON.stringify(await standings(s))).not.toContain('"ana"');
    const twice = await exclusion('ana', 'DELETE');
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe('not_found');

    await s.setClock('2026-03-04T10:00:00Z');
    const back = await s.event('runs', red('ana'), 1);
    expect(back.total).toBe(9);
    const now = await standings(s);
    expect(now.all[0]).toEqual(['ana', 9]);
    expect(now.cap).toEqual([['ana', 9], ['bo', 3]]);
    expect(now.team[0]).toEqual(['ana', 9]);
    expect(now.daily).toEqual([['ana', 1]]);
    expect(now.xp[0]).toEqual(['ana', 90]);
    expect(now.streaks).toEqual([['ana', 3]]);
    expect((await s.request('GET', '/v1/users/ana/leagues/runs-league')).body).toMatchObject({ rank: 1, value: 1 });

    await expect.poll(async () => { await deliver(); return hooks('user.included').length; }).toBe(1);
    expect(hooks('user.included')[0]).toMatchObject({ user: { id: 'ana' }, includedAt: '2026-03-03T11:00:00.000Z' });
    expect(hooks('user.included')[0].user).not.toHaveProperty('excluded');
  });

  it('leaves a finalised run as it was', async () => {
    expect((await standings(s)).daily).toEqual([['ana', 1]]);
    await s.setClock('2026-03-06T14:00:00Z');
    await s.workers!.testing.finaliseNow();
    const r = await exclusion('ana', 'PUT', { reason: 'found late' });
    expect(r.status, r.text).toBe(200);
    const run = await s.request('GET', '/api/leaderboards/runs-daily?run=2026-03-04');
    expect(run.body.rankings.map((x: Ranked) => [x.userId, x.value])).toEqual([['ana', 1]]);
    expect((await standings(s)).all).toEqual([['bo', 3], ['cy', 2]]);
    expect((await exclusion('ana', 'DELETE')).status).toBe(200);
  });

  it('refuses bad input with a code, an unknown user, another tenant\'s key and a client key', async () => {
    for (const body of [{}, { reason: '' }, { reason: 5 }, { reason: 'x', extra: 1 }, [], 'bot']) {
      const r = await exclusion('bo', 'PUT', body);
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toEqual(expect.any(String));
    }
    const empty = await s.request('PUT', '/admin/v1/users/bo/exclusion', { raw: '' });
    expect(empty.status, empty.text).toBe(400);
    for (const method of ['PUT', 'DELETE', 'GET'] as const) {
      const r = await exclusion('nobody', method, method === 'PUT' ? { reason: 'x' } : undefined);
      expect(r.status, r.text).toBe(404);
      expect(r.body.code).toBe('user_not_found');
    }

    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `acme-${target}`, name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
    const b = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: `acme-${target}`, name: 'Acme admin' } });
    expect(b.status, b.text).toBe(201);
    const bound = b.body.key as string;
    // Bo is the default tenant's: unknown to a key bound to Acme, and naming the default tenant is refused.
    expect((await exclusion('bo', 'PUT', { reason: 'x' }, { key: bound })).body.code).toBe('user_not_found');
    expect((await exclusion('bo', 'PUT', { reason: 'x' }, { key: bound, tenant: 'other' })).status).toBe(403);
    const own = await s.request('POST', '/api/metrics/runs/event', { tenant: `acme-${target}`, body: { user: { id: 'bo' }, value: 4 } });
    expect(own.status, own.text).toBe(201);
    const inside = await exclusion('bo', 'PUT', { reason: 'acme bot' }, { key: bound });
    expect(inside.status, inside.text).toBe(200);
    expect((await s.request('GET', '/api/leaderboards/runs-all', { tenant: `acme-${target}` })).body.rankings).toEqual([]);
    // The default tenant's bo is not excluded.
    expect((await standings(s)).all).toEqual([['bo', 3], ['cy', 2]]);

    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'bo' }] });
    expect(k.status, k.text).toBe(201);
    const client = k.body.created[0].key as string;
    for (const method of ['PUT', 'DELETE', 'GET'] as const) {
      const r = await exclusion('bo', method, method === 'PUT' ? { reason: 'x' } : undefined, { key: client });
      expect(r.status, r.text).toBe(403);
      expect(r.body.code).toEqual(expect.any(String));
    }
    expect((await exclusion('bo', 'GET')).body.excluded).toBe(false);
  });
});

describe('a restore', () => {
  it('repeats an exclusion: the user stays off the rankings, their events counted', { timeout: 60_000 }, async () => {
    // No scheduled snapshot meanwhile (one after the events would leave the restore nothing to replay):
    // the first, due as the workers start, taken before them.
    let s = await startTestServer({ clock: 'manual', workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '168h' } });
    await s.workers!.testing.snapshotIdle();
    const { prefix } = s;
    try {
      await s.setClock('2026-03-02T10:00:00Z');
      await configure(s);
      await s.event('runs', { id: 'ana', attributes: { team: 'red' } }, 5);
      await s.event('runs', { id: 'bo', attributes: { team: 'red' } }, 3);
      // A snapshot of the events: the restore replays what came after it, the exclusion and an event.
      await s.workers!.testing.drainNow();
      await s.workers!.testing.snapshotNow(true);
      await s.setClock('2026-03-02T11:00:00Z');
      expect((await s.request('PUT', '/admin/v1/users/ana/exclusion', { body: { reason: 'bot' } })).status).toBe(200);
      await s.setClock('2026-03-03T10:00:00Z');
      await s.event('runs', { id: 'ana' }, 2);
      const restored = await restoreServer(s);
      s = restored.server;
      expect(restored.result).toMatchObject({ failed: 0, replayed: 2 });
      await s.setClock('2026-03-03T10:00:00Z');
      expect((await s.request('GET', '/api/users/ana/metrics/runs')).body.current).toBe(7);
      expect((await s.request('GET', '/v1/users/ana')).body).toMatchObject({ excluded: true });
      expect((await s.request('GET', '/v1/users/ana/streak')).body).toMatchObject({ length: 2, rank: null });
      const after = await standings(s);
      expect(after.all).toEqual([['bo', 3]]);
      expect(JSON.stringify(after)).not.toContain('"ana"');
      // Ended after the restore, the next event places them.
      expect((await s.request('DELETE', '/admin/v1/users/ana/exclusion')).status).toBe(200);
      await s.event('runs', { id: 'ana' }, 1);
      expect((await standings(s)).all).toEqual([['ana', 8], ['bo', 3]]);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
});
