/**
 * Rate limits per API key (LAUREL_RATE_LIMIT): a key's burst, then 429 with Retry-After and
 * nothing applied; refills with the (manual) clock; keys independent of each other, user-scoped
 * keys limited too, the operations endpoints not at all; one limit across two api processes
 * sharing a Redis; on Redis and on the Cluster.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, targets, type TestServer } from '../support/server.js';

const START = Date.parse('2030-01-01T00:00:00Z');

describe.each(targets())('rate limits on %s', (target) => {
  let s: TestServer;
  /** An admin key that only moves the clock, and two application keys. */
  let clockKey: string;
  let a: string;
  let b: string;
  let now = START;

  /** Moves the manual clock on by `ms` (with the clock key, one request of its own). */
  async function advance(ms: number): Promise<void> {
    now += ms;
    const r = await s.request('PUT', '/admin/v1/clock', { key: clockKey, body: { now: new Date(now).toISOString() } });
    expect(r.status, r.text).toBe(200);
  }

  const event = (key: string, user: string, idempotencyKey?: string) => s.request('POST', '/api/metrics/lessons/event', {
    key, body: { user: { id: user }, value: 1 }, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });

  const total = async (user: string, key: string): Promise<number> => {
    const r = await s.request('GET', `/api/users/${user}/metrics/lessons`, { key });
    expect(r.status, r.text).toBe(200);
    return r.body.current;
  };

  beforeAll(async () => {
    // 2 a second, 4 at once: the admin key makes three requests here, within its burst.
    s = await startTestServer({ target, clock: 'manual', env: { LAUREL_RATE_LIMIT: '2:4' } });
    await s.setClock(new Date(START).toISOString());
    await s.metrics('lessons');
    const r = await s.request('POST', '/admin/v1/api-keys', {
      body: [{ kind: 'admin', name: 'clock' }, { kind: 'application', name: 'a' }, { kind: 'application', name: 'b' }],
    });
    expect(r.status, r.text).toBe(201);
    [clockKey, a, b] = r.body.created.map((k: { key: string }) => k.key);
  });
  afterAll(async () => { await s?.close(); });

  it('lets a key make its burst, then answers 429 with Retry-After and applies nothing', async () => {
    await advance(60_000);
    for (let i = 0; i < 4; i++) expect((await event(a, 'ada')).status).toBe(201);
    const over = await event(a, 'ada', 'lesson-5');
    expect(over.status, over.text).toBe(429);
    expect(over.body).toEqual({ error: expect.stringMatching(/Too many requests.*retry in 1 s/), code: 'rate_limited' });
    expect(over.headers.get('retry-after')).toBe('1');
    // The event over the limit was not counted, nor its idempotency key kept: sent again once the
    // key may, it is processed (201), not a replay (202).
    expect(await total('ada', b)).toBe(4);
    await advance(500);
    const again = await event(a, 'ada', 'lesson-5');
    expect(again.status, again.text).toBe(201);
    expect(again.body.idempotentReplayed).toBe(false);
    expect(await total('ada', b)).toBe(5);
  });

  it('refills at the rate: one request every half second, none before', async () => {
    await advance(60_000);
    for (let i = 0; i < 4; i++) expect((await event(a, 'bea')).status).toBe(201);
    await advance(499);
    expect((await event(a, 'bea')).status).toBe(429);
    await advance(1);
    expect((await event(a, 'bea')).status).toBe(201);
    expect((await event(a, 'bea')).status).toBe(429);
    await advance(1000);
    expect((await event(a, 'bea')).status).toBe(201);
    expect((await event(a, 'bea')).status).toBe(201);
    expect((await event(a, 'bea')).status).toBe(429);
    // A wait never runs ahead of the clock: refused requests take nothing.
    await advance(500);
    expect((await event(a, 'bea')).status).toBe(201);
    expect(await total('bea', b)).toBe(8);
  });

  it('counts every key on its own: one over its limit leaves the others theirs', async () => {
    await advance(60_000);
    for (let i = 0; i < 4; i++) expect((await event(a, 'cy')).status).toBe(201);
    expect((await event(a, 'cy')).status).toBe(429);
    for (let i = 0; i < 4; i++) expect((await event(b, 'cy')).status).toBe(201);
    expect((await event(b, 'cy')).status).toBe(429);
    // The admin key too has a limit of its own (its burst is whole again after a minute).
    for (let i = 0; i < 4; i++) expect((await s.request('GET', '/admin/v1/metrics')).status).toBe(200);
    expect((await s.request('GET', '/admin/v1/metrics')).status).toBe(429);
    await advance(60_000);
    expect(await total('cy', a)).toBe(8);
  });

  it('limits keys scoped to a user as well, each on its own', async () => {
    await advance(60_000);
    const r = await s.request('POST', '/admin/v1/application-api-keys', { body: [{ userId: 'dee' }, { userId: 'dee' }] });
    expect(r.status, r.text).toBe(201);
    const [one, two] = r.body.created.map((k: { key: string }) => k.key);
    for (let i = 0; i < 4; i++) expect((await event(one, 'dee')).status).toBe(201);
    const over = await event(one, 'dee');
    expect(over.status, over.text).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
    expect((await event(two, 'dee')).status).toBe(201);
    expect(await total('dee', b)).toBe(5);
  });

  it('leaves the operations endpoints and unknown keys out of it', async () => {
    await advance(60_000);
    for (let i = 0; i < 10; i++) {
      expect((await s.request('GET', '/health', { key: null })).status).toBe(200);
      expect((await s.request('GET', '/metrics', { key: a })).status).toBe(200);
      expect((await s.request('GET', '/api/achievements', { key: 'no-such-key' })).status).toBe(401);
    }
    // None of that took from the key's burst.
    for (let i = 0; i < 4; i++) expect((await s.request('GET', '/api/achievements', { key: a })).status).toBe(200);
    expect((await s.request('GET', '/api/achievements', { key: a })).status).toBe(429);
  });
});

describe.each(targets())('a rate limit across two api processes on %s', (target) => {
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    // One request every 10 s, 4 at once: on the machine's clock, the test is done long before a refill.
    const env = { LAUREL_RATE_LIMIT: '0.1:4', LAUREL_PREFIX: `t${randomBytes(5).toString('hex')}`, LAUREL_ADMIN_KEY: `test-admin-${randomBytes(12).toString('hex')}` };
    one = await startTestServer({ target, env });
    two = await startTestServer({ target, env });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it('holds one bucket per key, whichever process a request reaches', async () => {
    await one.metrics('lessons');
    const r = await one.request('POST', '/admin/v1/api-keys', { body: { kind: 'application', name: 'shared' } });
    expect(r.status, r.text).toBe(201);
    const key: string = r.body.key;
    // The second process learns of the key through the configuration's pub/sub (or its poll).
    await expect.poll(async () => (await two.request('GET', '/api/achievements', { key })).status, { timeout: 5000 }).toBe(200);
    const send = (s: TestServer) => s.request('POST', '/api/metrics/lessons/event', { key, body: { user: { id: 'ada' }, value: 1 } });
    for (const s of [one, two, one]) expect((await send(s)).status).toBe(201);
    for (const s of [two, one]) {
      const over = await send(s);
      expect(over.status, over.text).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(10);
    }
    const read = await two.request('GET', '/api/users/ada/metrics/lessons');
    expect(read.body.current).toBe(3);
  });
});
