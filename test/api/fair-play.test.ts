/**
 * Voiding events and revoking achievements (docs/api.md, "Fair play: voiding an event and revoking
 * an achievement"), with the manual clock, the workers, a webhook receiver and a live socket, on
 * single Redis and on the Cluster: a void takes the event's value off the total and its day, its
 * points back by an award of the opposite sign (trigger type `void`), and moves the boards (a
 * perpetual one, the day's run, a points board); achievements stay; voiding again changes nothing
 * and the event's idempotency key stays used; a revoke moves completions and rarity; the
 * `event.voided` and `achievement.revoked` webhooks and live messages; a voided event out of the
 * analytics rollups; a void in the zone and breakdown group the event had; bad input, unknown ids,
 * another tenant's event, a key scoped to a user. A restore repeats both, and a void in the zone of
 * the event after the user moved to another (single Redis and the Cluster).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLive, liveUrl, type LiveClient } from '../support/live-client.js';
import { startReceiver } from '../support/receiver.js';
import { runOf } from '../../src/domain/leaderboards/runs.js';
import { heldGroups } from '../../src/engine/fairplay/void.js';
import { place } from '../../src/engine/leaderboards/rank-user.js';
import { restoreServer } from '../support/restore.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

interface Ranked { userId: string; value: number }

/** The metric, an achievement, a points system and three boards (a perpetual, a daily, a points one). */
async function configure(s: TestServer): Promise<void> {
  const ids = await s.metrics('runs');
  const ach = await s.request('POST', '/admin/v1/achievements', {
    body: [{ name: 'Five', key: 'run-5', trigger: 'metric', metricId: ids.runs, metricValue: 5 }],
  });
  expect(ach.status, ach.text).toBe(201);
  const xp = await s.request('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.runs, metricThreshold: 1, points: 10, status: 'active' }] }],
  });
  expect(xp.status, xp.text).toBe(201);
  const boards = await s.request('POST', '/admin/v1/leaderboards', {
    body: [
      { name: 'All', key: 'runs-all', status: 'active', rankBy: 'metric', metricId: ids.runs, maxParticipants: 10, start: '2026-01-01' },
      { name: 'Daily', key: 'runs-daily', status: 'active', rankBy: 'metric', metricId: ids.runs, maxParticipants: 10, start: '2026-01-01', runUnit: 'day', runInterval: 1 },
      { name: 'XP', key: 'xp-board', status: 'active', rankBy: 'points', pointsSystemId: xp.body.created[0].id, maxParticipants: 10, start: '2026-01-01' },
    ],
  });
  expect(boards.status, boards.text).toBe(201);
}

describe.each(targets())('fair play: voiding and revoking on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let live: LiveClient | null = null;

  const total = async (user: string) => (await s.request('GET', `/api/users/${user}/metrics/runs`)).body.current as number;
  const xp = async (user: string) => (await s.request('GET', `/api/users/${user}/points/xp`)).body;
  const rankings = async (key: string, query = '') => {
    const r = await s.request('GET', `/api/leaderboards/${key}${query}`);
    expect(r.status, r.text).toBe(200);
    return (r.body.rankings as Ranked[]).map((x) => [x.userId, x.value]);
  };
  const voidEvents = (body: unknown, opts: { key?: string; tenant?: string } = {}) => s.request('POST', '/admin/v1/events/void', { body, ...opts });
  /** The webhook bodies of a type received so far. */
  const hooks = (type: string) => hook.received.filter((r) => r.path === '/h').map((r) => JSON.parse(r.body)).filter((b) => b.type === type);
  const deliver = async () => { await s.workers!.testing.drainNow(); await s.workers!.testing.webhooksNow(); };

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2026-03-02T10:00:00Z');
    await configure(s);
    const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Fair', url: hook.url('/h'), events: ['event.voided', 'achievement.revoked'] }] });
    expect(w.status, w.text).toBe(201);
  });
  afterAll(async () => {
    await live?.close();
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('takes back the total, the day, the points and the boards; achievements stay; twice changes nothing', async () => {
    await s.event('runs', 'ana', 2);
    const cheat = await s.event('runs', 'ana', 4);
    expect(cheat.achievements.map((a: { key: string }) => a.key)).toEqual(['run-5']);
    expect(cheat.points.xp.total).toBe(60);
    await s.event('runs', 'bo', 5);
    expect(await rankings('runs-all')).toEqual([['ana', 6], ['bo', 5]]);
    const keyed = await s.request('POST', '/api/metrics/runs/event', { body: { user: { id: 'ana' }, value: 1 }, headers: { 'idempotency-key': 'ana-once' } });
    expect(keyed.status, keyed.text).toBe(201);
    expect(keyed.body.total).toBe(7);

    // Ana's live topic, through a key scoped to her.
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'ana' }] });
    expect(k.status, k.text).toBe(201);
    live = await openLive(liveUrl(s.url, k.body.created[0].key as string));
    await live.subscribe(['user:ana']);

    await s.setClock('2026-03-02T11:00:00Z');
    const r = await voidEvents([{ eventId: cheat.eventId, reason: 'a bot' }, { eventId: keyed.body.eventId, reason: 'a test' }]);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      voided: [
        { eventId: cheat.eventId, userId: 'ana', metric: 'runs', date: '2026-03-02', value: 4, total: 3, points: { xp: -40 } },
        { eventId: keyed.body.eventId, userId: 'ana', metric: 'runs', date: '2026-03-02', value: 1, total: 2, points: { xp: -10 } },
      ],
      issues: [],
    });
    expect(await total('ana')).toBe(2);
    const days = await s.request('GET', '/api/users/ana/metrics/runs/event-summary?aggregation=daily&startDate=2026-03-02&endDate=2026-03-02');
    expect(days.body).toEqual([expect.objectContaining({ date: '2026-03-02', total: 2 })]);
    const points = await xp('ana');
    expect(points.total).toBe(20);
    expect(points.awards[0]).toMatchObject({ awarded: -10, total: 20, trigger: { id: 'void', type: 'void' } });
    expect(points.awards[1]).toMatchObject({ awarded: -40, total: 30, trigger: { id: 'void', type: 'void' } });
    expect(await rankings('runs-all')).toEqual([['bo', 5], ['ana', 2]]);
    expect(await rankings('runs-daily')).toEqual([['bo', 5], ['ana', 2]]);
    expect(await rankings('xp-board')).toEqual([['bo', 50], ['ana', 20]]);
    const mine = await s.request('GET', '/api/users/ana/achievements');
    expect(mine.body.map((a: { key: string }) => a.key)).toEqual(['run-5']);

    // Again: nothing moves; the key stays used.
    const again = await voidEvents([{ eventId: cheat.eventId, reason: 'a bot' }]);
    expect(again.body).toEqual({ voided: [], issues: [{ index: 0, id: cheat.eventId, severity: 'warning', message: `Event "${cheat.eventId}" was voided already` }] });
    const replay = await s.request('POST', '/api/metrics/runs/event', { body: { user: { id: 'ana' }, value: 1 }, headers: { 'idempotency-key': 'ana-once' } });
    expect(replay.status, replay.text).toBe(202);
    expect(await total('ana')).toBe(2);
    expect((await xp('ana')).total).toBe(20);

    await expect.poll(async () => { await deliver(); return hooks('event.voided').length; }).toBe(2);
    expect(hooks('event.voided').find((b) => b.event.id === cheat.eventId)).toMatchObject({
      user: { id: 'ana' }, event: { metric: 'runs', date: '2026-03-02', value: 4, occurredAt: '2026-03-02T10:00:00.000Z' },
      reason: 'a bot', voidedAt: '2026-03-02T11:00:00.000Z',
    });
    const message = await live.next((m) => m.type === 'event.voided' && m.data.event.id === cheat.eventId);
    expect(message).toMatchObject({ topic: 'user:ana', data: { reason: 'a bot', event: { value: 4 } } });
  });

  it('finds an event in the Postgres archive once Redis has trimmed it, and by its user', async () => {
    await s.setClock('2026-03-02T12:00:00Z');
    const e = await s.event('runs', 'cy', 3);
    const f = await s.event('runs', 'dan', 4);
    await s.workers!.testing.drainNow();
    // Archived: trimmed from Redis as the drain does 30 s later (XTRIM), so only Postgres holds them.
    const { redis, keys } = s.api.services;
    for (const user of ['cy', 'dan']) {
      const log = keys.forUser('_', user).log;
      await redis.xtrim(log, 'MAXLEN', 0);
      expect(await redis.xlen(log)).toBe(0);
    }
    await s.setClock('2026-03-02T12:05:00Z');
    const r = await voidEvents([{ eventId: e.eventId, reason: 'late', userId: 'cy' }, { eventId: f.eventId, reason: 'late' }]);
    expect(r.body.voided).toEqual([
      expect.objectContaining({ eventId: e.eventId, userId: 'cy', value: 3, total: 0 }),
      expect.objectContaining({ eventId: f.eventId, userId: 'dan', value: 4, total: 0 }),
    ]);
    // Named with another user, it is not theirs.
    const wrongUser = await voidEvents([{ eventId: (await s.event('runs', 'cy', 1)).eventId, reason: 'x', userId: 'dee' }]);
    expect(wrongUser.body.issues).toEqual([expect.objectContaining({ index: 0, severity: 'error', message: expect.stringContaining('not found') })]);
  });

  it('revokes a completion: rarity and completions move, the webhook and live message go', async () => {
    const before = (await s.request('GET', '/api/achievements')).body.find((a: { key: string }) => a.key === 'run-5');
    expect(before.completions).toBe(2);
    const r = await s.request('DELETE', '/admin/v1/users/ana/achievements/run-5');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ userId: 'ana', achievement: 'run-5', revokedAt: '2026-03-02T12:05:00.000Z' });
    const after = (await s.request('GET', '/api/achievements')).body.find((a: { key: string }) => a.key === 'run-5');
    expect(after.completions).toBe(1);
    expect(after.rarity).toBeLessThan(before.rarity);
    expect((await s.request('GET', '/api/users/ana/achievements')).body).toEqual([]);
    // Points an achievement awarded stay; here none: the metric trigger's stay too.
    expect((await xp('ana')).total).toBe(20);

    const twice = await s.request('DELETE', '/admin/v1/users/ana/achievements/run-5');
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe('not_found');
    expect((await s.request('DELETE', '/admin/v1/users/ana/achievements/nope')).body.code).toBe('not_found');
    expect((await s.request('DELETE', '/admin/v1/users/nobody/achievements/run-5')).body.code).toBe('user_not_found');

    await expect.poll(async () => { await deliver(); return hooks('achievement.revoked').length; }).toBe(1);
    expect(hooks('achievement.revoked')[0]).toMatchObject({
      user: { id: 'ana' }, achievement: { key: 'run-5', achievedAt: null }, revokedAt: '2026-03-02T12:05:00.000Z',
    });
    const message = await live!.next((m) => m.type === 'achievement.revoked');
    expect(message).toMatchObject({ topic: 'user:ana', data: { achievement: { key: 'run-5' } } });
  });

  it('refuses bad input with a code, answers an issue for an unknown id, keeps to the tenant, refuses a client key', async () => {
    for (const body of [{ eventId: 'x', reason: 'y' }, [], [{ eventId: 'x' }], [{ eventId: 'x', reason: 'y', extra: 1 }], [{ eventId: 5, reason: 'y' }]]) {
      const r = await voidEvents(body);
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toEqual(expect.any(String));
    }
    const unknown = await voidEvents([{ eventId: 'not-an-id', reason: 'y' }, { eventId: '00000000-0000-4000-8000-000000000000', reason: 'y' }]);
    expect(unknown.status).toBe(200);
    expect(unknown.body.voided).toEqual([]);
    expect(unknown.body.issues.map((i: { index: number; severity: string }) => [i.index, i.severity])).toEqual([[0, 'error'], [1, 'error']]);

    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: `acme-${target}`, name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
    const e = await s.event('runs', 'eve', 2);
    const other = await voidEvents([{ eventId: e.eventId, reason: 'y' }], { tenant: `acme-${target}` });
    expect(other.body.issues).toEqual([expect.objectContaining({ index: 0, severity: 'error' })]);
    expect(await total('eve')).toBe(2);
    // A key bound to the tenant: its own tenant's events and users only.
    const b = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'admin', tenantId: `acme-${target}`, name: 'Acme admin' } });
    expect(b.status, b.text).toBe(201);
    const bound = b.body.key as string;
    const outside = await voidEvents([{ eventId: e.eventId, reason: 'y' }], { key: bound });
    expect(outside.body).toEqual({ voided: [], issues: [expect.objectContaining({ index: 0, severity: 'error' })] });
    expect((await s.request('DELETE', '/admin/v1/users/ana/achievements/run-5', { key: bound })).body.code).toBe('user_not_found');
    const own = await s.request('POST', '/api/metrics/runs/event', { tenant: `acme-${target}`, body: { user: { id: 'eve' }, value: 4 } });
    expect(own.status, own.text).toBe(201);
    const inside = await voidEvents([{ eventId: own.body.eventId, reason: 'y' }], { key: bound });
    expect(inside.body.voided).toEqual([expect.objectContaining({ eventId: own.body.eventId, userId: 'eve', value: 4, total: 0 })]);
    expect(await total('eve')).toBe(2);

    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'eve' }] });
    const client = k.body.created[0].key as string;
    const refused = await voidEvents([{ eventId: e.eventId, reason: 'y' }], { key: client });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toEqual(expect.any(String));
    const revoke = await s.request('DELETE', '/admin/v1/users/eve/achievements/run-5', { key: client });
    expect(revoke.status).toBe(403);
    expect(await total('eve')).toBe(2);
  });

  it('takes a voided event out of the analytics rollups of its day and metric', async () => {
    await s.setClock('2026-03-06T10:00:00Z');
    const day = async () => {
      const r = await s.request('GET', '/admin/v1/analytics?from=2026-03-06&to=2026-03-06');
      expect(r.status, r.text).toBe(200);
      const d = r.body.days[0] as { date: string; events: number; activeUsers: number; byMetric: Record<string, number> };
      return [d.date, d.events, d.byMetric.runs, d.activeUsers];
    };
    const e = await s.event('runs', 'ray', 2);
    await s.event('runs', 'ray', 3);
    await s.event('runs', 'sol', 1);
    await s.workers!.testing.drainNow();
    expect(await day()).toEqual(['2026-03-06', 3, 3, 2]);
    // Voided the next day: the event's own day loses it; Ray stays active on it.
    await s.setClock('2026-03-07T10:00:00Z');
    expect((await voidEvents([{ eventId: e.eventId, reason: 'a bot' }])).body.voided).toHaveLength(1);
    await s.workers!.testing.drainNow();
    expect(await day()).toEqual(['2026-03-06', 2, 2, 2]);
  });

  it('leaves a finalised run as it was, and moves the boards still running', async () => {
    await s.setClock('2026-03-03T10:00:00Z');
    const e = await s.event('runs', 'fin', 7);
    expect(await rankings('runs-daily', '?run=2026-03-03')).toEqual([['fin', 7]]);
    await s.setClock('2026-03-05T14:00:00Z');
    await s.workers!.testing.finaliseNow();
    const r = await voidEvents([{ eventId: e.eventId, reason: 'late find' }]);
    expect(r.body.voided).toEqual([expect.objectContaining({ eventId: e.eventId, date: '2026-03-03', value: 7, total: 0, points: { xp: -70 } })]);
    expect(await rankings('runs-daily', '?run=2026-03-03')).toEqual([['fin', 7]]);
    expect(await rankings('runs-all')).toContainEqual(['fin', 0]);
    expect(await rankings('xp-board')).toContainEqual(['fin', 0]);
  });

  it('leaves a new user\'s user_creation points to them when their first event is voided', async () => {
    const energy = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'Energy', key: 'energy', triggers: [{ type: 'user_creation', points: 5, status: 'active' }] }],
    });
    expect(energy.status, energy.text).toBe(201);
    const first = await s.event('runs', 'newcomer', 1);
    expect(first.points).toMatchObject({ xp: { total: 10 }, energy: { total: 5 } });
    const r = await voidEvents([{ eventId: first.eventId, reason: 'a bot' }]);
    expect(r.body.voided).toEqual([expect.objectContaining({ eventId: first.eventId, value: 1, total: 0, points: { xp: -10 } })]);
    expect((await s.request('GET', '/api/users/newcomer/points/energy')).body.total).toBe(5);
    expect((await xp('newcomer')).total).toBe(0);
  });
});

describe.each(targets())('fair play: a void moves what the event counted toward on %s', (target) => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual' });
    await s.setClock('2026-03-02T10:00:00Z');
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const rankings = async (key: string, query = '') => {
    const r = await s.request('GET', `/api/leaderboards/${key}${query}`);
    expect(r.status, r.text).toBe(200);
    return (r.body.rankings as Ranked[]).map((x) => [x.userId, x.value]);
  };

  it('in the zone and the breakdown group the event had, after the user moved both', async () => {
    const ids = await s.metrics('laps');
    const attrs = await s.attributes('user', 'team');
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        // Weekly runs by team; mornings (08:00 to 12:00 on the user's clock) since the start.
        { name: 'Teams', key: 'laps-team', status: 'active', rankBy: 'metric', metricId: ids.laps, maxParticipants: 10, start: '2026-03-02', runUnit: 'day', runInterval: 7, breakdownAttributes: [attrs.team] },
        { name: 'Mornings', key: 'laps-morning', status: 'active', rankBy: 'metric', metricId: ids.laps, maxParticipants: 10, start: '2026-03-02', startTime: '08:00', endTime: '12:00' },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
    // 10:00 in London: a morning.
    const cheat = await s.event('laps', { id: 'kim', tz: 'Europe/London', attributes: { team: 'red' } }, 5);
    await s.event('laps', { id: 'lee', tz: 'Europe/London', attributes: { team: 'red' } }, 3);
    expect(await rankings('laps-team', '?run=2026-03-02&userAttributes=team:red')).toEqual([['kim', 5], ['lee', 3]]);
    expect(await rankings('laps-morning')).toEqual([['kim', 5], ['lee', 3]]);

    // A week later Kim lives in New York (10:00 UTC is 06:00 there: no morning) and plays for blue.
    await s.setClock('2026-03-09T10:00:00Z');
    await s.event('laps', { id: 'kim', tz: 'America/New_York', attributes: { team: 'blue' } }, 1);
    expect(await rankings('laps-team', '?run=2026-03-09&userAttributes=team:blue')).toEqual([['kim', 1]]);

    const r = await s.request('POST', '/admin/v1/events/void', { body: [{ eventId: cheat.eventId, reason: 'a bot' }] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.voided).toEqual([expect.objectContaining({ eventId: cheat.eventId, date: '2026-03-02', value: 5, total: 1 })]);
    // Last week's red group and the mornings move back; Kim joins no blue group of last week, and
    // this week's standing stays.
    expect(await rankings('laps-team', '?run=2026-03-02&userAttributes=team:red')).toEqual([['lee', 3], ['kim', 0]]);
    expect(await rankings('laps-team', '?run=2026-03-02&userAttributes=team:blue')).toEqual([]);
    expect(await rankings('laps-team', '?run=2026-03-09&userAttributes=team:blue')).toEqual([['kim', 1]]);
    expect(await rankings('laps-morning')).toEqual([['lee', 3], ['kim', 0]]);
  });

  it('leaves a user out of a group they left between the void\'s read of their groups and its placement', async () => {
    // After the test above: this week's run of the teams' board.
    const deps = s.api.services;
    const lb = [...deps.store.current.leaderboards.values()].find((b) => b.key === 'laps-team')!;
    const run = runOf(lb, '2026-03-09')!;
    await s.event('laps', { id: 'max', tz: 'Europe/London', attributes: { team: 'green' } }, 4);
    expect(await rankings('laps-team', '?run=2026-03-09&userAttributes=team:green')).toEqual([['max', 4]]);
    // The void reads the groups that hold Max: green.
    const held = await heldGroups(deps, '_', 'max', [{ lb, run, group: [], value: '0' }]);
    expect(held).toEqual([expect.objectContaining({ group: ['green'], membersOnly: true })]);
    // Then Max moves to yellow and leaves green, before the void's placement lands (a later log entry).
    expect((await s.request('PATCH', '/api/users/max', { body: { attributes: { team: 'yellow' } } })).status).toBe(200);
    expect(await rankings('laps-team', '?run=2026-03-09&userAttributes=team:green')).toEqual([]);
    await s.event('laps', 'other', 1);
    await s.event('laps', 'max', 0);
    const [[later]] = await deps.redis.xrevrange(deps.keys.forUser('_', 'max').log, '+', '-', 'COUNT', 1);
    await place(deps, '_', 'max', held, Date.parse('2026-03-09T10:00:00Z'), undefined, later);
    expect(await rankings('laps-team', '?run=2026-03-09&userAttributes=team:green')).toEqual([]);
    // The same placement as any other makes: Max back in green, the race the void closes.
    await place(deps, '_', 'max', held.map((p) => ({ ...p, membersOnly: false })), Date.parse('2026-03-09T10:00:00Z'), undefined, later);
    expect(await rankings('laps-team', '?run=2026-03-09&userAttributes=team:green')).toEqual([['max', 0]]);
  });
});

describe.each(targets())('a restore on %s', (target) => {
  it('repeats a void and a revoke', { timeout: 60_000 }, async () => {
    // No scheduled snapshot meanwhile (one after the events would leave the restore nothing to replay):
    // the first, due as the workers start, taken before them.
    let s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '168h' } });
    await s.workers!.testing.snapshotIdle();
    const { prefix } = s;
    try {
      await s.setClock('2026-03-02T10:00:00Z');
      await configure(s);
      await s.event('runs', 'ana', 2);
      const cheat = await s.event('runs', 'ana', 4);
      await s.event('runs', 'bo', 5);
      // A snapshot of the events: the restore replays what came after it, the void and the revoke.
      await s.workers!.testing.drainNow();
      await s.workers!.testing.snapshotNow(true);
      await s.setClock('2026-03-02T11:00:00Z');
      expect((await s.request('POST', '/admin/v1/events/void', { body: [{ eventId: cheat.eventId, reason: 'bot' }] })).body.voided).toHaveLength(1);
      expect((await s.request('DELETE', '/admin/v1/users/bo/achievements/run-5')).status).toBe(200);
      const restored = await restoreServer(s);
      s = restored.server;
      expect(restored.result).toMatchObject({ failed: 0, replayed: 2 });
      expect((await s.request('GET', '/api/users/ana/metrics/runs')).body.current).toBe(2);
      expect((await s.request('GET', '/api/users/ana/points/xp')).body.total).toBe(20);
      expect((await s.request('GET', '/api/users/ana/achievements')).body.map((a: { key: string }) => a.key)).toEqual(['run-5']);
      expect((await s.request('GET', '/api/users/bo/achievements')).body).toEqual([]);
      expect((await s.request('GET', '/api/achievements')).body.find((a: { key: string }) => a.key === 'run-5').completions).toBe(1);
      const board = await s.request('GET', '/api/leaderboards/runs-all');
      expect(board.body.rankings.map((r: Ranked) => [r.userId, r.value])).toEqual([['bo', 5], ['ana', 2]]);
      // The event stays voided.
      const again = await s.request('POST', '/admin/v1/events/void', { body: [{ eventId: cheat.eventId, reason: 'bot' }] });
      expect(again.body.issues).toEqual([expect.objectContaining({ severity: 'warning' })]);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
  it('repeats a void in the zone of the event, after the user moved to another', { timeout: 60_000 }, async () => {
    let s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '168h' } });
    const { prefix } = s;
    const reads = async () => {
      const out: Record<string, unknown> = {};
      for (const path of [
        '/api/leaderboards/laps-morning', '/api/leaderboards/xp-morning', '/api/leaderboards/xp-morning-daily?run=2026-03-02',
        '/api/users/kim/metrics/laps', '/api/users/kim/points/xp', '/api/users/kim',
        '/api/users/kim/leaderboards/laps-morning', '/api/users/kim/leaderboards/xp-morning',
      ]) {
        const r = await s.request('GET', path);
        expect(r.status, r.text).toBe(200);
        out[path] = r.body;
      }
      return out;
    };
    const ranked = (all: Record<string, unknown>, path: string) => (all[path] as { rankings: Ranked[] }).rankings.map((r) => [r.userId, r.value]);
    try {
      await s.setClock('2026-03-02T10:00:00Z');
      const ids = await s.metrics('laps');
      const xp = await s.request('POST', '/admin/v1/points', {
        body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.laps, metricThreshold: 1, points: 10, status: 'active' }] }],
      });
      expect(xp.status, xp.text).toBe(201);
      // Mornings (08:00 to 12:00 on the user's clock): of the metric, and of the points since the start and by day.
      const boards = await s.request('POST', '/admin/v1/leaderboards', {
        body: [
          { name: 'Mornings', key: 'laps-morning', status: 'active', rankBy: 'metric', metricId: ids.laps, maxParticipants: 10, start: '2026-03-01', startTime: '08:00', endTime: '12:00' },
          { name: 'XP mornings', key: 'xp-morning', status: 'active', rankBy: 'points', pointsSystemKey: 'xp', maxParticipants: 10, start: '2026-03-01', startTime: '08:00', endTime: '12:00' },
          { name: 'XP mornings by day', key: 'xp-morning-daily', status: 'active', rankBy: 'points', pointsSystemKey: 'xp', maxParticipants: 10, start: '2026-03-01', startTime: '08:00', endTime: '12:00', runUnit: 'day', runInterval: 1 },
        ],
      });
      expect(boards.status, boards.text).toBe(201);
      // 10:00 in London: a morning.
      const cheat = await s.event('laps', { id: 'kim', tz: 'Europe/London' }, 5);
      await s.event('laps', { id: 'lee', tz: 'Europe/London' }, 3);
      // At 20:00 UTC Kim lives in New York (15:00 there, the same day: no morning).
      await s.setClock('2026-03-02T20:00:00Z');
      await s.event('laps', { id: 'kim', tz: 'America/New_York' }, 1);
      // A snapshot with Kim in New York: the restore replays the void after it. 10:00 UTC was 05:00
      // in New York: a void read in the zone Kim has now would leave the mornings as they were.
      await s.workers!.testing.drainNow();
      await s.workers!.testing.snapshotNow(true);
      await s.setClock('2026-03-02T21:00:00Z');
      const r = await s.request('POST', '/admin/v1/events/void', { body: [{ eventId: cheat.eventId, reason: 'a bot' }] });
      expect(r.body.voided).toEqual([expect.objectContaining({ eventId: cheat.eventId, date: '2026-03-02', value: 5, total: 1, points: { xp: -50 } })]);
      const before = await reads();
      expect(ranked(before, '/api/leaderboards/laps-morning')).toEqual([['lee', 3], ['kim', 0]]);
      expect(ranked(before, '/api/leaderboards/xp-morning')).toEqual([['lee', 30], ['kim', 0]]);
      expect(ranked(before, '/api/leaderboards/xp-morning-daily?run=2026-03-02')).toEqual([['lee', 30], ['kim', 0]]);

      const restored = await restoreServer(s);
      s = restored.server;
      expect(restored.result).toMatchObject({ failed: 0, replayed: 1 });
      expect(await reads()).toEqual(before);
    } finally {
      await s.close();
      await deletePostgresRows(s.settings, [prefix]);
    }
  });
});
