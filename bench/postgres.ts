/**
 * The runner's own Postgres connection, for the variants whose workers run (they copy the event
 * log and the configuration into Postgres, src/postgres/pool.ts). Each such variant gets a database
 * of its own on the server of DATABASE_URL, created before it starts and dropped once it has
 * stopped (its rows go with it): laurel creates its tables there as on a fresh install, and
 * neither another engineer's schema in the shared database (a migration of theirs in progress) nor
 * a BENCH_BASELINE tree's older schema meets this checkout's.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Postgres is not reachable: a setup problem, reported without a stack. */
export class PostgresUnavailableError extends Error {}

const hide = (url: string) => url.replace(/\/\/([^@/]*)@/, '//***@');

export async function connectPostgres(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    await client.end().catch(() => {});
    throw new PostgresUnavailableError(
      `the variants whose workers run (laurel-system, laurel-split) need Postgres at ${hide(url)} ` +
        `(${(err as Error).message}). Start PostgreSQL 15+, point DATABASE_URL at one, or leave those variants out of BENCH_VARIANTS.`,
    );
  }
  return client;
}

/** `server_version` (e.g. "15.14 (Debian 15.14-0+deb12u1)"). */
export async function postgresVersion(client: pg.Client): Promise<string> {
  const r = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  return r.rows[0]?.v ?? 'unknown';
}

/** The bench's databases: `laurel_bench_<12 hex>`. */
const NAME = /^laurel_bench_[0-9a-f]{12}$/;

/** `url` with its database replaced by `name`. */
export function databaseUrlFor(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates a fresh database for one variant; returns its name and URL. */
export async function createDatabase(admin: pg.Client, serverUrl: string): Promise<{ name: string; url: string }> {
  const name = `laurel_bench_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  return { name, url: databaseUrlFor(serverUrl, name) };
}

/** Drops a database the bench created (after its variant stopped); FORCE ends a straggling connection. */
export async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  if (!NAME.test(name)) throw new Error(`refusing to drop database "${name}"`);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** Rows a variant left in its database (`laurel_events`, `laurel_config`), read before it is dropped. */
export async function countRows(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    let n = 0;
    for (const table of ['laurel_events', 'laurel_config']) {
      const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
      if (exists.rows[0]?.t == null) continue;
      n += Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n ?? 0);
    }
    return n;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
