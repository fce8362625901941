/**
 * A league's live topic (docs/live.md, "Topics"), with real sockets against the real api and
 * workers, on Redis and on the Cluster: `league:<key>` of a key scoped to a user carries the moves
 * of its own cohort (`leaderboard.rank_changed` with the rank in the cohort, `leaderboard.changed`
 * with the cohort's top), and follows the cohort of the run the user last joined; an account key
 * names the user (`league:<key>:<userId>`) and is refused the bare form; a key scoped to a user
 * receives no move of a cohort it is not in, whatever topic string it sends; an erased user's
 * league topics removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCreateOne, erasureDone } from '../support/admin.js';
import { leagueTopicId, leagueUserTopic } from '../../src/domain/live/topics.js';
import { deletePostgresRows, startTestServer, targets, type TestServer } from '../support/server.js';
import { liveUrl, openLive, type LiveClient, type LiveMessage } from '../support/live-client.js';

describe.each(targets())('a league\'s live topic on %s', (target) => {
  let s: TestServer;
  const open: LiveClient[] = [];
  /** Arrival order: the first five fill bronze-1, the next two open bronze-2. */
  const first = ['ann', 'bob', 'cat', 'dan', 'eve'];
  const second = ['fay', 'gus'];

  const userKey = async (userId: string): Promise<string> => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId }] });
    expect(r.status, r.text).toBe(201);
    return r.body.created[0].key as string;
  };
  const live = async (key: string) => {
    const c = await openLive(liveUrl(s.url, key));
    open.push(c);
    return c;
  };
  /** cat lives in Honolulu: her day (and run) ends ten hours after the others'. */
  const user = (id: string) => ({ id, name: `Player ${id}`, tz: id === 'cat' ? 'Pacific/Honolulu' : 'UTC' });
  const refused = async (c: LiveClient, topic: string) => {
    c.send({ subscribe: [topic] });
    return c.next((m) => m.error !== undefined);
  };
  const moves = (c: LiveClient, topic: string) => c.messages.filter((m) => m.topic === topic && m.type?.startsWith('leaderboard.'));

  beforeAll(async () => {
    s = await startTestServer({ target, clock: 'manual', workers: true });
    await s.setClock('2026-05-04T10:00:00Z');
    const { plays } = await s.metrics('plays');
    const daily = { rankBy: 'metric', metricId: plays, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1 };
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      ...daily, name: 'League', key: 'league',
      league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver', demote: 1 }] },
    });
    await adminCreateOne(s, '/admin/v1/leaderboards', { ...daily, name: 'Plain', key: 'plain' });
    for (const id of [...first, ...second]) await s.event('plays', user(id), 1);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await s?.close();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('sends a key scoped to a user the moves of its own cohort, and an account key those of the user it names', async () => {
    const ann = await live(await userKey('ann'));
    const fay = await live(await userKey('fay'));
    const admin = await live(s.adminKey);
    await ann.subscribe(['league:league']);
    await fay.subscribe(['league:league']);
    await admin.subscribe(['league:league:ann', 'league:league:fay']);

    // (The publisher, woken by the first subscription, may send the first events' moves too.)
    const rankChanged = (id: string, value: number) => (m: LiveMessage) => m.type === 'leaderboard.rank_changed' && m.data.user.id === id && m.data.leaderboard.value === value;
    await s.event('plays', user('bob'), 5);
    const bob = await ann.next(rankChanged('bob', 6));
    expect(bob.topic).toBe('league:league');
    expect(bob.data.user).toEqual({ id: 'bob', name: 'Player bob' });
    expect(bob.data.leaderboard).toMatchObject({ key: 'league', cohort: 'bronze-1', start: '2026-05-04', rank: 1, value: 6, previousRank: 2, previousValue: 1 });
    const top = await ann.next((m) => m.type === 'leaderboard.changed' && m.data.leaderboard.rankings[0].userId === 'bob');
    expect(top.data.leaderboard.cohort).toBe('bronze-1');
    expect(top.data.leaderboard.rankings.map((r: { userId: string }) => r.userId)).toEqual(['bob', 'ann', 'cat', 'dan', 'eve']);
    // The account key's topic names the user; the same messages.
    const forAnn = await admin.next((m) => m.topic === 'league:league:ann' && rankChanged('bob', 6)(m));
    expect(forAnn.data).toEqual(bob.data);

    await s.event('plays', user('gus'), 3);
    const gus = await fay.next(rankChanged('gus', 4));
    expect(gus.data.leaderboard).toMatchObject({ cohort: 'bronze-2', rank: 1, value: 4 });
    await admin.next((m) => m.topic === 'league:league:fay' && rankChanged('gus', 4)(m));
    // Each topic numbers its messages in order: bob's move, published before gus's event, came before it or not at all.
    const cohortOf = (ms: LiveMessage[]) => new Set(ms.map((m) => m.data.leaderboard.cohort));
    expect(cohortOf(moves(fay, 'league:league'))).toEqual(new Set(['bronze-2']));
    expect(cohortOf(moves(admin, 'league:league:fay'))).toEqual(new Set(['bronze-2']));
    expect(moves(ann, 'league:league').some((m) => m.data.leaderboard.cohort !== 'bronze-1')).toBe(false);
  });

  it('never sends a key scoped to a user a cohort it is not in, whatever topic it sends', async () => {
    const fay = await live(await userKey('fay'));
    expect(await refused(fay, 'league:league:ann')).toEqual({ error: expect.stringContaining('not for "ann"'), code: 'wrong_user', status: 403, topic: 'league:league:ann' });
    expect(await refused(fay, 'user:ann')).toMatchObject({ code: 'wrong_user', status: 403 });
    for (const bad of ['league:league\u0000ann', 'league:league:', 'league::ann', 'league:']) {
      expect(await refused(fay, bad)).toMatchObject({ code: 'invalid_body', status: 400 });
    }
    expect(await refused(fay, 'league:nope')).toMatchObject({ code: 'not_found', status: 404, topic: 'league:nope' });
    expect(await refused(fay, 'league:plain')).toEqual({ error: 'A league on the leaderboard "plain" not found', code: 'not_found', status: 404, topic: 'league:plain' });
    // Her own cohort, either way she names it.
    await fay.subscribe(['league:league', 'league:league:fay']);
    // An account key acts for no user: it names one.
    const admin = await live(s.adminKey);
    expect(await refused(admin, 'league:league')).toEqual({
      error: expect.stringContaining('"league:league:<userId>"'), code: 'invalid_body', status: 400, topic: 'league:league',
    });
    // Moves in bronze-1, then one in her own: her topics number their messages in order, so bronze-1's came before it or not at all.
    await s.event('plays', user('eve'), 20);
    await s.event('plays', user('dan'), 30);
    await s.event('plays', user('fay'), 40);
    for (const topic of ['league:league', 'league:league:fay']) {
      await fay.next((m) => m.topic === topic && m.type === 'leaderboard.rank_changed' && m.data.user.id === 'fay');
    }
    const seen = fay.messages.filter((m) => m.topic !== undefined && m.type?.startsWith('leaderboard.'));
    expect(seen.length).toBeGreaterThan(0);
    for (const m of seen) {
      expect(m.data.leaderboard.cohort).toBe('bronze-2');
      const named = [m.data.user?.id, ...(m.data.leaderboard.rankings ?? []).map((r: { userId: string }) => r.userId)].filter((u) => u !== undefined);
      expect(named.every((u: string) => second.includes(u)), JSON.stringify(m)).toBe(true);
    }
  });
  it('follows the cohort of the run the user last joined', async () => {
    const ann = await live(await userKey('ann'));
    const admin = await live(s.adminKey);
    await ann.subscribe(['league:league']);
    await admin.subscribe(['league:league:cat']);
    // 05:00 UTC on the 5th: the 5th for ann and dan, still the 4th in Honolulu.
    await s.setClock('2026-05-05T05:00:00Z');
    await s.event('plays', user('ann'), 1);
    // cat moves in the run of the 4th, the cohort ann held there: ann now follows the one of the 5th.
    await s.event('plays', user('cat'), 10);
    const cat = await admin.next((m) => m.type === 'leaderboard.rank_changed' && m.data.user.id === 'cat');
    expect(cat.data.leaderboard).toMatchObject({ cohort: 'bronze-1', start: '2026-05-04', value: 11 });
    await s.event('plays', user('dan'), 2);
    const dan = await ann.next((m) => m.type === 'leaderboard.rank_changed' && m.data.user.id === 'dan');
    expect(dan.data.leaderboard).toMatchObject({ cohort: 'bronze-1', start: '2026-05-05', rank: 1, value: 2, previousRank: null });
    // Nothing of the run of the 4th after ann joined the 5th's: cat's move went out before dan's event.
    expect(moves(ann, 'league:league').filter((m) => m.data.leaderboard.start === '2026-05-04')).toEqual([]);
  });


  it('takes the topics of the longest board key and user id', async () => {
    // A board's key has up to 100 characters, a user's id up to 255 (code points: an emoji is one).
    const key = 'k'.repeat(100);
    const id = '\u{1F600}'.repeat(255);
    const { laps } = await s.metrics('laps');
    await adminCreateOne(s, '/admin/v1/leaderboards', {
      rankBy: 'metric', metricId: laps, status: 'active', start: '2026-01-01', runUnit: 'day', runInterval: 1, name: 'Long', key,
      league: { cohortSize: 5, tiers: [{ key: 'bronze', name: 'Bronze', promote: 1 }, { key: 'silver', name: 'Silver', demote: 1 }] },
    });
    const own = await live(await userKey(id));
    const admin = await live(s.adminKey);
    const ownTopics = [`user:${id}`, `league:${key}`, `league:${key}:${id}`];
    await own.subscribe(ownTopics);
    await admin.subscribe([`user:${id}`, `league:${key}:${id}`]);
    await s.event('laps', { id, name: 'Long' }, 1);
    for (const [c, topics] of [[own, ownTopics], [admin, [`user:${id}`, `league:${key}:${id}`]]] as const) {
      for (const topic of topics) await c.next((m) => m.topic === topic && m.type === 'leaderboard.rank_changed' && m.data.user.id === id);
    }
    // A character more: another user's topic; past the longest form, no topic.
    expect(await refused(own, `user:${id}x`)).toMatchObject({ code: 'wrong_user', status: 403 });
    expect(await refused(own, `league:${key}:${id}x`)).toMatchObject({ code: 'invalid_body', status: 400 });
  });

  it('removes an erased user\'s league topics and their holds', async () => {
    const { redis, keys } = s.api.services;
    // gus follows his cohort both ways; his topics have messages.
    const gus = await live(await userKey('gus'));
    await gus.subscribe(['league:league', 'league:league:gus']);
    await s.event('plays', user('gus'), 7);
    for (const topic of ['league:league', 'league:league:gus']) await gus.next((m) => m.topic === topic && m.type === 'leaderboard.rank_changed');
    const topics = [leagueTopicId('league', 'gus'), leagueUserTopic('league', 'gus')].map((t) => keys.liveTopic('_', t));
    for (const t of topics) expect(await redis.exists(t.seq, t.history)).toBe(2);
    await gus.close();
    const erase = await s.request('DELETE', '/admin/v1/users/gus');
    expect(erase.status, erase.text).toBe(202);
    await erasureDone(s, erase.body.erasureId);
    // Counted by the pass that erased: one topic's name holds a NUL, which no snapshot's row can
    // (a pass that failed on it left the counts to a later one, which found nothing left).
    const record = await s.request('GET', `/admin/v1/erasures/${erase.body.erasureId}`);
    expect(record.body, record.text).toMatchObject({ status: 'done', archivedEntries: expect.any(Number) });
    expect(record.body.archivedEntries, record.text).toBeGreaterThan(0);
    expect(record.body.redisKeys, record.text).toBeGreaterThan(0);
    for (const t of topics) expect(await redis.exists(t.seq, t.history, t.want)).toBe(0);
    const held = await redis.zrange(keys.live.wanted, 0, -1);
    expect(held.filter((h) => h.endsWith('|gus') || h.endsWith('\u0000gus'))).toEqual([]);
  });
});
