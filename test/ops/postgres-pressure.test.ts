/**
 * Postgres busy or away (docs/api.md, "Errors"): the api's reads that need it (analytics,
 * notification and webhook deliveries, a delivery's retry) answer 503 with `Retry-After` and a
 * message naming Postgres, never a 500 and never "Redis", while the routes Redis serves go on
 * answering. The server reaches the machine's Postgres through a TCP proxy of the test
 * (test/support/tcp-proxy.ts), stalled (every connection of the pool busy: saturated) or cut (gone
 * after the pool had connected); a server pointed at a port where nothing listens, or at a
 * database that does not exist; and `laurel start` whose workers log the outage as Postgres's.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.js';
import { loadSettings } from '../../src/lib/settings.js';
import { API_POOL } from '../../src/postgres/pool.js';
import { deletePostgresRows, deletePrefix, startTestServer, type Response, type TestServer } from '../support/server.js';
import { runCli } from '../support/cli.js';
import { portOf } from '../support/listening.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const machine = new URL(loadSettings().databaseUrl);

/** The machine's DATABASE_URL with another port (and database). */
function databaseAt(port: number, database = machine.pathname.slice(1)): string {
  const url = new URL(machine.href);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.pathname = `/${database}`;
  return url.href;
}

/** A 503 that names Postgres (not Redis) and says when to retry. */
function expectPostgresRefusal(r: Response, what: string): void {
  expect(r.status, `${what}: ${r.text}`).toBe(503);
  expect(r.body.code, what).toBe('unavailable');
  expect(r.body.error, what).toMatch(/Postgres/);
  expect(r.body.error, what).not.toMatch(/Redis/);
  expect(Number(r.headers.get('retry-after')), what).toBeGreaterThan(0);
}

/** The reads that need Postgres, for the endpoint `hook`. */
function postgresReads(hook: string): [string, string][] {
  return [
    ['GET', '/admin/v1/analytics'],
    ['GET', '/admin/v1/notifications/deliveries'],
    ['GET', `/admin/v1/webhooks/${hook}/deliveries`],
    ['POST', `/admin/v1/webhooks/${hook}/deliveries/00000000-0000-7000-8000-000000000000/retry`],
  ];
}

/** The routes Redis serves answer as ever. */
async function redisServes(s: TestServer, user: string): Promise<void> {
  expect((await s.request('GET', '/admin/v1/metrics')).status).toBe(200);
  const event = await s.request('POST', '/api/metrics/lessons/event', { body: { user: { id: user }, value: 1 } });
  expect(event.status, event.text).toBe(201);
  expect((await s.request('GET', `/api/users/${user}`)).status).toBe(200);
}

/** Sets up a metric and a webhook endpoint; answers the endpoint's id. */
async function setUp(s: TestServer): Promise<string> {
  await s.metrics('lessons');
  const hook = await s.request('POST', '/admin/v1/webhooks', {
    body: [{ name: 'hook', url: 'http://127.0.0.1:9/hook', events: ['achievement.completed'] }],
  });
  expect(hook.status, hook.text).toBe(201);
  return hook.body.created[0].id as string;
}

describe('the api with Postgres behind a proxy', () => {
  let proxy: TcpProxy;
  let s: TestServer;
  let hook: string;

  beforeAll(async () => {
    proxy = await startTcpProxy({ host: machine.hostname, port: Number(machine.port || 5432) });
    s = await startTestServer({ env: { DATABASE_URL: databaseAt(proxy.port), LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    hook = await setUp(s);
    await s.event('lessons', 'ada', 1);
  });
  afterAll(async () => {
    await s?.close();
    await proxy?.close();
    if (s) await deletePostgresRows(loadSettings(), [s.prefix]);
  });

  it('answers 12 analytics reads and delivery lists at once with 200', { timeout: 60_000 }, async () => {
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, () => s.request('GET', '/admin/v1/analytics')),
      s.request('GET', '/admin/v1/notifications/deliveries'),
      s.request('GET', `/admin/v1/webhooks/${hook}/deliveries`),
    ]);
    // 200, or 503 with Retry-After where the machine is too slow for the pool's wait: never a 500.
    for (const r of answers) {
      if (r.status !== 200) expectPostgresRefusal(r, 'a read at once');
    }
  });

  it('answers 503 with Retry-After to what waits past the pool\'s bound while Postgres is saturated, 200 to the rest', { timeout: 60_000 }, async () => {
    // Warm: the pool has connected.
    expect((await s.request('GET', '/admin/v1/analytics')).status).toBe(200);
    proxy.stall();
    const reads = Promise.all([
      ...Array.from({ length: 12 }, () => s.request('GET', '/admin/v1/analytics')),
      s.request('GET', '/admin/v1/notifications/deliveries'),
      s.request('GET', `/admin/v1/webhooks/${hook}/deliveries`),
    ]);
    // Past the pool's wait (src/postgres/pool.ts API_POOL) the reads that found no connection are
    // refused; those holding one wait for Postgres.
    await new Promise((r) => setTimeout(r, API_POOL.waitMs + 2000));
    await redisServes(s, 'during-stall');
    proxy.flow();
    const answers = await reads;
    const refused = answers.filter((r) => r.status !== 200);
    for (const r of refused) expectPostgresRefusal(r, 'a read while saturated');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(answers.length);
    // And served again once it answers.
    expect((await s.request('GET', '/admin/v1/analytics')).status).toBe(200);
  });

  it('answers 503 naming Postgres once it went away after the pool connected, Redis\'s routes 200; served again when it is back', { timeout: 60_000 }, async () => {
    expect((await s.request('GET', '/admin/v1/analytics')).status).toBe(200);
    await proxy.cut();
    for (const [method, path] of postgresReads(hook)) expectPostgresRefusal(await s.request(method, path), `${method} ${path}`);
    await redisServes(s, 'during-outage');
    await proxy.restore();
    expect((await s.request('GET', '/admin/v1/analytics')).status).toBe(200);
    expect((await s.request('GET', `/admin/v1/webhooks/${hook}/deliveries`)).status).toBe(200);
  });
});

describe('the api pointed at no Postgres', () => {
  for (const [name, url] of [['a port where nothing listens', async () => databaseAt(await freePort())], ['a database that does not exist', async () => databaseAt(Number(machine.port || 5432), `laurel_none_${randomBytes(4).toString('hex')}`)]] as const) {
    it(`answers 503 naming Postgres with ${name}, Redis's routes 200`, { timeout: 60_000 }, async () => {
      // The installation made with the machine's Postgres; then a server of it pointed elsewhere
      // (Redis holds the installation: it starts without Postgres).
      const first = await startTestServer({ env: { LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
      let s: TestServer | null = null;
      try {
        const hook = await setUp(first);
        s = await startTestServer({ env: { LAUREL_PREFIX: first.prefix, LAUREL_ADMIN_KEY: first.adminKey, DATABASE_URL: await url() } });
        for (const [method, path] of postgresReads(hook)) expectPostgresRefusal(await s.request(method, path), `${method} ${path}`);
        await redisServes(s, 'no-postgres');
      } finally {
        await s?.api.close();
        await first.close();
        await deletePostgresRows(first.settings, [first.prefix]);
      }
    });
  }
});

describe('laurel start while Postgres goes away', () => {
  it('answers 503 naming Postgres, and its workers log the outage as Postgres\'s, never as Redis\'s', { timeout: 120_000 }, async () => {
    const proxy = await startTcpProxy({ host: machine.hostname, port: Number(machine.port || 5432) });
    const prefix = `t${randomBytes(5).toString('hex')}`;
    const adminKey = `pg-${randomBytes(8).toString('hex')}`;
    const run = runCli(['start'], { LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: adminKey, PORT: '0', DATABASE_URL: databaseAt(proxy.port), LOG_LEVEL: 'info' });
    // Set once the primary says which port the kernel picked (PORT=0).
    let port = 0;
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, {
        method, headers: { 'x-api-key': adminKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() as { error?: string } };
    };
    try {
      port = await portOf(run, 'processes');
      await until('the api serving', async () => (await call('GET', '/ready').catch(() => null))?.status === 200);
      expect((await call('POST', '/admin/v1/metrics', [{ name: 'Lessons', key: 'lessons' }])).status).toBe(201);
      expect((await call('GET', '/admin/v1/analytics')).status).toBe(200);
      await proxy.cut();
      // Events go on (the log keeps them in Redis); the drain fails each second meanwhile.
      for (let i = 0; i < 3; i++) expect((await call('POST', '/api/metrics/lessons/event', { user: { id: `u${i}` }, value: 1 })).status).toBe(201);
      const analytics = await call('GET', '/admin/v1/analytics');
      expect(analytics.status).toBe(503);
      expect(analytics.retryAfter).toBe('5');
      expect(analytics.body.error).toMatch(/Postgres/);
      await until('the workers\' outage logged', () => run.output().includes('Postgres is busy or cannot be reached; the workers retry'));
      // The api process logs the 503 after it answered, in its own time: awaited, not assumed.
      await until('the api\'s 503 logged', () => run.output().includes('Postgres cannot serve the request'));
      expect(run.output()).not.toMatch(/Redis unreachable|Redis connection error|Redis is not reachable/);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      await proxy.close();
      await deletePrefix(loadSettings(), prefix);
      await deletePostgresRows(loadSettings(), [prefix]);
    }
  });
});

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await probe());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
