/**
 * What an erasure leaves to the work queued before it (docs/api.md, "Erasing a user"), on single
 * Redis and on the Cluster with the manual clock: a batch item for the user accepted before their
 * erasure and applied after it is dropped (the user stays gone, the batch's progress says why),
 * while one accepted after it makes a new user; the erasure is `done` only once no such item is
 * left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers } from '../../workers/index.js';
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
});
