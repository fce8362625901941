/**
 * The rate limit of a live socket's messages (LAUREL_RATE_LIMIT, docs/operations.md#rate-limits;
 * docs/live.md), with real sockets against the real api and workers, the manual clock, on Redis and
 * on the Cluster: each message counts against its key's limit as a request does, in one budget
 * with the key's REST requests; one over the limit is answered `rate_limited` with its retry and
 * not handled, the socket carrying on; a flood from one socket handled only as far as the burst
 * goes; a message refused for its content counting too; an account key's socket limited as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets, type TestServer } from '../support/server.js';
import { liveUrl, openLive, type LiveClient, type LiveMessage } from '../support/live-client.js';
import { publish } from '../../src/engine/live/topic-store.js';
import { DEFAULT_TENANT } from '../../src/redis/keys.js';

const START = Date.parse('2030-01-01T00:00:00Z');

/** The reply of a message over the limit of 1 a second: retry in 1 s. */
const LIMITED = { error: expect.stringMatching(/Too many requests.*retry in 1 s/), code: 'rate_limited', status: 429, retryAfter: 1 };

describe.each(targets())('live socket messages under the rate limit on %s', (target) => {
  let s: TestServer;
  /** An admin key that only moves the clock and makes keys, and an application key. */
  let clockKey: string;
  let appKey: string;
  let now = START;
  const open: LiveClient[] = [];

  /** Moves the manual clock on by `ms` (at least a second: the clock key's own request). */
  async function advance(ms: number): Promise<void> {
    now += ms;
    const r = await s.request('PUT', '/admin/v1/clock', { key: clockKey, body: { now: new Date(now).toISOString() } });
    expect(r.status, r.text).toBe(200);
  }

  /** A key scoped to the user (a minute on first: the clock key's burst whole again). */
  async function userKey(userId: string): Promise<string> {
    await advance(60_000);
    const r = await s.request('POST', '/admin/v1/application-api-keys', { key: clockKey, body: [{ userId }] });
    expect(r.status, r.text).toBe(201);
    return r.body.created[0].key as string;
  }

  /** A socket with the key; then a minute on, so that the key's burst (2) is whole again. */
  async function live(key: string): Promise<LiveClient> {
    const c = await openLive(liveUrl(s.url, key));
    open.push(c);
    await advance(60_000);
    return c;
  }

  /** The next `n` replies of the socket, in order. */
  async function replies(c: LiveClient, n: number): Promise<LiveMessage[]> {
    const out: LiveMessage[] = [];
    for (let i = 0; i < n; i++) out.push(await c.next());
    return out;
  }

  beforeAll(async () => {
    // 1 a second, 2 at once: the admin key makes its two requests here.
    s = await startTestServer({ target, clock: 'manual', workers: true, env: { LAUREL_RATE_LIMIT: '1:2' } });
    await s.setClock(new Date(START).toISOString());
    const r = await s.request('POST', '/admin/v1/api-keys', { body: [{ kind: 'admin', name: 'clock' }, { kind: 'application', name: 'app' }] });
    expect(r.status, r.text).toBe(201);
    [clockKey, appKey] = r.body.created.map((k: { key: string }) => k.key);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await s?.close();
  });

  it('counts each message against the key\'s limit, answers one over it rate_limited without handling it, and keeps the socket open', async () => {
    const key = await userKey('ada');
    const c = await live(key);
    expect(await c.subscribe(['user:ada'])).toEqual({ 'user:ada': expect.any(Number) });
    expect(await c.subscribe(['user:ada'])).toEqual({ 'user:ada': expect.any(Number) });
    // The burst (2) spent: the third message is refused, and not handled: the topic is still held.
    c.send({ unsubscribe: ['user:ada'] });
    expect(await c.next()).toEqual(LIMITED);
    await publish(s.api.services, DEFAULT_TENANT, 'user:ada', [{ type: 'test.note', data: JSON.stringify({ n: 1 }) }]);
    expect(await c.next()).toMatchObject({ topic: 'user:ada', type: 'test.note', data: { n: 1 } });
    // REST requests with the key draw on the same budget, spent.
    const rest = await s.request('GET', '/api/users/ada', { key });
    expect(rest.status, rest.text).toBe(429);
    expect(rest.headers.get('retry-after')).toBe('1');
    // A second on, one more message: handled, on the socket still open.
    await advance(1000);
    c.send({ unsubscribe: ['user:ada'] });
    expect(await c.next()).toEqual({ type: 'unsubscribed', topic: 'user:ada' });
    expect(c.socket.readyState).toBe(c.socket.OPEN);
    expect(c.messages).toHaveLength(5);
  });

  it('handles a flood from one socket only as far as the burst goes, each message answered once and in order', async () => {
    const c = await live(await userKey('bo'));
    const flood = 1000;
    for (let i = 0; i < flood; i++) c.send({ unsubscribe: ['user:bo'] });
    const got = await replies(c, flood);
    expect(got.slice(0, 2)).toEqual([{ type: 'unsubscribed', topic: 'user:bo' }, { type: 'unsubscribed', topic: 'user:bo' }]);
    expect(got.slice(2).filter((m) => m.code === 'rate_limited')).toHaveLength(flood - 2);
    expect(got[flood - 1]).toEqual(LIMITED);
    // The socket carries on once the key may again.
    await advance(1000);
    expect(await c.subscribe(['user:bo'])).toEqual({ 'user:bo': expect.any(Number) });
    expect(c.socket.readyState).toBe(c.socket.OPEN);
  });

  it('counts a message refused for its content too, after the key\'s REST requests', async () => {
    const key = await userKey('cy');
    const c = await live(key);
    expect((await s.request('GET', '/api/users/cy', { key })).status).not.toBe(429);
    c.sendRaw('not json');
    expect(await c.next()).toEqual({ error: expect.any(String), code: 'invalid_body', status: 400 });
    c.send({ subscribe: ['user:cy'] });
    expect(await c.next()).toEqual(LIMITED);
  });

  it('limits an account key\'s socket as well', async () => {
    const c = await live(appKey);
    expect(await c.subscribe(['user:dee'])).toEqual({ 'user:dee': expect.any(Number) });
    expect(await c.subscribe(['user:eve'])).toEqual({ 'user:eve': expect.any(Number) });
    c.send({ subscribe: ['user:fay'] });
    expect(await c.next()).toEqual(LIMITED);
    await advance(1000);
    expect(await c.subscribe(['user:fay'])).toEqual({ 'user:fay': expect.any(Number) });
  });
});
