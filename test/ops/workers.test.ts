/**
 * The workers against real Redis and Postgres: the configuration copy follows every change.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putStreakSettings } from '../support/admin.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';
import { drainLogs, LOG_RETAIN_MS, LogDrainer } from '../../src/engine/log-drain/drain.js';
import { earlierStreamId, entryBody, nextStreamId } from '../../src/model/log.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { movePointsTotals, moveStreakStanding } from '../../src/engine/durability/upgrade.js';
import { rankStreak } from '../../src/engine/streaks/rankings.js';
import { orderOf } from '../../src/domain/leaderboards/runs.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { eventually } from '../support/eventually.js';
import { backfillChunk } from '../../src/postgres/analytics/backfill.js';

let s: TestServer;
let db: pg.Client;
let pool: pg.Pool;

beforeAll(async () => {
  s = await startTestServer({ workers: true });
  db = new pg.Client({ connectionString: s.settings.databaseUrl });
  await db.connect();
  pool = new pg.Pool({ connectionString: s.settings.databaseUrl });
});
afterAll(async () => {
  await pool?.end();
  await s?.close();
  if (db) {
    await db.query('DELETE FROM laurel_config WHERE prefix = $1', [s.prefix]);
    await db.end();
    await deletePostgresRows(s.settings, [s.prefix]);
  }
});

/** A drain pass as it would run once the entries copied so far are older than LOG_RETAIN_MS. */
const drainLater = () => drainLogs(s.api.services, pool, 20, Date.now() + LOG_RETAIN_MS + 1_000);

/**
 * A server of its own on the manual clock, with a daily streak on the metric `lessons`, and a
 * Postgres pool to drain into; the drained rows and both are gone afterwards.
 */
async function withStreakServer(run: (other: TestServer, pool: pg.Pool) => Promise<void>): Promise<void> {
  const other = await startTestServer({ clock: 'manual' });
  const pool = new pg.Pool({ connectionString: other.settings.databaseUrl });
  try {
    const { lessons } = await other.metrics('lessons');
    await putStreakSettings(other, { frequency: 'daily', metrics: [{ metricId: lessons, threshold: 1 }] });
    await run(other, pool);
  } finally {
    await pool.end();
    await deletePostgresRows(other.settings, [other.prefix]);
    await other.close();
  }
}

async function copied(): Promise<Map<string, any>> {
  await s.workers!.testing.configCopied(s.api.services.store.current.version);
  const { rows } = await db.query('SELECT kind, id, body FROM laurel_config WHERE prefix = $1', [s.prefix]);
  return new Map(rows.map((r) => [`${r.kind}:${r.id}`, r.body]));
}

describe('config-copy worker', () => {
  it('copies created, updated and deleted configuration into Postgres', async () => {
    const ids = await s.metrics('lessons', 'quizzes');
    let rows = await copied();
    expect(rows.get(`metrics:${ids.lessons}`)).toMatchObject({ key: 'lessons', name: 'Metric lessons' });
    expect([...rows.keys()].filter((k) => k.startsWith('apikeys:'))).toHaveLength(1);

    await s.request('PATCH', '/admin/v1/metrics', { body: [{ id: ids.lessons, name: 'Renamed' }] });
    await s.request('DELETE', `/admin/v1/metrics?ids=${ids.quizzes}`);
    rows = await copied();
    expect(rows.get(`metrics:${ids.lessons}`).name).toBe('Renamed');
    expect(rows.has(`metrics:${ids.quizzes}`)).toBe(false);
  });

  it('never stores a secret: API keys are copied as hashes', async () => {
    const r = await s.request('POST', '/admin/v1/api-keys', { body: { kind: 'application' } });
    const rows = await copied();
    const copy = JSON.stringify(rows.get(`apikeys:${r.body.id}`));
    expect(copy).toContain('"hash"');
    expect(copy).not.toContain(r.body.key.split('.')[1]);
  });
});

describe('log-drain worker', () => {
  it('moves every log entry into Postgres and trims only what was inserted', async () => {
    await s.metrics('steps');
    const users = ['d1', 'd2', 'd3', 'd4', 'd5'];
    const ids: string[] = [];
    for (const id of users) {
      const r = await s.request('POST', '/api/metrics/steps/event', { body: { user: { id }, value: 2 }, headers: { 'Idempotency-Key': `k-${id}` } });
      ids.push(r.body.eventId);
    }
    await s.request('PUT', '/v1/users/d1', { body: { name: 'Dee' } });
    // Two drains asked at once, beside the scheduled one: each after the other (workers/queue.ts
    // OnePass), the second finding nothing left. Drains side by side are below.
    await Promise.all([s.workers!.testing.drainNow(), s.workers!.testing.drainNow()]);

    const { rows } = await db.query(
      'SELECT kind, tenant, user_id, body FROM laurel_events WHERE prefix = $1 AND user_id = ANY($2) ORDER BY stream_id',
      [s.prefix, users],
    );
    const events = rows.filter((r) => r.kind === 'event');
    expect(events.map((r) => r.body.e).sort()).toEqual([...ids].sort());
    expect(events[0]).toMatchObject({ tenant: '_', body: { v: 2, k: expect.stringMatching(/^k-d/) } });
    expect(rows.filter((r) => r.kind === 'user')).toEqual([
      { kind: 'user', tenant: '_', user_id: 'd1', body: expect.objectContaining({ u: 'd1', f: { name: 'Dee' } }) },
    ]);
    // Copied entries stay for LOG_RETAIN_MS (an api process that dies meanwhile gets its events
    // placed again from them), each partition's cursor past them; a pass after that trims them.
    const { redis, keys } = s.api.services;
    for (const id of users) expect(await redis.xlen(keys.forUser('_', id).log)).toBeGreaterThan(0);
    await drainLater();
    for (const id of users) expect(await redis.xlen(keys.forUser('_', id).log)).toBe(0);
    expect((await db.query('SELECT count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND user_id = ANY($2)', [s.prefix, users])).rows[0].n).toBe(6);
  });

  it('archives the lines compressed with lz4 (the server has it), read back as written', async () => {
    const { rows } = await db.query(`SELECT attcompression FROM pg_attribute WHERE attrelid = 'laurel_log'::regclass AND attname = 'lines'`);
    expect(rows[0].attcompression).toBe('l');
    // Forty events of one user drained in one pass: one partition's batch, a row long enough for
    // Postgres to compress. A server without workers, so no scheduled pass splits the forty.
    const own = await startTestServer();
    try {
      await own.metrics('long');
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push((await own.request('POST', '/api/metrics/long/event', { body: { user: { id: 'lz' }, value: 1, attributes: {} } })).body.eventId);
      await drainLogs(own.api.services, pool);
      const archived = await db.query(
        'SELECT pg_column_compression(lines) AS method FROM laurel_log WHERE prefix = $1 AND lines LIKE $2', [own.prefix, `%${ids[39]}%`],
      );
      expect(archived.rows.map((x) => x.method)).toEqual(['lz4']);
      const { rows: events } = await db.query("SELECT body->>'e' AS id FROM laurel_events WHERE prefix = $1 AND user_id = $2 ORDER BY stream_id", [own.prefix, 'lz']);
      expect(events.map((e) => e.id)).toEqual(ids);
    } finally {
      await own.close();
      await deletePostgresRows(own.settings, [own.prefix]);
    }
  });

  it('keeps copied entries for LOG_RETAIN_MS and copies each once: a later pass starts past them', async () => {
    await s.metrics('kept-steps');
    const { redis, keys } = s.api.services;
    const r = await s.request('POST', '/api/metrics/kept-steps/event', { body: { user: { id: 'once' }, value: 1 } });
    expect(r.status).toBe(201);
    await s.workers!.testing.drainNow();
    const log = keys.forUser('_', 'once').log;
    const [[id]] = await redis.xrevrange(log, '+', '-', 'COUNT', 1);
    // Deleted from the archive (its batch held only this entry): a pass that read it again would bring it back.
    await db.query(`DELETE FROM laurel_log WHERE prefix = $1 AND lines LIKE '%"u":"once"%'`, [s.prefix]);
    await s.workers!.testing.drainNow();
    // Still in Redis, not copied again (deleted above, it would be back).
    expect((await redis.xrange(log, id, id)).length).toBe(1);
    expect((await db.query('SELECT count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND user_id = $2', [s.prefix, 'once'])).rows[0].n).toBe(0);
    await drainLater();
    expect((await redis.xrange(log, id, id)).length).toBe(0);
  });

  it('archives each entry once with several drainers at work, each with cursors of its own', async () => {
    await s.metrics('shared-steps');
    const users = Array.from({ length: 40 }, (_, i) => `sh${i}`);
    const ids = await Promise.all(users.map(async (id) => {
      const r = await s.request('POST', '/api/metrics/shared-steps/event', { body: { user: { id }, value: 1 } });
      expect(r.status, r.text).toBe(201);
      return r.body.eventId as string;
    }));
    const other = new LogDrainer(s.api.services, pool);
    await Promise.all([other.drain(), new LogDrainer(s.api.services, pool).drain(), s.workers!.testing.drainNow(), other.drain()]);
    // Passes side by side in one drainer share its cursors: one that commits while another's reads
    // are out must not let the other take its own batch as read after the moved cursor (it would
    // archive the first one's entries again: a duplicate key in laurel_log). Rounds of new entries
    // drained by overlapping passes, the later ones started while the first is out.
    for (let round = 0; round < 5; round++) {
      const more = await Promise.all(users.map(async (id) => {
        const r = await s.request('POST', '/api/metrics/shared-steps/event', { body: { user: { id }, value: 1 } });
        return r.body.eventId as string;
      }));
      ids.push(...more);
      const first = other.drain();
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([first, other.drain(), other.drain()]);
    }
    const { rows } = await db.query(
      `SELECT body->>'e' AS e, count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND user_id = ANY($2) GROUP BY 1`, [s.prefix, users],
    );
    expect(rows.map((r) => r.e).sort()).toEqual([...ids].sort());
    expect(rows.every((r) => r.n === 1), JSON.stringify(rows)).toBe(true);
  });

  it('orders stream ids by time, then sequence', () => {
    expect(earlierStreamId('1700000000000-5', '1700000000001-0')).toBe('1700000000000-5');
    expect(earlierStreamId('1700000000001-0', '1700000000000-5')).toBe('1700000000000-5');
    expect(earlierStreamId('999-12', '999-3')).toBe('999-3');
    expect(earlierStreamId('10000-0', '9999-0')).toBe('9999-0');
  });

  it('copies an entry holding U+0000 or a lone surrogate with U+FFFD in their place, and the partition goes on', async () => {
    await s.metrics('poison');
    const { redis, keys } = s.api.services;
    const log = keys.forUser('_', 'p1').log;
    // As a log of before stop 15 may hold it (the api refuses such strings now).
    await redis.xadd(log, '*', 'event', JSON.stringify({ e: 'poisoned-1', t: '_', u: 'p1\u0000x', m: 'poison', v: 1, ts: Date.now(), d: '2026-01-01', a: { s: 'b\ud800' } }));
    const after = await s.request('POST', '/api/metrics/poison/event', { body: { user: { id: 'p1' }, value: 3 } });
    expect(after.status, after.text).toBe(201);
    await s.workers!.testing.drainNow();
    const { rows } = await db.query(
      'SELECT user_id, body FROM laurel_events WHERE prefix = $1 AND (body->>\'e\' = $2 OR body->>\'e\' = $3) ORDER BY stream_id',
      [s.prefix, 'poisoned-1', after.body.eventId],
    );
    expect(rows).toEqual([
      { user_id: 'p1\uFFFDx', body: expect.objectContaining({ u: 'p1\uFFFDx', a: { s: 'b\uFFFD' } }) },
      { user_id: 'p1', body: expect.objectContaining({ e: after.body.eventId, v: 3 }) },
    ]);
    await drainLater();
    expect(await redis.xlen(log)).toBe(0);
  });

  it('keeps the entries in Redis when Postgres refuses them', async () => {
    const other = await startTestServer();
    const bad = new pg.Pool({ connectionString: other.settings.databaseUrl.replace(/\/[^/]*$/, '/laurel_no_such_db') });
    try {
      await other.metrics('steps');
      await other.request('POST', '/api/metrics/steps/event', { body: { user: { id: 'kept' }, value: 1 } });
      const log = other.api.services.keys.forUser('_', 'kept').log;
      expect(await other.api.services.redis.xlen(log)).toBe(1);
      await expect(drainLogs(other.api.services, bad)).rejects.toThrow();
      expect(await other.api.services.redis.xlen(log)).toBe(1);
    } finally {
      await bad.end();
      await other.close();
    }
  });

  it('archives once Redis is back when its first pass could not reach it, before it had read where the archive ends', async () => {
    const machine = new URL(s.settings.redisUrl);
    const proxy = await startTcpProxy({ host: machine.hostname, port: Number(machine.port || 6379) });
    const other = await startTestServer({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_CLUSTER_NODES: '' } });
    try {
      await other.metrics('steps');
      const sent = await other.request('POST', '/api/metrics/steps/event', { body: { user: { id: 'back' }, value: 1 } });
      expect(sent.status, sent.text).toBe(201);
      // No consumers: the pass's first read of Redis is where each partition's archive ends.
      const drainer = new LogDrainer(other.api.services, pool, undefined, []);
      await proxy.cut();
      await expect(drainer.drain()).rejects.toThrow(/enableOfflineQueue/);
      await proxy.restore();
      // The same drainer, once Redis answers again: what failed is read again, not kept.
      await eventually(async () => expect(await other.api.services.redis.ping()).toBe('PONG'));
      expect((await drainer.drain()).drained).toBe(1);
      const { rows } = await db.query('SELECT count(*)::int AS n FROM laurel_events WHERE prefix = $1 AND user_id = $2', [other.prefix, 'back']);
      expect(rows[0].n).toBe(1);
    } finally {
      await deletePostgresRows(other.settings, [other.prefix]);
      await other.close();
      await proxy.close();
    }
  });

  it('drains while another installation on the same Postgres is in the middle of its backfill', async () => {
    const other = await startTestServer();
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let entered = () => undefined as void;
    const inside = new Promise<void>((resolve) => { entered = resolve; });
    // Another installation's backfill, its transaction (and its lock) held open meanwhile.
    const backfilling = backfillChunk(pool, `${other.prefix}-elsewhere`, null, 10, async () => { entered(); await held; });
    try {
      await inside;
      await other.metrics('steps');
      const sent = await other.request('POST', '/api/metrics/steps/event', { body: { user: { id: 'beside' }, value: 1 } });
      expect(sent.status, sent.text).toBe(201);
      expect((await new LogDrainer(other.api.services, pool).drain()).drained).toBe(1);
    } finally {
      release();
      await backfilling;
      await deletePostgresRows(other.settings, [other.prefix]);
      await other.close();
    }
  });

  it('archives an extension\'s streak state with its entry; the rankings have it before the drain', async () => {
    await withStreakServer(async (other, pool) => {
      await other.setClock('2026-02-02T12:00:00Z');
      await other.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'ranked', name: 'R' }, value: 1 } });
      expect((await other.request('GET', '/v1/streaks/rankings')).body).toEqual([{ userId: 'ranked', name: 'R', streakLength: 1 }]);
      await drainLogs(other.api.services, pool);
      expect((await other.request('GET', '/v1/users/ranked/streak')).body.rank).toBe(1);
      // The streak's state travels in a field of its own and is stored in the body.
      const { rows } = await pool.query('SELECT body FROM laurel_events WHERE prefix = $1 AND user_id = $2', [other.prefix, 'ranked']);
      expect(rows).toEqual([{ body: expect.objectContaining({ u: 'ranked', sx: expect.stringMatching(/^d\|1\|/) }) }]);
    });
  });

  it('puts an entry\'s own fields back into its body, and leaves a one-field entry as it is', () => {
    expect(JSON.parse(entryBody(['event', '{"e":"x","v":1}', 'sx', 'd|1|20000|20000||20000|1|20000||', 'pa', '[["s","t",10,10,1,""]]'])))
      .toEqual({ e: 'x', v: 1, sx: 'd|1|20000|20000||20000|1|20000||', pa: [['s', 't', 10, 10, 1, '']] });
    expect(entryBody(['event', '{"e":"x","sx":"old"}'])).toBe('{"e":"x","sx":"old"}');
    expect(entryBody(['user', '{"u":"a"}', 'pa', '[]'])).toBe('{"u":"a","pa":[]}');
    expect(JSON.parse(entryBody(['event', '{"e":"x"}', 'ac', '["a1","a2"]']))).toEqual({ e: 'x', ac: ['a1', 'a2'] });
  });

  it('stores the achievements an event completed with its entry, beside its streak and awards', async () => {
    await withStreakServer(async (other, pool) => {
      await other.setClock('2026-02-02T12:00:00Z');
      const metricId = ((await other.request('GET', '/admin/v1/metrics')).body as { id: string; key: string }[]).find((m) => m.key === 'lessons')!.id;
      const made = await other.request('POST', '/admin/v1/achievements', {
        body: [
          { name: 'Two', key: 'two', trigger: 'metric', metricId, metricValue: 2 },
          { name: 'Three', key: 'three', trigger: 'metric', metricId, metricValue: 3 },
          { name: 'First day', key: 'first-day', trigger: 'streak', streakLength: 1 },
        ],
      });
      expect(made.status, made.text).toBe(201);
      const [two, three, firstDay] = (made.body.created as { id: string }[]).map((a) => a.id);
      const points = await other.request('POST', '/admin/v1/points', {
        body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId, metricThreshold: 1, points: 5, status: 'active' }] }],
      });
      expect(points.status, points.text).toBe(201);
      const send = async (value: number) => (await other.event('lessons', 'achiever', value)).eventId as string;
      const first = await send(1);
      const second = await send(3);
      const third = await send(1);
      await drainLogs(other.api.services, pool);
      const { rows } = await pool.query('SELECT body FROM laurel_events WHERE prefix = $1 AND user_id = $2', [other.prefix, 'achiever']);
      const byEvent = new Map(rows.map((r) => [r.body.e, r.body]));
      expect(byEvent.get(first)).toMatchObject({ ac: [firstDay], sx: expect.stringMatching(/^d\|1\|/), pa: [[expect.any(String), expect.any(String), 5, 5, 1, '']] });
      expect(byEvent.get(second)).toMatchObject({ ac: [two, three], pa: [[expect.any(String), expect.any(String), 15, 20, 2, '']] });
      expect(byEvent.get(second)).not.toHaveProperty('sx');
      expect(byEvent.get(third)).not.toHaveProperty('ac');
    });
  });

  it('ranks several extensions of one user by the last (current) and the highest (longest)', async () => {
    await withStreakServer(async (other, pool) => {
      // Three days in a row, a missed day (no freezes: the streak restarts), then one more; and a
      // drain of them all, which changes nothing.
      for (const day of ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-06']) {
        await other.setClock(`${day}T12:00:00Z`);
        await other.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'many', name: 'M' }, value: 1 } });
      }
      await other.request('POST', '/api/metrics/lessons/event', { body: { user: { id: 'once', name: 'O' }, value: 1 } });
      await drainLogs(other.api.services, pool);
      // 'once' and 'many' reached length 1 at the same instant (the manual clock stood): equal
      // scores, so only the lengths are compared here.
      const lengths = async (query: string) => Object.fromEntries(((await other.request('GET', `/v1/streaks/rankings${query}`)).body as
        { userId: string; streakLength: number }[]).map((r) => [r.userId, r.streakLength]));
      expect(await lengths('')).toEqual({ many: 1, once: 1 });
      expect(await lengths('?type=longest')).toEqual({ many: 3, once: 1 });
      expect((await other.request('GET', '/v1/streaks/rankings?type=longest')).body[0]).toMatchObject({ userId: 'many', name: 'M' });
    });
  });

  it('keeps the points totals from the awards of events and API completions alike, without the drain', async () => {
    const { 'totals-lessons': lessons } = await s.metrics('totals-lessons');
    const done = await s.request('POST', '/admin/v1/achievements', { body: [{ name: 'Totals hello', key: 'totals-hello', trigger: 'api' }] });
    expect(done.status, done.text).toBe(201);
    const system = await s.request('POST', '/admin/v1/points', {
      body: [{
        name: 'Totals', key: 'totals',
        triggers: [
          { type: 'metric', metricId: lessons, metricThreshold: 1, points: 10, status: 'active' },
          { type: 'achievement', achievementId: done.body.created[0].id, points: 25, status: 'active' },
        ],
      }],
    });
    expect(system.status, system.text).toBe(201);
    await s.event('totals-lessons', 'tot-a', 2);
    const completed = await s.request('POST', '/api/achievements/totals-hello/complete', { body: { user: { id: 'tot-b' } } });
    expect(completed.status, completed.text).toBe(201);
    const { redis, keys } = s.api.services;
    // Each in the partition's totals of the system (lua/includes/points.lua), written with the award.
    const totalOf = (user: string) => {
      const t = keys.partitionPointsTotal('_', user, system.body.created[0].id);
      return redis.hget(t.key, t.field);
    };
    expect([await totalOf('tot-a'), await totalOf('tot-b')]).toEqual(['20', '25']);
  });

  it('moves the points totals an older laurel kept in a set per tenant into the partitions\' totals, once', async () => {
    const { redis, keys } = s.api.services;
    const old = `${keys.prefix}:{pts:_}:old-system`;
    await redis.zadd(old, 40, 'mover', 7, 'odd:id');
    await redis.hset(`${old}:seq`, 'mover', '1700000000000-1');
    // A total the current scripts wrote already is newer: it stays.
    const kept = keys.partitionPointsTotal('_', 'mover', 'old-system');
    await redis.hset(kept.key, kept.field, '50');
    expect(await movePointsTotals(s.api.services)).toBe(2);
    const odd = keys.partitionPointsTotal('_', 'odd:id', 'old-system');
    expect([await redis.hget(kept.key, kept.field), await redis.hget(odd.key, odd.field)]).toEqual(['50', '7']);
    expect(await redis.exists(old, `${old}:seq`)).toBe(0);
    expect(await movePointsTotals(s.api.services)).toBe(0);
  });

  it('moves the streak rankings\' members and sequences an older laurel kept apart into the standing hash, once', async () => {
    const { redis, keys } = s.api.services;
    const tenant = 'upgrade-tenant';
    const k = keys.streakRankings(tenant);
    const base = k.standing.slice(0, -1);
    const order = (n: number) => String(n).padStart(21, '0');
    // amy: ordered members, her sequence; old: the bare user id of the oldest laurel, no sequence.
    await redis.zadd(k.active, 3, `${order(5)}|amy`, 2, 'old');
    await redis.zadd(k.longest, 4, `${order(4)}|amy`, 6, 'old');
    await redis.hset(`${base}am`, 'amy', `${order(5)}|amy`);
    await redis.hset(`${base}lm`, 'amy', `${order(4)}|amy`);
    await redis.hset(`${base}seq`, 'amy', '1700000000000-3');
    expect(await moveStreakStanding(s.api.services)).toBe(2);
    expect(await redis.hgetall(k.standing)).toEqual({
      amy: `1700000000000-3|${order(5)}|3|${order(4)}|4`,
      old: '||2||6',
    });
    expect(await redis.exists(`${base}am`, `${base}lm`, `${base}seq`)).toBe(0);
    // From there the script finds each member: a later extension replaces both of old's.
    expect(await rankStreak(s.api.services, tenant, 'old', { length: 7, longest: 7, expiry: 9e12 }, 0, '1700000000001-0')).toBe(1);
    expect(await redis.zrange(k.active, 0, -1)).toEqual([`${order(5)}|amy`, `${orderOf(0, '1700000000001-0')}|old`]);
    expect(await redis.zrange(k.longest, 0, -1)).toEqual([`${order(4)}|amy`, `${orderOf(0, '1700000000001-0')}|old`]);
    expect(await moveStreakStanding(s.api.services)).toBe(0);
    await redis.del(k.active, k.longest, k.expiry, k.standing);
  });

  it('computes the id after a stream id', () => {
    expect(nextStreamId('1700000000000-0')).toBe('1700000000000-1');
    expect(nextStreamId('1700000000000-18446744073709551614')).toBe('1700000000000-18446744073709551615');
  });
});

describe('the archive of an earlier version', () => {
  it('keeps the rows it archived one by one in the view of every entry', async () => {
    const name = `laurel_migrate_${Date.now().toString(36)}`;
    const url = new URL(s.settings.databaseUrl);
    await db.query(`CREATE DATABASE ${name}`);
    try {
      url.pathname = `/${name}`;
      const old = new pg.Client({ connectionString: url.toString() });
      await old.connect();
      await old.query(`CREATE TABLE laurel_events (prefix text NOT NULL, partition integer NOT NULL, stream_id text NOT NULL,
        kind text NOT NULL, tenant text NOT NULL, user_id text NOT NULL, occurred_at timestamptz NOT NULL, body jsonb NOT NULL,
        drained_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (prefix, partition, stream_id))`);
      await old.query(`INSERT INTO laurel_events VALUES ('p', 3, '1700000000000-0', 'event', '_', 'ann', now(), '{"e":"x","u":"ann","t":"_"}')`);
      await old.end();
      const migrated = await connectPostgres({ ...s.settings, databaseUrl: url.toString() });
      try {
        await migrated.query(`INSERT INTO laurel_log (prefix, partition, first_id, last_id, entries, first_at, last_at, lines)
          VALUES ('p', 3, '1700000000001-0', '1700000000001-0', 1, now(), now(), $1)`, [`1700000000001-0\tuser\t{"t":"_","u":"bo","ts":1700000000001,"f":{}}`]);
        const { rows } = await migrated.query('SELECT stream_id, kind, user_id, occurred_at FROM laurel_events ORDER BY stream_id');
        expect(rows.map((r) => [r.stream_id, r.kind, r.user_id])).toEqual([['1700000000000-0', 'event', 'ann'], ['1700000000001-0', 'user', 'bo']]);
        expect(rows[1].occurred_at.getTime()).toBe(1700000000001);
        // Starting again changes nothing.
        await (await connectPostgres({ ...s.settings, databaseUrl: url.toString() })).end();
      } finally {
        await migrated.end();
      }
    } finally {
      await db.query(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  });
});

