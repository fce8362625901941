/**
 * laurel's own database: `DATABASE_URL` unset names `laurel` on the machine's Postgres, created
 * when it is missing and the role may create databases (docs/operations.md, "Configuration"). A
 * database named in `DATABASE_URL` is never created: a typo would start an empty archive beside
 * the real one; its absence is said as such.
 */
import pg from 'pg';
import { LaurelError } from '../lib/errors.js';

/** SQLSTATE of a connection to a database that does not exist. */
export const NO_SUCH_DATABASE = '3D000';

/** The database `url` names (its path), or null when it names none. */
export function databaseOf(url: string): string | null {
  try {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    return name === '' ? null : name;
  } catch {
    return null;
  }
}

/** The role `url` connects as, as Postgres would take it (the user name, else the system's). */
function roleOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || process.env.PGUSER || process.env.USER || 'postgres';
  } catch {
    return 'postgres';
  }
}

/** Why a database could not be created or reached, said for an operator. */
export class DatabaseError extends LaurelError {
  constructor(message: string) { super('database_unusable', message); }
}

/**
 * Creates the database `url` names on its server, connecting to the server's maintenance database
 * (`postgres`, else `template1`). Another process creating it at the same moment is no error.
 */
export async function createDatabase(url: string, waitMs: number): Promise<void> {
  const name = databaseOf(url);
  if (name === null) throw new DatabaseError('DATABASE_URL names no database');
  let lastErr: unknown = null;
  for (const maintenance of ['postgres', 'template1']) {
    const at = new URL(url);
    at.pathname = `/${maintenance}`;
    const client = new pg.Client({ connectionString: at.toString(), connectionTimeoutMillis: waitMs });
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      lastErr = err;
      if ((err as { code?: string }).code === NO_SUCH_DATABASE) continue;
      throw err;
    }
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // 42P04: it exists now; 23505: two CREATE DATABASE of one name at once, the other won.
      if (code === '42P04' || code === '23505') return;
      if (code === '42501') {
        throw new DatabaseError(`database "${name}" does not exist, and role "${roleOf(url)}" may not create databases: ` +
          `create it (createdb ${name}) or point DATABASE_URL at one`);
      }
      throw err;
    } finally {
      await client.end().catch(() => {});
    }
  }
  throw lastErr;
}
