/**
 * The live publisher while no socket wants anything: it reads no log entry (an installation
 * without live sockets pays nothing for them), and once a socket subscribes, the changes of the
 * events that follow reach it; what happened while nobody listened is not sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreate } from '../support/admin.js';
import { liveUrl, openLive, type LiveClient } from '../support/live-client.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('the live publisher with no socket on %s', (target) => {
  let s: TestServer;
  let c: LiveClient | null = null;

  beforeAll(async () => {
    s = await startTestServer({ target, workers: true });
    const ids = await s.metrics('lessons');
    await adminCreate(s, '/admin/v1/achievements', [
      { name: 'Two lessons', key: 'two', trigger: 'metric', metricId: ids.lessons, metricValue: 2 } as never,
    ]);
  });
  afterAll(async () => {
    await c?.close();
    await s?.close();
  });

  it('reads nothing until a topic is wanted, then sends what follows', async () => {
    await expect.poll(() => s.workers!.live.stats.holding, { timeout: 15_000 }).toBe(true);
    // Events nobody listens for: a user's first lesson, another user's two.
    await s.event('lessons', 'ann', 1);
    await s.event('lessons', 'bo', 1);
    await s.event('lessons', 'bo', 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.workers!.live.stats).toMatchObject({ read: 0, published: 0 });

    const key = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'ann' }] });
    expect(key.status, key.text).toBe(201);
    c = await openLive(liveUrl(s.url, key.body.created[0].key as string));
    await c.subscribe(['user:ann']);
    await s.event('lessons', 'ann', 1);
    const done = await c.next((m) => m.type === 'achievement.completed', 5000);
    expect(done).toMatchObject({ topic: 'user:ann', data: { achievement: { key: 'two' }, user: { id: 'ann' } } });
    expect(s.workers!.live.stats.read).toBeGreaterThan(0);
  });
});
