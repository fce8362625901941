/**
 * The live publisher while no socket wants anything: it reads no log entry (an installation
 * without live sockets pays nothing for them), and once a socket subscribes, the changes of the
 * events that follow reach it; what happened while nobody listened is not sent. A topic whose last
 * socket left is let go LAUREL_LIVE_LINGER seconds later (1 here): the publisher stops reading, and
 * a client that resumes after that gets a `resync` first. A board followed again after a quiet
 * spell sends the moves that follow, not everyone placed meanwhile as a newcomer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopedTopic } from '../../src/engine/live/topic-store.js';
import { adminCreate } from '../support/admin.js';
import { liveUrl, openLive, type LiveClient } from '../support/live-client.js';
import { startTestServer, targets, type TestServer } from '../support/server.js';

describe.each(targets())('the live publisher with no socket on %s', (target) => {
  let s: TestServer;
  let c: LiveClient | null = null;
  let url = '';

  beforeAll(async () => {
    s = await startTestServer({ target, workers: true, env: { LAUREL_LIVE_LINGER: '1' } });
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
    url = liveUrl(s.url, key.body.created[0].key as string);
    c = await openLive(url);
    await c.subscribe(['user:ann']);
    await s.event('lessons', 'ann', 1);
    const done = await c.next((m) => m.type === 'achievement.completed', 5000);
    expect(done).toMatchObject({ topic: 'user:ann', data: { achievement: { key: 'two' }, user: { id: 'ann' } } });
    expect(s.workers!.live.stats.read).toBeGreaterThan(0);
  });

  it('lets a topic go once its last socket has been gone LAUREL_LIVE_LINGER, and a resume after that starts with a resync', async () => {
    const last = Math.max(...c!.messages.filter((m) => m.topic === 'user:ann' && typeof m.seq === 'number').map((m) => m.seq!));
    await c!.close();
    c = null;
    // Still wanted at first (a client reconnecting within the linger resumes without a resync).
    expect(s.workers!.live.interest.any()).toBe(true);
    await expect.poll(() => s.workers!.live.interest.any(), { timeout: 10_000 }).toBe(false);
    // An event nobody holds the topic of: not read (once the blocking read under way, 500 ms at most, has ended).
    await new Promise((r) => setTimeout(r, 800));
    const read = s.workers!.live.stats.read;
    await s.event('lessons', 'ann', 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.workers!.live.stats.read).toBe(read);

    c = await openLive(url);
    c.send({ subscribe: ['user:ann'], since: { 'user:ann': last } });
    expect((await c.next((m) => m.topic === 'user:ann', 5000)).type).toBe('resync');
  });

  it('sends, after a quiet spell, the moves that follow it, not those made while nobody listened', async () => {
    await c?.close();
    c = null;
    const lessons = (await s.request('GET', '/admin/v1/metrics')).body.find((m: { key: string }) => m.key === 'lessons').id;
    await adminCreate(s, '/admin/v1/leaderboards', [{ name: 'Quiet', key: 'quiet', rankBy: 'metric', metricId: lessons, status: 'active' } as never]);
    await expect.poll(() => s.workers!.live.interest.any(), { timeout: 10_000 }).toBe(false);
    // Placed while nobody listens, more than the publisher's catch-up window (5 s) before anyone does again.
    for (const [user, value] of [['q1', 5], ['q2', 4], ['q3', 3], ['q4', 2]] as const) await s.event('lessons', user, value);
    await new Promise((r) => setTimeout(r, 5500));
    c = await openLive(url);
    await c.subscribe(['leaderboard:quiet']);
    // The subscription reaches the workers' interest by a message of its own, after the answer.
    await expect.poll(() => s.workers!.live.interest.has(scopedTopic('_', 'leaderboard:quiet')), { timeout: 10_000 }).toBe(true);
    await s.event('lessons', 'q4', 10);
    const moved = await c.next((m) => m.type === 'leaderboard.rank_changed', 5000);
    expect(moved.data).toMatchObject({ user: { id: 'q4' }, leaderboard: { key: 'quiet', rank: 1, previousRank: 4, value: 12, previousValue: 2 } });
    // Those placed during the quiet spell are not sent as newcomers: one more move, and only it follows
    // (q3 was fourth once q4 passed them).
    await s.event('lessons', 'q3', 10);
    const next = await c.next((m) => m.type === 'leaderboard.rank_changed' && m !== moved, 5000);
    expect(next.data).toMatchObject({ user: { id: 'q3' }, leaderboard: { rank: 1, previousRank: 4, previousValue: 3 } });
    expect(c.messages.filter((m) => m.type === 'leaderboard.rank_changed').map((m) => (m.data as { user: { id: string } }).user.id)).toEqual(['q4', 'q3']);
  });
});
