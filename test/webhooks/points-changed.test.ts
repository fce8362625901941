/**
 * points.changed through the real server and workers, with the manual clock, on Redis and on the
 * Cluster (the windows are noted in each partition's slot: src/engine/webhooks/points-changed.ts):
 * one delivery a window with the latest of drain passes apart, two systems apart, none before the
 * window ends nor before the drain has gone past its end, never twice for a window noted again
 * after it was sent, and the next window's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('points.changed on %s', (target) => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  const work = async () => { await s.workers!.testing.drainNow(); return s.workers!.testing.webhooksNow(); };
  const bodies = () => hook.at('/windows').map((r) => JSON.parse(r.body) as { type: string; user: { id: string }; points: Record<string, unknown> });

  beforeAll(async () => {
    hook = await startReceiver();
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    await s.setClock('2027-01-05T10:00:00Z');
    const ids = await s.metrics('lessons');
    const points = await s.request('POST', '/admin/v1/points', { body: [
      { name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] },
      { name: 'Coins', key: 'coins', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 1, status: 'active' }] },
    ] });
    expect(points.status, points.text).toBe(201);
    const w = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Windows', url: hook.url('/windows'), events: ['points.changed'] }] });
    expect(w.status, w.text).toBe(201);
  });
  afterAll(async () => {
    await s?.close();
    await hook?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('sends one a window and system with the latest of passes apart, never twice for a window noted after it was sent', async () => {
    await s.event('lessons', 'win', 1);
    await s.event('lessons', 'other', 1);
    await work();
    await s.setClock('2027-01-05T10:07:00Z');
    await s.event('lessons', 'win', 1);
    await work();
    await s.setClock('2027-01-05T10:14:59Z');
    await work();
    expect(hook.at('/windows')).toEqual([]);
    await s.setClock('2027-01-05T10:15:00Z');
    await work();
    const sent = bodies().map((b) => [b.user.id, b.points.key, b.points.total, b.points.added]).sort();
    expect(sent).toEqual([['other', 'coins', 1, 1], ['other', 'xp', 10, 10], ['win', 'coins', 2, 1], ['win', 'xp', 20, 10]]);
    expect(bodies().every((b) => b.type === 'points.changed')).toBe(true);
    // An entry of that window drained once its delivery was sent (here: the service's clock set back): not sent again.
    await s.setClock('2027-01-05T10:14:00Z');
    await s.event('lessons', 'win', 1);
    await s.setClock('2027-01-05T10:15:00Z');
    await work();
    expect(bodies()).toHaveLength(4);
    // The next window sends again, with the latest totals.
    await s.setClock('2027-01-05T10:20:00Z');
    await s.event('lessons', 'win', 1);
    await s.setClock('2027-01-05T10:30:00Z');
    await work();
    expect(bodies().slice(4).map((b) => [b.user.id, b.points.key, b.points.total]).sort()).toEqual([['win', 'coins', 4], ['win', 'xp', 40]]);
    expect(new Set(hook.at('/windows').map((r) => r.headers['webhook-id'])).size).toBe(6);
  });

  it('takes a window once the drain has gone past its end: an award of its last second is in the delivery', async () => {
    await s.setClock('2027-01-05T10:40:00Z');
    await s.event('lessons', 'late', 1);
    await work();
    await s.setClock('2027-01-05T10:44:59Z');
    await s.event('lessons', 'late', 1);
    // The window has ended and the sender passes before the drain has read the award.
    await s.setClock('2027-01-05T10:45:00Z');
    await s.workers!.testing.webhooksNow();
    await work();
    const late = bodies().filter((b) => b.user.id === 'late').map((b) => [b.points.key, b.points.total]).sort();
    expect(late).toEqual([['coins', 2], ['xp', 20]]);
  });
});
