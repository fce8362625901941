/**
 * Live updates over WebSocket (docs/live.md), with real sockets (undici's
 * WebSocket) against the real api and workers, on Redis and on the Cluster: the upgrade refused
 * with the JSON error body; a key scoped to a user receiving its own achievement, streak and
 * points, and refused another user's topic; a board's subscribers receiving rank changes; a
 * resume after a disconnect with nothing missed, and a resync when the history cannot tell;
 * a subscriber on one api process and the event on another; bad messages answered with
 * `{ error, code }` while the socket and the server carry on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets, type TestServer } from '../support/server.js';
import { adminCreate } from '../support/admin.js';
import { liveUrl, openLive, refusal, type LiveClient } from '../support/live-client.js';
import { holdOf, ringOf } from '../../src/engine/live/interest.js';
import { publish, scopedTopic } from '../../src/engine/live/topic-store.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';

describe.each(targets())('live updates on %s', (target) => {
  let s: TestServer;
  /** A second api process (in this process) on the same Redis and prefix, without workers. */
  let other: TestServer;
  const open: LiveClient[] = [];
  let ids: Record<string, string> = {};

  const live = async (key: string, server: TestServer = s, tenant?: string) => {
    const c = await openLive(liveUrl(server.url, key, tenant));
    open.push(c);
    return c;
  };
  const userKey = async (userId: string): Promise<string> => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId }] });
    expect(r.status, r.text).toBe(201);
    return r.body.created[0].key as string;
  };

  beforeAll(async () => {
    s = await startTestServer({ target, workers: true });
    other = await startTestServer({ target, env: { LAUREL_PREFIX: s.prefix, LAUREL_ADMIN_KEY: s.adminKey } });
    ids = await s.metrics('lessons');
    ids = { ...ids, ...await adminCreate(s, '/admin/v1/achievements', [
      { name: 'First lesson', key: 'first', trigger: 'metric', metricId: ids.lessons, metricValue: 1 } as never,
      { name: 'Three lessons', key: 'three', trigger: 'metric', metricId: ids.lessons, metricValue: 3 } as never,
    ]) };
    const points = await s.request('POST', '/admin/v1/points', {
      body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: ids.lessons, metricThreshold: 1, points: 10, status: 'active' }] }],
    });
    expect(points.status, points.text).toBe(201);
    const board = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Top', key: 'top', rankBy: 'metric', metricKey: 'lessons', status: 'active', start: '2020-01-01' }],
    });
    expect(board.status, board.text).toBe(201);
    const t = await s.request('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] });
    expect(t.status, t.text).toBe(201);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await other?.close();
    await s?.close();
  });

  it('refuses an upgrade without a good key with its status and the JSON error body; takes the key from ?key= or X-API-KEY', async () => {
    expect(await refusal(s.url, '/v1/live')).toEqual({ status: 401, body: { error: expect.stringContaining('API key'), code: 'unauthorized' } });
    expect(await refusal(s.url, '/v1/live?key=nope')).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await refusal(s.url, `/v1/live?key=${s.adminKey}&tenant=nobody`)).toMatchObject({ status: 404, body: { code: 'tenant_not_found' } });
    // An empty tenant, as an empty Tenant-ID header: refused, never the default tenant.
    expect(await refusal(s.url, `/v1/live?key=${s.adminKey}&tenant=`)).toMatchObject({ status: 400, body: { code: 'invalid_query' } });
    const ada = await userKey('ada');
    // A key scoped to a user is bound to its user's tenant.
    expect(await refusal(s.url, `/v1/live?key=${encodeURIComponent(ada)}&tenant=acme`)).toMatchObject({ status: 403, body: { code: 'wrong_tenant' } });
    expect(await refusal(s.url, `/api/live?key=${encodeURIComponent(ada)}`)).toEqual({ status: 101, body: null });
    expect(await refusal(s.url, '/v1/live', { 'x-api-key': s.adminKey })).toEqual({ status: 101, body: null });
    // Not an upgrade: 426 once the key is good.
    const plain = await s.request('GET', '/v1/live');
    expect(plain.status).toBe(426);
    expect(plain.body).toMatchObject({ code: 'upgrade_required' });
    expect((await s.request('GET', '/v1/live', { key: null })).status).toBe(401);
  });

  it('sends a key scoped to a user its own achievement, streak and points as they happen, and refuses it another user\'s topic', async () => {
    const c = await live(await userKey('bea'));
    c.send({ subscribe: ['user:someone-else'] });
    expect(await c.next((m) => m.error !== undefined)).toEqual({
      error: expect.stringContaining('acts for one user only'), code: 'wrong_user', status: 403, topic: 'user:someone-else',
    });
    const { 'user:bea': start } = await c.subscribe(['user:bea']);
    expect(start).toBeGreaterThan(0);
    const answered = await s.event('lessons', 'bea', 1);
    expect(answered.achievements.map((a: { key: string }) => a.key)).toEqual(['first']);
    const done = await c.next((m) => m.type === 'achievement.completed');
    expect(done).toEqual({
      topic: 'user:bea', seq: expect.any(Number), type: 'achievement.completed',
      data: { user: expect.objectContaining({ id: 'bea' }), achievement: expect.objectContaining({ key: 'first', achievedAt: expect.any(String) }) },
    });
    const points = await c.next((m) => m.type === 'points.changed');
    expect(points.data.points).toMatchObject({ key: 'xp', total: 10, added: 10 });
    const rank = await c.next((m) => m.type === 'leaderboard.rank_changed');
    expect(rank.data.leaderboard).toMatchObject({ key: 'top', rank: expect.any(Number), value: 1, previousRank: null, previousValue: null });
    // Numbered one after another from the subscription on.
    // (A message numbered at or below the subscription's may come again: a client skips it, docs/live.md.)
    const seqs = c.messages.filter((m) => m.topic === 'user:bea' && m.seq! > start && m.type !== 'subscribed').map((m) => m.seq!);
    expect(seqs).toEqual(seqs.map((_, i) => start + 1 + i));
    // Nothing of another user's.
    await s.event('lessons', 'someone-else', 1);
    await s.event('lessons', 'bea', 1);
    await c.next((m) => m.type === 'points.changed' && m.data.points.total === 20);
    expect(c.messages.some((m) => JSON.stringify(m).includes('someone-else') && m.type !== undefined)).toBe(false);
  });

  it('sends a board\'s subscribers its rank changes and its new top 10', async () => {
    const watchers = [await live(s.adminKey), await live(await userKey('watcher'))];
    for (const w of watchers) await w.subscribe(['leaderboard:top']);
    await s.event('lessons', 'cy', 5);
    for (const w of watchers) {
      const m = await w.next((x) => x.type === 'leaderboard.rank_changed' && x.data.user.id === 'cy');
      expect(m).toMatchObject({ topic: 'leaderboard:top', data: { leaderboard: { key: 'top', rank: 1, value: 5, previousRank: null, previousValue: null } } });
      const top = await w.next((x) => x.type === 'leaderboard.changed' && x.data.leaderboard.rankings[0]?.userId === 'cy');
      expect(top.data.leaderboard.rankings[0]).toEqual({ userId: 'cy', rank: 1, value: 5 });
    }
    // Dee overtakes Cy: Dee's move is sent with where Dee came from.
    await s.event('lessons', 'dee', 4);
    for (const w of watchers) await w.next((x) => x.type === 'leaderboard.rank_changed' && x.data.user.id === 'dee');
    await s.event('lessons', 'dee', 3);
    for (const w of watchers) {
      const m = await w.next((x) => x.type === 'leaderboard.rank_changed' && x.data.user.id === 'dee' && x.data.leaderboard.value === 7);
      expect(m.data.leaderboard).toMatchObject({ rank: 1, previousRank: expect.any(Number) });
      expect(m.data.leaderboard.previousRank).toBeGreaterThan(1);
    }
    // Unknown boards are refused.
    watchers[0].send({ subscribe: ['leaderboard:nope'] });
    expect(await watchers[0].next((m) => m.error !== undefined)).toMatchObject({ code: 'not_found', status: 404, topic: 'leaderboard:nope' });
  });

  it('resumes after a disconnect with nothing missed, and says resync when the history cannot tell', async () => {
    const key = await userKey('eve');
    const first = await live(key);
    await first.subscribe(['user:eve']);
    await s.event('lessons', 'eve', 1);
    const last = (await first.next((m) => m.type === 'points.changed')).seq!;
    await first.close();
    // Missed while away: three events' messages (the third completes `three`). Another socket
    // watches them go out, so that the resume below finds them published.
    const watcher = await live(s.adminKey);
    await watcher.subscribe(['user:eve']);
    for (let i = 0; i < 3; i++) await s.event('lessons', 'eve', 1);
    await watcher.next((m) => m.type === 'points.changed' && m.data.points.total === 40);
    await watcher.next((m) => m.type === 'achievement.completed');
    const again = await live(key);
    again.send({ subscribe: ['user:eve'], since: { 'user:eve': last } });
    const subscribed = await again.next((m) => m.type === 'subscribed');
    const replayed = again.messages.filter((m) => m.topic === 'user:eve' && m.type !== 'subscribed' && m.seq! <= subscribed.seq!);
    expect(replayed.map((m) => m.seq)).toEqual(replayed.map((_, i) => last + 1 + i));
    expect(replayed.at(-1)!.seq).toBe(subscribed.seq);
    expect(replayed.filter((m) => m.type === 'points.changed').map((m) => m.data.points.total)).toEqual([20, 30, 40]);
    expect(replayed.some((m) => m.type === 'achievement.completed' && m.data.achievement.key === 'three')).toBe(true);
    // And live again after it.
    await s.event('lessons', 'eve', 1);
    expect((await again.next((m) => m.type === 'points.changed' && m.data.points.total === 50)).seq).toBeGreaterThan(subscribed.seq!);
    // A sequence number the topic never had, or one before what the history holds: resync.
    const third = await live(key);
    third.send({ subscribe: ['user:eve'], since: { 'user:eve': 1 } });
    expect(await third.next((m) => m.topic === 'user:eve')).toEqual({ topic: 'user:eve', seq: expect.any(Number), type: 'resync', data: null });
  });

  it('fans out across api processes: a subscriber on one, the event on another', async () => {
    const c = await live(await userKey('fay'), other);
    await c.subscribe(['user:fay', 'leaderboard:top']);
    await s.event('lessons', 'fay', 9);
    expect(await c.next((m) => m.type === 'achievement.completed' && m.topic === 'user:fay')).toMatchObject({ data: { achievement: { key: 'first' } } });
    expect(await c.next((m) => m.type === 'leaderboard.rank_changed' && m.topic === 'leaderboard:top' && m.data.user.id === 'fay'))
      .toMatchObject({ data: { leaderboard: { rank: 1, value: 9 } } });
  });

  it('catches a topic that becomes wanted up from when its api process took it up: a change the workers read before they heard of it is sent, an older one not', async () => {
    const { redis, keys } = s.workers!.services;
    // Another topic held: the publisher follows the logs (it would read them again from before its wake otherwise).
    await (await live(s.adminKey)).subscribe(['user:someone-awake']);
    const older = await s.event('lessons', 'hal', 1);
    expect(older.achievements.map((a: { key: string }) => a.key)).toEqual(['first']);
    await new Promise((r) => setTimeout(r, 500));
    // An api process takes hal's topic up; its event comes next, and the workers read it before
    // they hear the process's ring (held back here, as a busy network may).
    const hold = holdOf('late-api', scopedTopic(DEFAULT_TENANT, 'user:hal'));
    const takenAt = Date.now();
    await redis.zadd(keys.live.wanted, Date.now() + 60_000, hold);
    const read = s.workers!.live.stats.read;
    expect((await s.event('lessons', 'hal', 1)).points.xp.total).toBe(20);
    await expect.poll(() => s.workers!.live.stats.read).toBeGreaterThan(read);
    await redis.spublish(keys.live.interest, ringOf(true, 1, takenAt, hold));
    const history = keys.liveTopic(DEFAULT_TENANT, 'user:hal').history;
    const sent = async () => (await redis.lrange(history, 0, -1)).map((m) => JSON.parse(m) as { type: string; data: any });
    await expect.poll(async () => (await sent()).filter((m) => m.type === 'points.changed').map((m) => m.data.points.total)).toEqual([20]);
    expect((await sent()).filter((m) => m.type === 'achievement.completed')).toEqual([]);
    await redis.zrem(keys.live.wanted, hold);
    await redis.spublish(keys.live.interest, ringOf(false, 2, Date.now(), hold));
  });

  it('answers not_found for an inactive board, as the Application API does', async () => {
    const made = await s.request('POST', '/admin/v1/leaderboards', {
      body: [{ name: 'Hidden', key: 'hidden', rankBy: 'metric', metricKey: 'lessons', status: 'inactive', start: '2020-01-02' }],
    });
    expect(made.status, made.text).toBe(201);
    expect((await s.request('GET', '/v1/leaderboards/hidden')).status).toBe(404);
    const c = await live(s.adminKey);
    c.send({ subscribe: ['leaderboard:hidden'] });
    expect(await c.next((x) => x.error !== undefined)).toMatchObject({ code: 'not_found', status: 404, topic: 'leaderboard:hidden' });
  });

  it('closes a socket whose key is revoked, and answers 426 to a request with ?key= that is no upgrade', async () => {
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'jo' }] });
    expect(r.status, r.text).toBe(201);
    const { id, key } = r.body.created[0] as { id: string; key: string };
    const plain = await s.request('GET', `/v1/live?key=${encodeURIComponent(key)}`, { key: null });
    expect(plain.status, plain.text).toBe(426);
    const c = await live(key);
    await c.subscribe(['user:jo']);
    expect((await s.request('DELETE', `/admin/v1/application-api-keys?ids=${id}`)).status).toBe(200);
    expect(await c.next((x) => x.error !== undefined, 15_000)).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(await c.closed).toMatchObject({ code: 1008 });
  });

  it('answers bad messages with { error, code } and carries on', async () => {
    const c = await live(s.adminKey);
    const bad: (string | Uint8Array)[] = [
      'not json', '[]', '5', 'null', '{}', '{"subscribe":[]}', '{"subscribe":"user:a"}', '{"subscribe":["user:"]}', '{"subscribe":["room:1"]}',
      '{"subscribe":["user:a"],"unsubscribe":["user:a"]}', '{"subscribe":["user:a"],"since":{"user:b":1}}', '{"subscribe":["user:a"],"since":{"user:a":-1}}',
      '{"subscribe":["user:a"],"since":{"user:a":"1"}}', '{"unsubscribe":["user:a"],"since":{}}', JSON.stringify({ subscribe: Array.from({ length: 101 }, (_, i) => `user:${i}`) }),
      new Uint8Array([1, 2, 3]), new Uint8Array([0xff, 0xfe]),
    ];
    for (const b of bad) {
      c.sendRaw(b);
      expect(await c.next((m) => m.error !== undefined)).toEqual({ error: expect.any(String), code: 'invalid_body', status: 400 });
    }
    // Still subscribed and answered.
    expect(await c.subscribe(['user:gus'])).toEqual({ 'user:gus': expect.any(Number) });
    c.send({ unsubscribe: ['user:gus', 'user:never'] });
    expect(await c.next((m) => m.type === 'unsubscribed' && m.topic === 'user:gus')).toEqual({ type: 'unsubscribed', topic: 'user:gus' });
    expect((await s.request('GET', '/health')).status).toBe(200);
  });

  it('sends the messages published on a topic together one by one, numbered in order, and resumes between them', async () => {
    const c = await live(s.adminKey);
    const { 'user:kit': at } = await c.subscribe(['user:kit']);
    const messages = ['first', 'second', 'third'].map((n) => ({ type: 'test.note', data: JSON.stringify({ n, line: 'a\nb' }) }));
    const last = await publish(s.workers!.services, DEFAULT_TENANT, 'user:kit', messages);
    const got = [await c.next((m) => m.type === 'test.note'), await c.next((m) => m.type === 'test.note'), await c.next((m) => m.type === 'test.note')];
    expect(got.map((m) => [m.seq, m.data.n, m.data.line])).toEqual([[at + 1, 'first', 'a\nb'], [at + 2, 'second', 'a\nb'], [at + 3, 'third', 'a\nb']]);
    expect(last).toBe(at + 3);
    const again = await live(s.adminKey);
    again.send({ subscribe: ['user:kit'], since: { 'user:kit': at + 1 } });
    expect([await again.next((m) => m.topic === 'user:kit'), await again.next((m) => m.topic === 'user:kit'), await again.next((m) => m.topic === 'user:kit')]
      .map((m) => [m.type, m.seq])).toEqual([['test.note', at + 2], ['test.note', at + 3], ['subscribed', at + 3]]);
    // More than one script takes (a user with a burst of events in one batch of the log): still in order.
    const burst = Array.from({ length: 250 }, (_, i) => ({ type: 'test.burst', data: JSON.stringify({ i }) }));
    expect(await publish(s.workers!.services, DEFAULT_TENANT, 'user:kit', burst)).toBe(at + 253);
    const bursts = [];
    for (let i = 0; i < 250; i++) bursts.push(await c.next((m) => m.type === 'test.burst'));
    expect(bursts.map((m) => [m.seq, m.data.i])).toEqual(burst.map((_, i) => [at + 4 + i, i]));
  });

  it('sends a socket that resumes while a message is still on its way to its api process that message once', async () => {
    const { redis, keys } = s.workers!.services;
    const c = await live(s.adminKey);
    const { 'user:lou': at } = await c.subscribe(['user:lou']);
    // A message the history holds and the channel has not yet brought to the api process (a
    // busy process, a slow network): kept, its delivery held back.
    const k = keys.liveTopic(DEFAULT_TENANT, 'user:lou');
    const late = JSON.stringify({ topic: 'user:lou', seq: at + 1, type: 'test.late', data: { n: 1 } });
    await redis.lpush(k.history, late);
    await redis.set(k.seq, String(at + 1));
    const again = await live(s.adminKey);
    again.send({ subscribe: ['user:lou'], since: { 'user:lou': at } });
    expect([await again.next((m) => m.topic === 'user:lou'), await again.next((m) => m.topic === 'user:lou')].map((m) => [m.type, m.seq]))
      .toEqual([['test.late', at + 1], ['subscribed', at + 1]]);
    // Then it arrives, and the next message after it.
    await redis.spublish(k.channel, late);
    await publish(s.workers!.services, DEFAULT_TENANT, 'user:lou', [{ type: 'test.next', data: JSON.stringify({ n: 2 }) }]);
    expect((await c.next((m) => m.type === 'test.next')).seq).toBe(at + 2);
    expect((await again.next((m) => m.type === 'test.next')).seq).toBe(at + 2);
    // The socket that held the topic all along had it from the channel; the one that resumed from
    // the history, once.
    expect(c.messages.filter((m) => m.type === 'test.late').map((m) => m.seq)).toEqual([at + 1]);
    expect(again.messages.filter((m) => m.topic === 'user:lou').map((m) => [m.type, m.seq]))
      .toEqual([['test.late', at + 1], ['subscribed', at + 1], ['test.next', at + 2]]);
  });
});
