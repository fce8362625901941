/**
 * The drain reads the rows of the users a batch saw (src/postgres/analytics/rollups.ts
 * STORED_USERS_SQL) and moves a returning user's day (NEW_DAY_SQL), and an erasure deletes a user's row (src/postgres/erasure.ts eraseRowsSql),
 * by each user's whole key whether or not Postgres has statistics of the directory: in a new installation's database, before the table is first analysed, a join once
 * read every row of the tenant per user (the (prefix, tenant, user_id "C") index used for the
 * prefix and the tenant only) or per batch (a hash join). Asked of Postgres's planner on a database of the test's own,
 * with laurel's tables, 20,000 users in one tenant and autovacuum off for the table (so nothing
 * analyses it behind the test's back), before and after ANALYZE.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEW_DAY_SQL, STORED_USERS_SQL } from '../../src/postgres/analytics/rollups.js';
import { eraseRowsSql } from '../../src/postgres/erasure.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { loadSettings } from '../../src/lib/settings.js';

describe('the drain\'s lookup of the users a batch saw', () => {
  const name = `laurel_plan_${randomBytes(5).toString('hex')}`;
  const serverUrl = loadSettings(process.env).databaseUrl;
  const url = serverUrl.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  let admin: pg.Client;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    pool = await connectPostgres(loadSettings({ ...process.env, DATABASE_URL: url }));
    await pool.query('ALTER TABLE laurel_rollup_users SET (autovacuum_enabled = false)');
    await pool.query(`INSERT INTO laurel_rollup_users (prefix, tenant, user_id, first_ms, control, last_active)
      SELECT 'p', '_', 'user-' || g, 0, false, 20000 FROM generate_series(1, 20000) g`);
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.end();
  });

  /** The plan's lines for 100 of the users (EXPLAIN, not run). */
  const plan = async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `user-${i * 197 + 1}`);
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${STORED_USERS_SQL}`, ['p', ids.map(() => '_'), ids]);
    return rows.map((r) => r['QUERY PLAN']);
  };
  /** The plan's lines of a pass's new day for the same users (EXPLAIN, not run). */
  const newDay = async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `user-${i * 197 + 1}`);
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${NEW_DAY_SQL}`, ['p', ids.map(() => '_'), ids, ids.map(() => 20001)]);
    return rows.map((r) => r['QUERY PLAN']);
  };
  /** Whether the plan reaches each user by an index condition on all three columns, filtering nothing. */
  const byWholeKey = (lines: string[]) =>
    lines.some((l) => /Index Cond: .*prefix.*tenant.*user_id/.test(l)) && !lines.some((l) => /Filter: .*user_id/.test(l));

  /** The plan's lines of an erasure's deletion of one user's directory row (EXPLAIN, not run). */
  const erasure = async () => {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${eraseRowsSql('laurel_rollup_users')}`, ['p', '_', 'user-4001']);
    return rows.map((r) => r['QUERY PLAN']);
  };

  it('reaches each user by the whole key, before and after the table is analysed', async () => {
    for (const lines of [await plan(), await newDay(), await erasure()]) expect(byWholeKey(lines), lines.join('\n')).toBe(true);
    await pool.query('ANALYZE laurel_rollup_users');
    for (const lines of [await plan(), await newDay(), await erasure()]) expect(byWholeKey(lines), lines.join('\n')).toBe(true);
  });
});
