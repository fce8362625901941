/**
 * laurel's own database: DATABASE_URL unset names `laurel`, created when missing where the role may
 * create databases (two processes at once too); a database named explicitly is not created, and
 * its absence is said; a role without CREATEDB is told what to do; the old default (the `postgres`
 * database) works when named.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL, loadSettings, type Settings } from '../../src/lib/settings.js';
import { connectPostgres, PostgresUnavailableError } from '../../src/postgres/pool.js';
import { portOf } from '../support/listening.js';
import { killCliProcesses, runCli } from '../support/cli.js';
import { deletePostgresRows, deletePrefix } from '../support/server.js';

const machine = loadSettings();
/** The machine's Postgres server, its maintenance database. */
const server = (() => {
  const u = new URL(machine.databaseUrl);
  u.pathname = '/postgres';
  return u;
})();
const databases: string[] = [];
const roles: string[] = [];
const prefixes: string[] = [];

/** A database name no one has, dropped after the file. */
function freshName(): string {
  const name = `laurel_dbtest_${randomBytes(5).toString('hex')}`;
  databases.push(name);
  return name;
}

function urlOf(database: string, role?: string): string {
  const u = new URL(server.href);
  u.pathname = `/${database}`;
  if (role !== undefined) u.username = role;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: server.toString() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const exists = (name: string) => admin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);

afterAll(async () => {
  killCliProcesses();
  for (const p of prefixes) await deletePrefix(machine, p);
  await deletePostgresRows({ ...machine, databaseUrl: server.toString() }, prefixes);
  await admin(async (c) => {
    for (const d of databases) await c.query(`DROP DATABASE IF EXISTS ${d} WITH (FORCE)`);
    for (const r of roles) await c.query(`DROP ROLE IF EXISTS ${r}`);
  });
});

describe('laurel\'s own database', () => {
  it('is `laurel` on the machine\'s Postgres when DATABASE_URL is unset, and only then created by laurel', () => {
    expect(DEFAULT_DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/laurel');
    const unset = loadSettings({});
    expect(unset.databaseUrl).toBe(DEFAULT_DATABASE_URL);
    expect(unset.databaseCreate).toBe(true);
    const named = loadSettings({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' });
    expect(named.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/postgres');
    expect(named.databaseCreate).toBe(false);
  });

  it('is created with its tables when missing, by two processes at once as by one', async () => {
    const name = freshName();
    const settings: Settings = { ...machine, databaseUrl: urlOf(name), databaseCreate: true };
    expect(await exists(name)).toBe(false);
    const pools = await Promise.all([connectPostgres(settings), connectPostgres(settings)]);
    try {
      expect(await exists(name)).toBe(true);
      const tables = await pools[0].query<{ t: string }>("SELECT to_regclass('laurel_log')::text AS t");
      expect(tables.rows[0].t).toBe('laurel_log');
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    // Started again, it finds it there.
    await (await connectPostgres(settings)).end();
  });

  it('starts beside a long transaction on its tables once its schema is there, and upgrades one that is not', async () => {
    const name = freshName();
    const settings: Settings = { ...machine, databaseUrl: urlOf(name), databaseCreate: true };
    await (await connectPostgres(settings)).end();
    const reader = new pg.Client({ connectionString: urlOf(name) });
    await reader.connect();
    try {
      // A transaction reading the archive (a long analytics query, a stalled client), open throughout.
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM laurel_log');
      /** Whether a statement of a start-up waits for a table's lock (it would, with the reader's queries queued behind it). */
      const waiting = async () => (await admin(async (c) => c.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", [name],
      ))).rowCount! > 0;
      let settled = false;
      const started = connectPostgres(settings).then((pool) => pool.end()).finally(() => { settled = true; });
      while (!settled) {
        expect(await waiting(), 'a statement of the start-up waits for a table\'s lock').toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await started;
      await reader.query('ROLLBACK');
      // Another version's schema (its digest): the migrations run, and the digest is this version's after.
      const digest = async () => (await reader.query<{ digest: string }>('SELECT digest FROM laurel_schema')).rows[0].digest;
      const current = await digest();
      await reader.query("UPDATE laurel_schema SET digest = 'an earlier version'");
      await reader.query('DROP INDEX laurel_log_unrolled');
      await (await connectPostgres(settings)).end();
      expect(await digest()).toBe(current);
      expect((await reader.query("SELECT to_regclass('laurel_log_unrolled')::text AS t")).rows[0].t).toBe('laurel_log_unrolled');
    } finally {
      await reader.end();
    }
  });

  it('is not created when DATABASE_URL names it: its absence is said, and nothing is created', async () => {
    const name = freshName();
    const err = await connectPostgres({ ...machine, databaseUrl: urlOf(name), databaseCreate: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostgresUnavailableError);
    expect((err as Error).message).toBe(`laurel cannot use Postgres at ${urlOf(name).replace('postgres@', '***@')}: database "${name}" does not exist: ` +
      `create it (createdb ${name}) or point DATABASE_URL at one (unset, laurel uses a database "laurel", created when missing).`);
    expect(await exists(name)).toBe(false);
  });

  it('tells a role that may not create databases what to do', async () => {
    const role = `laurel_nocreate_${randomBytes(4).toString('hex')}`;
    roles.push(role);
    await admin((c) => c.query(`CREATE ROLE ${role} LOGIN NOCREATEDB`));
    const name = freshName();
    const err = await connectPostgres({ ...machine, databaseUrl: urlOf(name, role), databaseCreate: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostgresUnavailableError);
    expect((err as Error).message).toMatch(new RegExp(`database "${name}" does not exist, and role "${role}" may not create databases: ` +
      `create it \\(createdb ${name}\\) or point DATABASE_URL at one\\.$`));
    expect(await exists(name)).toBe(false);
  });

  it('the old default, the `postgres` database, serves laurel start when named', async () => {
    const prefix = `t${randomBytes(5).toString('hex')}`;
    prefixes.push(prefix);
    // PORT=0 and info: the primary says which port the kernel picked once its api process listens.
    const run = runCli(['start'], { PORT: '0', LAUREL_PREFIX: prefix, LAUREL_ADMIN_KEY: `k-${prefix}`, LOG_LEVEL: 'info', DATABASE_URL: server.toString() });
    // The workers copy the configuration into the database named.
    await expect.poll(async () => {
      expect(run.child.exitCode, run.output()).toBeNull();
      return admin(async (c) => (await c.query('SELECT count(*)::int AS n FROM laurel_config WHERE prefix = $1', [prefix])).rows[0].n);
    }, { timeout: 30_000 }).toBeGreaterThan(0);
    // The api process listens once it has started (beside the workers).
    const port = await portOf(run, 'processes');
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null))?.status, { timeout: 15_000 }).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
