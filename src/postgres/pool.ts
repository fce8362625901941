/**
 * Postgres: durable storage, never on the request path of a metric event. Tables are created at
 * start-up (idempotently, under an advisory lock so concurrent processes do not race).
 */
import pg from 'pg';
import type { Settings } from '../lib/settings.js';

export class PostgresUnavailableError extends Error {}

const MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS laurel_config (
     prefix     text        NOT NULL,
     kind       text        NOT NULL,
     id         text        NOT NULL,
     body       jsonb       NOT NULL,
     version    bigint      NOT NULL,
     copied_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (prefix, kind, id)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_events (
     prefix      text        NOT NULL,
     partition   integer     NOT NULL,
     stream_id   text        NOT NULL,
     kind        text        NOT NULL,
     tenant      text        NOT NULL,
     user_id     text        NOT NULL,
     occurred_at timestamptz NOT NULL,
     body        jsonb       NOT NULL,
     drained_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (prefix, partition, stream_id)
   )`,
  'CREATE INDEX IF NOT EXISTS laurel_events_user ON laurel_events (prefix, tenant, user_id, occurred_at)',
];

export async function connectPostgres(settings: Settings): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 4, connectionTimeoutMillis: 3000 });
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(7340211)');
      for (const sql of MIGRATIONS) await client.query(sql);
      await client.query('SELECT pg_advisory_unlock(7340211)');
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw new PostgresUnavailableError(
      `laurel cannot reach Postgres at ${settings.databaseUrl.replace(/\/\/([^@/]*)@/, '//***@')} ` +
        `(${(err as Error).message}). Start PostgreSQL 15+ or point DATABASE_URL at one.`,
    );
  }
  return pool;
}
