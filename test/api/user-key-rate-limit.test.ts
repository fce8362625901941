/**
 * The rate limit of keys scoped to a user (LAUREL_USER_KEY_RATE_LIMIT, docs/operations.md "Rate
 * limits"), on Redis and on the Cluster, driven by the manual clock: with nothing set, such a key
 * may make 200 requests at once and 20 a second, then gets 429 with Retry-After, as
 * LAUREL_RATE_LIMIT answers, while the account's keys have no limit; a friends board on a sharded
 * board counts a request for every 1,000 users × shards; the variable sets another
 * limit apart from LAUREL_RATE_LIMIT's, and `off` takes it away; unset, a LAUREL_RATE_LIMIT that is
 * set holds for these keys too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets, type TestServer } from '../support/server.js';

const START = Date.parse('2030-01-01T00:00:00Z');

describe.each(targets())('the rate limit of keys scoped to a user on %s', (target) => {
  const servers: TestServer[] = [];

  /** A server with `env`, its clock at START, and a key scoped to `ada`. */
  async function serve(env: Record<string, string>): Promise<{ s: TestServer; key: string }> {
    const s = await startTestServer({ target, clock: 'manual', env });
    servers.push(s);
    await s.setClock(new Date(START).toISOString());
    const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'ada' }] });
    expect(k.status, k.text).toBe(201);
    return { s, key: k.body.created[0].key as string };
  }

  /** Sends `n` reads at once with `key`; answers their statuses, counted. */
  async function burst(s: TestServer, key: string | undefined, n: number): Promise<Record<number, number>> {
    const statuses = await Promise.all(Array.from({ length: n }, () => s.request('GET', '/api/achievements', { key }).then((r) => r.status)));
    const out: Record<number, number> = {};
    for (const x of statuses) out[x] = (out[x] ?? 0) + 1;
    return out;
  }

  afterAll(async () => { await Promise.all(servers.map((s) => s.close())); });

  describe('with nothing set', () => {
    let s: TestServer;
    let key: string;
    beforeAll(async () => {
      ({ s, key } = await serve({}));
      await s.metrics('plays');
    });

    it('lets a key scoped to a user make 200 requests at once, then answers 429 with Retry-After and does nothing', async () => {
      expect(await burst(s, key, 200)).toEqual({ 200: 200 });
      const over = await s.request('POST', '/api/metrics/plays/event', { key, body: { user: { id: 'ada' }, value: 1 } });
      expect(over.status, over.text).toBe(429);
      expect(over.body).toEqual({ error: expect.stringMatching(/Too many requests.*20 a second, 200 at once.*retry in 1 s/), code: 'rate_limited' });
      expect(over.headers.get('retry-after')).toBe('1');
      // The event was not applied: its user was never made.
      expect((await s.request('GET', '/api/users/ada')).status).toBe(404);
      // 20 a second: one more every 50 ms of the clock.
      await s.setClock(new Date(START + 49).toISOString());
      expect(await burst(s, key, 1)).toEqual({ 429: 1 });
      await s.setClock(new Date(START + 50).toISOString());
      expect(await burst(s, key, 2)).toEqual({ 200: 1, 429: 1 });
    });

    it('leaves the account\'s keys without a limit', async () => {
      expect(await burst(s, undefined, 300)).toEqual({ 200: 300 });
    });

    it('counts a friends board on a sharded board as a request for every 1,000 users × shards', async () => {
      const { plays } = Object.fromEntries(((await s.request('GET', '/admin/v1/metrics')).body as { key: string; id: string }[]).map((m) => [m.key, m.id]));
      const board = await s.request('POST', '/admin/v1/leaderboards', {
        body: [{ name: 'Wide', key: 'wide', rankBy: 'metric', metricId: plays, maxParticipants: null, shards: 64, status: 'active', start: '2020-01-01' }],
      });
      expect(board.status, board.text).toBe(201);
      const k = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'bea' }] });
      const bea = k.body.created[0].key as string;
      const friends = `/api/leaderboards/wide?userIds=${Array.from({ length: 1000 }, (_, i) => `f${i}`).join(',')}`;
      // 1,000 users on 64 shards: 64 requests each, so 3 of the burst of 200, then a wait of 2.8 s.
      for (let i = 0; i < 3; i++) expect((await s.request('GET', friends, { key: bea })).status).toBe(200);
      const over = await s.request('GET', friends, { key: bea });
      expect(over.status, over.text).toBe(429);
      expect(over.headers.get('retry-after')).toBe('3');
      // What is left of the burst: 200 - 192, for reads of one request each (10 users on 64 shards, one page).
      expect((await s.request('GET', '/api/leaderboards/wide?userIds=f1,f2,f3,f4,f5,f6,f7,f8,f9,f10', { key: bea })).status).toBe(200);
      expect(await burst(s, bea, 8)).toEqual({ 200: 7, 429: 1 });
      // An account's key, without a limit, reads it as often as it likes.
      for (let i = 0; i < 5; i++) expect((await s.request('GET', friends)).status).toBe(200);
    });
  });

  it('takes the limit LAUREL_USER_KEY_RATE_LIMIT gives, apart from LAUREL_RATE_LIMIT\'s', async () => {
    const { s, key } = await serve({ LAUREL_USER_KEY_RATE_LIMIT: '1:3', LAUREL_RATE_LIMIT: '1000:1000' });
    expect(await burst(s, key, 5)).toEqual({ 200: 3, 429: 2 });
    expect(await burst(s, undefined, 5)).toEqual({ 200: 5 });
  });

  it('has none with LAUREL_USER_KEY_RATE_LIMIT=off, LAUREL_RATE_LIMIT limiting the account\'s keys only', async () => {
    const { s, key } = await serve({ LAUREL_USER_KEY_RATE_LIMIT: 'off', LAUREL_RATE_LIMIT: '1:400' });
    expect(await burst(s, key, 400)).toEqual({ 200: 400 });
  });

  it('takes LAUREL_RATE_LIMIT\'s when only that is set', async () => {
    // The admin key's own requests above (the clock, the key) take 2 of its 5.
    const { s, key } = await serve({ LAUREL_RATE_LIMIT: '1:5' });
    expect(await burst(s, key, 6)).toEqual({ 200: 5, 429: 1 });
  });
});
