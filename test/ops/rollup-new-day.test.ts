/**
 * The rollups of the users a drain pass saw (src/postgres/analytics/rollups.ts writeRollup): a
 * returning user's new day moved in one statement (NEW_DAY_SQL), everyone else read and written,
 * counted exactly as the users' own history says. Random passes (users first seen, returning on
 * later days, on one day or two, on an earlier day than their last, identified, in the control
 * group or not), written as the drain writes them (a transaction each, with what the drainer
 * knows of the rows), against counts kept in the test: the days' active, new and control users,
 * the retention, and each user's row.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRollup, DAY_MS, type BatchRollup, type UserSeen } from '../../src/domain/analytics-rollup.js';
import { RETENTION_DAYS } from '../../src/domain/analytics.js';
import { EPOCH_SQL, KnownUsers } from '../../src/postgres/analytics/known-users.js';
import { writeRollup } from '../../src/postgres/analytics/rollups.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { loadSettings } from '../../src/lib/settings.js';
import { random } from '../../bench/random.js';

const TABLES = ['laurel_rollup_days', 'laurel_rollup_users', 'laurel_rollup_retention', 'laurel_rollup_metrics', 'laurel_rollup_achievements'];
const FIRST_DAY = 20_500;

interface Truth { firstMs: number; control: boolean; last: number | null; retained: number | null }

describe('the rollups of returning users', () => {
  const prefix = `rollnd${randomBytes(4).toString('hex')}`;
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = await connectPostgres(loadSettings(process.env));
  });
  /** A pass's rollup written as the drain writes it: in a transaction, with what the drainer knows, which learns the rows once it committed. */
  const write = async (r: BatchRollup, known: KnownUsers) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      known.at((await client.query<{ epoch: string }>(EPOCH_SQL)).rows[0].epoch);
      const noted = await writeRollup(client, prefix, r, known);
      await client.query('COMMIT');
      known.note(noted);
    } finally {
      client.release();
    }
  };
  afterAll(async () => {
    for (const table of TABLES) await pool?.query(`DELETE FROM ${table} WHERE prefix = $1`, [prefix]);
    await pool?.end();
  });

  it('counts each user active once a day, new once and retained once, as their history says', { timeout: 60_000 }, async () => {
    const next = random(20261127);
    const pick = (n: number) => Math.floor(next() * n);
    const tenants = ['_', 't2'];
    const users = Array.from({ length: 240 }, (_, i) => ({ tenant: tenants[i % 2], userId: `u${i}`, control: i % 5 === 0 }));
    const truth = new Map<string, Truth>();
    const active = new Map<string, number>();
    const fresh = new Map<string, number>();
    const freshControl = new Map<string, number>();
    const retention = new Map<string, number>();
    const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    const known = new KnownUsers(100);

    // Passes over 30 days, a day every two passes; a user's days in a pass are the pass's day and
    // sometimes the day after it, or an earlier day than their last (the manual clock moved back).
    for (let pass = 0; pass < 60; pass++) {
      const today = FIRST_DAY + Math.floor(pass / 2);
      const r: BatchRollup = emptyRollup();
      for (const u of users) {
        if (next() > 0.35) continue;
        const key = `${u.tenant}\0${u.userId}`;
        const roll = next();
        const days = roll < 0.1 ? [today, today + 1] : roll < 0.15 ? [Math.max(FIRST_DAY, today - 1 - pick(5))] : roll < 0.2 ? [] : [today];
        const seen: UserSeen = { tenant: u.tenant, userId: u.userId, firstMs: today * DAY_MS + pick(DAY_MS), control: u.control, activeDays: days };
        if (next() < 0.1) seen.ident = { name: `name ${pass}` };
        r.users.set(key, seen);
        // What the user's history says.
        let t = truth.get(key);
        if (t === undefined) {
          t = { firstMs: seen.firstMs, control: u.control, last: null, retained: null };
          truth.set(key, t);
          const firstDay = Math.floor(t.firstMs / DAY_MS);
          add(fresh, `${u.tenant}\0${firstDay}`);
          if (u.control) add(freshControl, `${u.tenant}\0${firstDay}`);
        }
        const firstDay = Math.floor(t.firstMs / DAY_MS);
        for (const day of days) {
          if (t.last !== null && day <= t.last) continue;
          t.last = day;
          add(active, `${u.tenant}\0${day}`);
          if (t.retained === null && day >= firstDay + RETENTION_DAYS) {
            t.retained = day;
            add(retention, `${u.tenant}\0${firstDay}\0${u.control}\0${day}`);
          }
        }
      }
      await write(r, known);
    }

    const { rows: days } = await pool.query<{ tenant: string; day: number; active_users: string; new_users: string; new_control: string }>(
      `SELECT tenant, (day - date '1970-01-01') AS day, active_users, new_users, new_control FROM laurel_rollup_days WHERE prefix = $1`, [prefix]);
    const got = (column: 'active_users' | 'new_users' | 'new_control') =>
      new Map(days.filter((d) => Number(d[column]) > 0).map((d) => [`${d.tenant}\0${d.day}`, Number(d[column])]));
    expect(got('active_users')).toEqual(active);
    expect(got('new_users')).toEqual(fresh);
    expect(got('new_control')).toEqual(freshControl);
    expect(retention.size).toBeGreaterThan(20);

    const { rows: kept } = await pool.query<{ tenant: string; first_day: number; control: boolean; retained_day: number; users: string }>(
      `SELECT tenant, (first_day - date '1970-01-01') AS first_day, control, (retained_day - date '1970-01-01') AS retained_day, users
       FROM laurel_rollup_retention WHERE prefix = $1`, [prefix]);
    expect(new Map(kept.map((k) => [`${k.tenant}\0${k.first_day}\0${k.control}\0${k.retained_day}`, Number(k.users)]))).toEqual(retention);

    const { rows: rows } = await pool.query<{ tenant: string; user_id: string; first_ms: string; control: boolean; last_active: number | null; retained: number | null }>(
      'SELECT tenant, user_id, first_ms, control, last_active, retained FROM laurel_rollup_users WHERE prefix = $1', [prefix]);
    expect(new Map(rows.map((u) => [`${u.tenant}\0${u.user_id}`, { firstMs: Number(u.first_ms), control: u.control, last: u.last_active, retained: u.retained }])))
      .toEqual(truth);
  });

  it('reads the users it does not know at once while they are new, and moves them first once they are mostly returning', async () => {
    const pass = async (known: KnownUsers, from: number, day: number) => {
      const r = emptyRollup();
      for (let i = from; i < from + 50; i++) {
        r.users.set(`g\0n${i}`, { tenant: 'g', userId: `n${i}`, firstMs: day * DAY_MS, control: false, activeDays: [day] });
      }
      await write(r, known);
    };
    // A launch day: every pass's users new.
    const launch = new KnownUsers();
    for (let p = 0; p < 6; p++) await pass(launch, p * 50, FIRST_DAY);
    expect(launch.unknownMostlyReturning()).toBe(false);
    // A drainer started the day after on those users: returning ones it does not know.
    const restarted = new KnownUsers();
    for (let p = 0; p < 6; p++) await pass(restarted, p * 50, FIRST_DAY + 1);
    expect(restarted.unknownMostlyReturning()).toBe(true);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM laurel_rollup_users WHERE prefix = $1 AND tenant = $2 AND last_active = $3', [prefix, 'g', FIRST_DAY + 1]);
    expect(Number(rows[0].n)).toBe(300);
  });
});
