/**
 * What an erasure leaves to the work queued before it (docs/api.md, "Erasing a user"), on single
 * Redis and on the Cluster with the manual clock: a batch item for the user accepted before their
 * erasure and applied after it is dropped (the user stays gone, the batch's progress says why),
 * while one accepted after it makes a new user; the erasure is `done` only once no such item is
 * left. A new user of the same id, made while the erasure was pending, keeps their places (a board
 * without a cap, a league's cohort, the streak rankings) once it is done. A finished run's winners
 * below an erased winner move up, as its rankings do, also those a finalisation wrote after the
 * erasure was asked for, from rankings that still held the user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers } from '../../workers/index.js';
import { recordFinalised } from '../../src/engine/leaderboards/finalised.js';
import { redisTraces } from '../support/traces.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

const log = createLogger('silent');

describe.each(targets())('an erasure and the work queued before it, on %s', (target) => {
  let s: TestServer;

  const erasureStatus = async (id: string) => (await s.request('GET', `/admin/v1/erasures/${id}`)).body.status as string;
  /** The workers' passes, until the erasure is done. */
  const finished = async (id: string) => {
    await expect.poll(async () => {
      await s.workers!.testing.batchesNow();
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return erasureStatus(id);
    }, { timeout: 30_000 }).toBe('done');
  };

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-04-01T10:00:00Z');
    const ids = await s.metrics('lessons');
    const streak = await s.request('PUT', '/admin/v1/streaks/settings', { body: { frequency: 'daily', metrics: [{ metricId: ids.lessons, threshold: 1 }] } });
    expect(streak.status, streak.text).toBe(200);
    const boards = await s.request('POST', '/admin/v1/leaderboards', {
      body: [
        { name: 'Everyone', key: 'everyone', status: 'active', rankBy: 'metric', metricId: ids.lessons, maxParticipants: null },
        {
          name: 'League', key: 'league', status: 'active', rankBy: 'metric', metricId: ids.lessons, runUnit: 'day', runInterval: 1,
          league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1, demote: 0 }, { key: 'silver', name: 'Silver', promote: 0, demote: 1 }] },
        },
      ],
    });
    expect(boards.status, boards.text).toBe(201);
  });
  afterAll(async () => {
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('drops a batch item accepted before the erasure, and applies one accepted after it', { timeout: 60_000 }, async () => {
    await s.event('lessons', { id: 'vera', email: 'vera@example.com', name: 'Vera' }, 1);
    // The workers away: the batch waits in its queue, accepted (processed: 0).
    await s.workers!.close();
    s.workers = null;
    const before = await s.request('POST', '/admin/v1/metrics/events', {
      body: [
        { key: 'lessons', user: { id: 'vera', email: 'vera@example.com', name: 'Vera', attributes: {} }, value: 1 },
        { key: 'lessons', user: { id: 'bystander' }, value: 1 },
      ],
    });
    expect(before.status, before.text).toBe(202);
    const erase = await s.request('DELETE', '/admin/v1/users/vera');
    expect(erase.status, erase.text).toBe(202);
    const after = await s.request('POST', '/admin/v1/metrics/events', { body: [{ key: 'lessons', user: { id: 'vera' }, value: 7 }] });
    expect(after.status, after.text).toBe(202);
    s.workers = await startWorkers(s.settings, log, s.api.services);
    await finished(erase.body.erasureId);
    // The item of before is dropped (said so in its batch's progress); the one of after made a new Vera.
    const progress = (await s.request('GET', `/admin/v1/metrics/events/${before.body.batchId}`)).body;
    expect(progress).toMatchObject({ accepted: 2, processed: 1, failed: 1 });
    expect(progress.issues).toEqual([{ index: 0, message: expect.stringMatching(/erased/) }]);
    expect((await s.request('GET', `/admin/v1/metrics/events/${after.body.batchId}`)).body).toMatchObject({ processed: 1, failed: 0 });
    const vera = await s.request('GET', '/api/users/vera');
    expect(vera.status, vera.text).toBe(200);
    expect(vera.body).toMatchObject({ email: null, name: null });
    expect((await s.request('GET', '/api/users/vera/metrics/lessons')).body.current).toBe(7);
    expect((await s.request('GET', '/api/users/bystander/metrics/lessons')).body.current).toBe(1);
  });

  it('leaves a new user of the id made while the erasure was pending their places', { timeout: 60_000 }, async () => {
    await s.event('lessons', 'rex', 5);
    for (const id of ['a1', 'a2']) await s.event('lessons', id, 2);
    // The erasure's pass waits for the archive: the new Rex plays before it runs.
    await s.workers!.close();
    s.workers = null;
    const erase = await s.request('DELETE', '/admin/v1/users/rex');
    expect(erase.status, erase.text).toBe(202);
    await s.event('lessons', 'rex', 1);
    s.workers = await startWorkers(s.settings, log, s.api.services);
    await finished(erase.body.erasureId);
    const place = await s.request('GET', '/api/users/rex/leaderboards/everyone');
    expect(place.body).toMatchObject({ rank: expect.any(Number), value: 1 });
    const league = await s.request('GET', '/api/users/rex/leagues/league');
    expect(league.body).toMatchObject({ value: 1, rank: expect.any(Number) });
    const streaks = (await s.request('GET', '/api/streaks/rankings?limit=100')).body as { userId: string }[];
    expect(streaks.map((r) => r.userId)).toContain('rex');
  });

  it('moves the winners below an erased winner up, as the run\'s rankings do', { timeout: 60_000 }, async () => {
    const ids = await s.metrics('sprints');
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Sprints', key: 'sprints-day', status: 'active', rankBy: 'metric', metricId: ids.sprints, maxParticipants: 10, runUnit: 'day', runInterval: 1 }],
    });
    expect(board.status, board.text).toBe(201);
    await s.setClock('2026-04-10T12:00:00Z');
    for (const [id, value] of [['w1', 5], ['w2', 3], ['w3', 2], ['w4', 1]] as const) await s.event('sprints', id, value);
    await s.setClock('2026-04-12T00:00:00Z');
    await s.workers!.testing.finaliseNow();
    const read = async () => (await s.request('GET', '/api/leaderboards/sprints-day?run=2026-04-10')).body;
    expect((await read()).winners.map((w: { userId: string; rank: number }) => [w.userId, w.rank])).toEqual([['w1', 1], ['w2', 2], ['w3', 3]]);
    const erase = await s.request('DELETE', '/admin/v1/users/w2');
    expect(erase.status, erase.text).toBe(202);
    await finished(erase.body.erasureId);
    const after = await read();
    expect(after.rankings.map((r: { userId: string; rank: number }) => [r.userId, r.rank])).toEqual([['w1', 1], ['w3', 2], ['w4', 3]]);
    expect(after.winners.map((w: { userId: string; rank: number }) => [w.userId, w.rank])).toEqual([['w1', 1], ['w3', 2]]);
  });

  it('takes an erased user off the winners a finalisation wrote from rankings that still held them', { timeout: 60_000 }, async () => {
    const ids = await s.metrics('relays');
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Relays', key: 'relays-day', status: 'active', rankBy: 'metric', metricId: ids.relays, maxParticipants: 10, runUnit: 'day', runInterval: 1 }],
    });
    expect(board.status, board.text).toBe(201);
    await s.setClock('2026-04-20T12:00:00Z');
    for (const [id, value] of [['f1', 5], ['f2', 3]] as const) await s.event('relays', id, value);
    await s.workers!.close();
    s.workers = null;
    await s.setClock('2026-04-22T00:00:00Z');
    // A finalisation under way holds the rankings' lease: it read them (f1 first) before the
    // erasure was asked for, and writes its winners after.
    const svc = s.api.services;
    // (Without an expiry: a slow machine must not see it lapse; the test frees it.)
    await svc.redis.set(svc.keys.rankingsLease, 'a finalisation');
    const erase = await s.request('DELETE', '/admin/v1/users/f1');
    expect(erase.status, erase.text).toBe(202);
    await recordFinalised(svc, {
      t: '_', ts: Date.parse('2026-04-22T00:00:00Z'), b: board.body.created[0].id, r: '2026-04-20', at: '2026-04-21T12:00:00.000Z',
      w: { '': [{ userId: 'f1', rank: 1, value: 5 }, { userId: 'f2', rank: 2, value: 3 }] },
    });
    s.workers = await startWorkers(s.settings, log, s.api.services);
    // The erasure waits while the lease is held.
    for (let i = 0; i < 3; i++) {
      await s.workers.testing.drainNow();
      await s.workers.testing.erasuresNow();
    }
    expect(await erasureStatus(erase.body.erasureId)).toBe('pending');
    await svc.redis.del(svc.keys.rankingsLease);
    await finished(erase.body.erasureId);
    const read = async () => (await s.request('GET', '/api/leaderboards/relays-day?run=2026-04-20')).body;
    expect((await read()).winners.map((w: { userId: string; rank: number }) => [w.userId, w.rank])).toEqual([['f2', 1]]);
    // Nor does the finalisation's entry in the logs name them.
    const traces = await redisTraces(svc.redis, s.prefix, ['"f1"']);
    expect(traces, traces.join('\n')).toEqual([]);
  });
});
