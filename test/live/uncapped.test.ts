/**
 * Live moves below an uncapped board's first 1,000 (docs/live.md, "Topics"), on Redis and on the
 * Cluster: 1,100 users placed through the batch events, then a user ranked past 1,000 moves and
 * their own topic gets `leaderboard.rank_changed` with their exact rank, as the REST read shows it;
 * the board's topic carries moves within its first 1,000 only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, batchApplied } from '../support/admin.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { liveUrl, openLive, type LiveClient } from '../support/live-client.js';

const USERS = 1100;
/** User i (0-based) plays i + 1 times: rank USERS - i. */
const id = (i: number) => `u${String(i).padStart(4, '0')}`;

describe.each(targets())('live moves below an uncapped board\'s first 1,000 on %s', (target) => {
  let s: TestServer;
  const open: LiveClient[] = [];

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    await adminCreateOne(s, '/admin/v1/leaderboards', { name: 'Open', key: 'open', rankBy: 'metric', metricId: plays, maxParticipants: null, status: 'active', start: '2026-01-01' });
    const items = Array.from({ length: USERS }, (_, i) => ({ key: 'plays', user: { id: id(i), name: `Player ${i}` }, value: i + 1 }));
    await batchApplied(s, items, 550);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  const rankOn = async (userId: string) => {
    const r = await s.request('GET', `/v1/users/${userId}/leaderboards/open`);
    expect(r.status, r.text).toBe(200);
    return r.body.rank as number;
  };

  it('sends a user ranked past 1,000 their own moves with their exact rank', async () => {
    const low = id(50);
    expect(await rankOn(low)).toBe(1050);
    const key = (await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: low }] })).body.created[0].key as string;
    const own = await openLive(liveUrl(s.url, key));
    const board = await openLive(liveUrl(s.url, s.adminKey));
    open.push(own, board);
    await own.subscribe([`user:${low}`]);
    await board.subscribe(['leaderboard:open']);

    await s.event('plays', low, 10);
    const rank = await rankOn(low);
    expect(rank).toBeGreaterThan(1000);
    // (The publisher, woken by the subscription, may first send the batch's placement of the user.)
    const moved = await own.next((m) => m.type === 'leaderboard.rank_changed' && m.data.leaderboard.value === 61);
    expect(moved.data.leaderboard).toMatchObject({ key: 'open', uncapped: true, rank, value: 61, previousRank: 1050, previousValue: 51 });
    expect(moved.data.user.id).toBe(low);

    // A second move, again below 1,000: the place before is the one just sent.
    await s.event('plays', low, 5);
    const again = await own.next((m) => m.type === 'leaderboard.rank_changed' && m.data.leaderboard.value === 66);
    expect(again.data.leaderboard).toMatchObject({ rank: await rankOn(low), value: 66, previousRank: rank, previousValue: 61 });

    // One into the first 1,000: its own topic and the board's.
    await s.event('plays', id(1), 2000);
    await board.next((m) => m.type === 'leaderboard.rank_changed' && m.data.user.id === id(1));
    // The board's topic carries moves within its first 1,000: the low user's came before the top one's, or not at all.
    expect(board.messages.some((m) => m.type === 'leaderboard.rank_changed' && m.data.user.id === low && m.data.leaderboard.value > 51)).toBe(false);
  });
});
