/**
 * The user directory and the analytics rollups for returning users (src/postgres/analytics/known-users.ts),
 * on single Redis and the Cluster with the workers running: a user's later events of a day, which
 * the drain rolls up without reading their row, count as events and leave the user active once;
 * an identification of a known user still reaches the directory; a user erased and back the same
 * day is in the directory again (their row's deletion makes the drainer forget what it knew); a
 * known user's first event of the next day moves their last active day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsView } from '../../src/model/views.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

interface Listed {
  users: { id: string; email: string | null; firstSeen: string; lastActive: string | null }[];
}

describe.each(targets())('returning users in the directory (%s)', (target) => {
  let s: TestServer;
  beforeAll(async () => { s = await startTestServer({ target, clock: 'manual', workers: true }); });
  afterAll(async () => {
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
    await s?.close();
  });

  const listed = async (idPrefix: string) => {
    const r = await s.request<Listed>('GET', `/admin/v1/users?idPrefix=${idPrefix}`);
    expect(r.status, r.text).toBe(200);
    return r.body.users;
  };
  const day = async (date: string) => {
    const r = await s.request<AnalyticsView>('GET', `/admin/v1/analytics?from=${date}&to=${date}`);
    expect(r.status, r.text).toBe(200);
    return r.body.days[0];
  };

  it('rolls up repeat events, identifications, an erasure and the next day', { timeout: 120_000 }, async () => {
    const tag = s.prefix.slice(1, 7);
    const ada = `ada-${tag}`;
    const bo = `bo-${tag}`;
    await s.setClock('2026-03-02T08:00:00Z');
    await s.metrics('lessons');
    await s.event('lessons', { id: ada, email: 'ada@example.com' }, 1);
    await s.event('lessons', bo, 1);
    await s.workers!.testing.drainNow();
    expect((await listed(ada)).map((u) => [u.id, u.lastActive])).toEqual([[ada, '2026-03-02']]);

    // Their later events of the day, each drained apart: events counted, each user active once.
    for (let i = 0; i < 3; i++) {
      await s.event('lessons', ada, 1);
      await s.event('lessons', bo, 1);
      await s.workers!.testing.drainNow();
    }
    expect(await day('2026-03-02')).toMatchObject({ events: 8, activeUsers: 2, newUsers: 2 });
    // An identification of a known user, the same day, reaches the directory.
    await s.event('lessons', { id: bo, email: 'bo@example.com' }, 1);
    await s.workers!.testing.drainNow();
    expect((await listed(bo)).map((u) => u.email)).toEqual(['bo@example.com']);

    // Erased, then back the same day: in the directory again, as a user first seen now.
    const erase = await s.request('DELETE', `/admin/v1/users/${ada}`);
    expect(erase.status, erase.text).toBe(202);
    const { erasureId } = erase.body as { erasureId: string };
    await expect.poll(async () => {
      await s.workers!.testing.drainNow();
      await s.workers!.testing.erasuresNow();
      return (await s.request('GET', `/admin/v1/erasures/${erasureId}`)).body.status;
    }, { timeout: 20_000 }).toBe('done');
    expect(await listed(ada)).toEqual([]);
    await s.setClock('2026-03-02T09:00:00Z');
    await s.event('lessons', ada, 1);
    await s.workers!.testing.drainNow();
    expect((await listed(ada)).map((u) => [u.id, u.email, u.firstSeen, u.lastActive]))
      .toEqual([[ada, null, '2026-03-02T09:00:00.000Z', '2026-03-02']]);

    // The next day's first event of a known user moves their last active day.
    await s.setClock('2026-03-03T08:00:00Z');
    await s.event('lessons', bo, 1);
    await s.workers!.testing.drainNow();
    expect((await listed(bo)).map((u) => u.lastActive)).toEqual(['2026-03-03']);
    expect(await day('2026-03-03')).toMatchObject({ events: 1, activeUsers: 1, newUsers: 0 });
  });
});
