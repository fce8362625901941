/**
 * The analytics from rollups (docs/dashboard.md, "Analytics"): an archive of an earlier version
 * (hundreds of thousands of entries, seeded with SQL) rolled up by the backfill the drain runs
 * first, its figures those the archive itself gives; then a read that never touches the archive
 * (answered while another transaction holds `laurel_log` locked), and the events drained since
 * added to the same rollups.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '../../src/postgres/pool.js';
import { drainLogs } from '../../src/engine/log-drain/drain.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';

const DAY_MS = 86_400_000;
const START = Date.parse('2026-03-01T00:00:00Z');
const USERS = 5000;
const ROWS = 300;
const PER_ROW = 1000;

describe('analytics from rollups', () => {
  let s: TestServer;
  let pool: pg.Pool;
  beforeAll(async () => {
    s = await startTestServer({ clock: 'manual' });
    pool = await connectPostgres(s.settings);
  });
  afterAll(async () => {
    await pool?.end();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
    await s?.close();
  });

  it('rolls up a large archive once, reads without scanning it, and adds what is drained since', async () => {
    await s.setClock('2026-03-14T12:00:00Z');
    const { lessons } = await s.metrics('lessons');
    // 300,000 archived events of the default tenant ('_') over 14 days: entry i of row r is user
    // (r * 1000 + i) % 5000, on day (r * 7 + i) % 14, one in a hundred completing achievement 'a1'.
    await pool.query(
      `INSERT INTO laurel_log (prefix, partition, first_id, last_id, entries, first_at, last_at, lines)
       SELECT $1, r % 8, (1000000 + r) || '-0', (1000000 + r) || '-999', $3, now(), now(),
              string_agg((1000000 + r) || '-' || i || E'\\tevent\\t' ||
                json_build_object('e', 'x', 't', '_', 'u', 'u' || ((r * $3 + i) % $4), 'm', $2::text, 'v', 1,
                  'ts', $5::bigint + ((r * 7 + i) % 14) * ${DAY_MS}::bigint + i, 'd', 'x', 'p', 'gone')::text ||
                CASE WHEN i % 100 = 0 THEN E'\\tac\\t["a1"]' ELSE '' END, E'\\n' ORDER BY i)
       FROM generate_series(0, $6 - 1) AS r, generate_series(0, $3 - 1) AS i GROUP BY r`,
      [s.prefix, lessons, PER_ROW, USERS, START, ROWS],
    );
    // The field 'ac' as the archive writes it: inside the body.
    await pool.query(
      `UPDATE laurel_log SET lines = regexp_replace(lines, E'}\\tac\\t(\\\\["a1"\\\\])', ',"ac":\\1}', 'g') WHERE prefix = $1`, [s.prefix],
    );
    // What the archive itself says, per day: events, distinct users, completions.
    const { rows: truth } = await pool.query<{ date: string; events: string; users: string; completions: string }>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*) AS events, count(DISTINCT user_id) AS users,
              count(*) FILTER (WHERE body ? 'ac') AS completions
       FROM laurel_events WHERE prefix = $1 GROUP BY 1 ORDER BY 1`, [s.prefix],
    );
    expect(truth.reduce((n, d) => n + Number(d.events), 0)).toBe(ROWS * PER_ROW);

    // The drain rolls the archive up before anything else (a second at a time), then drains.
    for (let i = 0; i < 200; i++) {
      await drainLogs(s.api.services, pool);
      const left = await pool.query('SELECT 1 FROM laurel_log WHERE prefix = $1 AND NOT rolled LIMIT 1', [s.prefix]);
      if (left.rowCount === 0) break;
    }
    const read = async () => {
      const r = await s.request('GET', '/admin/v1/analytics?from=2026-03-01&to=2026-03-14');
      expect(r.status, r.text).toBe(200);
      return r.body as { days: { date: string; events: number; activeUsers: number; newUsers: number; completions: number; byMetric: Record<string, number> }[];
        activeUsers: number };
    };
    const body = await read();
    expect(body.days.map((d) => [d.date, d.events, d.activeUsers, d.completions])).toEqual(
      truth.map((d) => [d.date, Number(d.events), Number(d.users), Number(d.completions)]),
    );
    expect(body.days.every((d) => d.byMetric.lessons === d.events)).toBe(true);
    expect(body.days.reduce((n, d) => n + d.newUsers, 0)).toBe(USERS);
    // The range's distinct users: a HyperLogLog (0.81% standard error).
    expect(Math.abs(body.activeUsers - USERS)).toBeLessThan(USERS * 0.03);

    // The read touches no archive row: it answers while another transaction holds the archive locked.
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE laurel_log IN ACCESS EXCLUSIVE MODE');
      const locked = await read();
      expect(locked.days).toEqual(body.days);
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
    }

    // Events drained since add to the same days: a user of the archive again, and a new one.
    const u1Before = await pool.query(
      `SELECT 1 FROM laurel_events WHERE prefix = $1 AND user_id = 'u1' AND occurred_at >= '2026-03-14T00:00:00Z' AND occurred_at < '2026-03-15T00:00:00Z' LIMIT 1`, [s.prefix],
    );
    await s.event('lessons', 'u1', 1);
    await s.event('lessons', 'newcomer', 1);
    await drainLogs(s.api.services, pool);
    const after = await read();
    const day14 = (b: typeof body) => b.days.find((d) => d.date === '2026-03-14')!;
    expect(day14(after).events).toBe(day14(body).events + 2);
    expect(day14(after).newUsers).toBe(day14(body).newUsers + 1);
    // u1 counts once on the 14th, whether the archive had it active then or not.
    expect(day14(after).activeUsers).toBe(day14(body).activeUsers + (u1Before.rowCount === 1 ? 1 : 2));
  });
});
