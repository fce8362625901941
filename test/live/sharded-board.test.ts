/**
 * A sharded board's live topic (docs/live.md, "Topics"), on Redis and on the Cluster: a board of 3
 * shards and one of 1 fed the same events, one at a time; each event's `leaderboard.rank_changed`
 * (the mover's rank and value before and after, the whole run's) and `leaderboard.changed` (the
 * top 10) are the same on both topics, in the same order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { liveUrl, openLive, type LiveClient, type LiveMessage } from '../support/live-client.js';

/** Users, and the events: [user, value], moving users past each other and tying with them. */
const PLAYS: [string, number][] = [
  ['p0', 3], ['p1', 5], ['p2', 1], ['p3', 4], ['p4', 2], ['p5', 3], ['p6', 7], ['p7', 1],
  ['p2', 4], ['p0', 2], ['p7', 9], ['p4', 3], ['p5', 2], ['p3', 5], ['p1', 1], ['p6', 1],
];

describe.each(targets())('a sharded board\'s live topic on %s', (target) => {
  let s: TestServer;
  let live: LiveClient;

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    const common = { status: 'active', start: '2026-01-01', rankBy: 'metric', metricId: plays, maxParticipants: null };
    await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, name: 'One', key: 'one' });
    await adminCreateOne(s, '/admin/v1/leaderboards', { ...common, name: 'Three', key: 'three', shards: 3 });
    live = await openLive(liveUrl(s.url, s.adminKey));
    await live.subscribe(['leaderboard:one', 'leaderboard:three']);
  }, 60_000);
  afterAll(async () => {
    await live?.close();
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  /** A message without what names its board. */
  const content = (m: LiveMessage) => {
    const { key, name, id, ...leaderboard } = m.data.leaderboard as Record<string, unknown>;
    expect(key).toBe(m.topic!.slice('leaderboard:'.length));
    expect([name, typeof id]).toEqual([key === 'one' ? 'One' : 'Three', 'string']);
    return { type: m.type, ...m.data, leaderboard };
  };

  it('sends the same moves and top 10 on both', async () => {
    const got: Record<string, unknown[]> = { one: [], three: [] };
    const totals = new Map<string, number>();
    for (const [user, value] of PLAYS) {
      await s.event('plays', { id: user, name: `Player ${user}` }, value);
      const total = (totals.get(user) ?? 0) + value;
      totals.set(user, total);
      for (const key of ['one', 'three']) {
        const topic = `leaderboard:${key}`;
        const moved = await live.next((m) => m.topic === topic && m.type === 'leaderboard.rank_changed' && m.data.user.id === user && m.data.leaderboard.value === total);
        const top = await live.next((m) => m.topic === topic && m.type === 'leaderboard.changed'
          && (m.data.leaderboard.rankings as { userId: string; value: number }[]).some((r) => r.userId === user && r.value === total));
        got[key].push(content(moved), content(top));
      }
    }
    expect(got.three).toEqual(got.one);
    // Nothing else was sent on either: no move twice, none of a user who did not move.
    const rest = live.messages.filter((m) => m.topic?.startsWith('leaderboard:') && m.type !== 'subscribed');
    expect(rest).toHaveLength(PLAYS.length * 4);
  });
});
