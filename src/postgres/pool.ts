/**
 * Postgres: durable storage, never on the request path of a metric event. Tables are created at
 * start-up (idempotently, under an advisory lock so concurrent processes do not race), and only
 * when this version's schema is not there yet (`laurel_schema` holds the digest of the migrations
 * last applied): an `ALTER TABLE … IF NOT EXISTS` or a `CREATE INDEX IF NOT EXISTS` asks for its
 * table's lock even when it has nothing to do, and waits for the longest transaction using the
 * table, every later query of it queued behind (the log drain's among them).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Settings } from '../lib/settings.js';
import { markStore, storeOf } from '../lib/stores.js';
import { ROLLUP_MIGRATIONS } from './analytics/rollups.js';
import { AUDIT_MIGRATIONS } from './audit.js';
import { createDatabase, DatabaseError, databaseOf, NO_SUCH_DATABASE } from './database.js';
import { LaurelError } from '../lib/errors.js';

export class PostgresUnavailableError extends LaurelError {
  constructor(message: string) { super('postgres_unavailable', message); }
}

/**
 * A column compressed with lz4 where the server has it (PostgreSQL 14 built with it, as Debian's
 * 15 is); rows written before stay as they are. Once: the ALTER locks the table, so it waits 2 s at
 * most for its readers to finish, and a later start-up tries again.
 */
function lz4(table: string, column: string): string {
  return `DO $$ BEGIN
     IF current_setting('server_version_num')::int >= 140000
        AND EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
       IF (SELECT attcompression FROM pg_attribute WHERE attrelid = '${table}'::regclass AND attname = '${column}') <> 'l' THEN
         PERFORM set_config('lock_timeout', '2s', true);
         ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4;
       END IF;
     END IF;
   EXCEPTION WHEN lock_not_available OR feature_not_supported THEN NULL;
   END $$`;
}

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
  // The event log's archive: one row per drained batch of a partition (src/postgres/log-archive.ts).
  `CREATE TABLE IF NOT EXISTS laurel_log (
     prefix      text        NOT NULL,
     partition   integer     NOT NULL,
     first_id    text        NOT NULL,
     last_id     text        NOT NULL,
     entries     integer     NOT NULL,
     first_at    timestamptz NOT NULL,
     last_at     timestamptz NOT NULL,
     lines       text        NOT NULL,
     drained_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (prefix, partition, first_id)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_log_cursor (
     prefix     text    NOT NULL,
     partition  integer NOT NULL,
     last_id    text    NOT NULL,
     PRIMARY KEY (prefix, partition)
   )`,
  // Earlier versions archived one row per entry in the table laurel_events: it keeps those rows
  // under another name, and laurel_events is the view of every entry, from both.
  `DO $$ BEGIN
     IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relname = 'laurel_events' AND c.relkind = 'r' AND n.nspname = current_schema()) THEN
       ALTER TABLE laurel_events RENAME TO laurel_events_rows;
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS laurel_events_rows (
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
  'CREATE INDEX IF NOT EXISTS laurel_events_user ON laurel_events_rows (prefix, tenant, user_id, occurred_at)',
  `CREATE OR REPLACE VIEW laurel_events AS
     SELECT prefix, partition, stream_id, kind, tenant, user_id, occurred_at, body, drained_at FROM laurel_events_rows
     UNION ALL
     SELECT l.prefix, l.partition, split_part(e.line, E'\t', 1), split_part(e.line, E'\t', 2),
            coalesce(b.body->>'t', ''), coalesce(b.body->>'u', ''),
            to_timestamp(coalesce((b.body->>'ts')::float8, split_part(e.line, '-', 1)::float8) / 1000.0), b.body, l.drained_at
     FROM laurel_log l
     CROSS JOIN LATERAL string_to_table(l.lines, E'\n') AS e(line)
     CROSS JOIN LATERAL (SELECT split_part(e.line, E'\t', 3)::jsonb AS body) AS b`,
  // Snapshots of Redis (src/postgres/snapshots.ts).
  `CREATE TABLE IF NOT EXISTS laurel_snapshots (
     prefix      text        NOT NULL,
     id          bigserial   NOT NULL,
     is_full     boolean     NOT NULL,
     started_at  timestamptz NOT NULL DEFAULT now(),
     finished_at timestamptz,
     since       timestamptz NOT NULL,
     users       integer     NOT NULL DEFAULT 0,
     keys        integer     NOT NULL DEFAULT 0,
     PRIMARY KEY (prefix, id)
   )`,
  // A snapshot that failed, or was interrupted (its process died): finished, with why; never read.
  // Looked up first: the ALTER locks the table, even when the column exists, behind any reader.
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'laurel_snapshots'::regclass AND attname = 'error' AND NOT attisdropped) THEN
       ALTER TABLE laurel_snapshots ADD COLUMN error text;
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS laurel_snapshot_users (
     prefix     text    NOT NULL,
     tenant     text    NOT NULL,
     user_id    text    NOT NULL,
     partition  integer NOT NULL,
     position   text    NOT NULL,
     snapshot   bigint  NOT NULL,
     keys       bytea   NOT NULL,
     PRIMARY KEY (prefix, tenant, user_id)
   )`,
  `CREATE TABLE IF NOT EXISTS laurel_snapshot_keys (
     prefix    text   NOT NULL,
     key       text   NOT NULL,
     snapshot  bigint NOT NULL,
     digest    text   NOT NULL,
     dump      bytea  NOT NULL,
     PRIMARY KEY (prefix, key)
   )`,
  // Notification deliveries (src/postgres/notifications/deliveries.ts): one row per (tenant, user,
  // type, channel, occasion), the id that says so; the scheduler adds to a row while it is
  // scheduled.
  `CREATE TABLE IF NOT EXISTS laurel_deliveries (
     prefix        text        NOT NULL,
     id            text        NOT NULL,
     tenant        text        NOT NULL,
     user_id       text        NOT NULL,
     type          text        NOT NULL,
     channel       text        NOT NULL,
     occasion      text        NOT NULL,
     status        text        NOT NULL,
     reason        text,
     scheduled_for timestamptz NOT NULL,
     due_at        timestamptz NOT NULL,
     sent_at       timestamptz,
     attempts      integer     NOT NULL DEFAULT 0,
     error         text,
     items         jsonb       NOT NULL DEFAULT '[]',
     claimed_until timestamptz,
     created_at    timestamptz NOT NULL,
     PRIMARY KEY (prefix, id)
   )`,
  `CREATE INDEX IF NOT EXISTS laurel_deliveries_due ON laurel_deliveries (prefix, due_at) WHERE status IN ('scheduled', 'sending')`,
  'CREATE INDEX IF NOT EXISTS laurel_deliveries_list ON laurel_deliveries (prefix, tenant, created_at DESC, id DESC)',
  'CREATE INDEX IF NOT EXISTS laurel_deliveries_user ON laurel_deliveries (prefix, tenant, user_id, created_at DESC)',
  // Webhook deliveries (src/postgres/webhooks/deliveries.ts): one row per (endpoint, event).
  `CREATE TABLE IF NOT EXISTS laurel_webhook_deliveries (
     prefix        text        NOT NULL,
     id            text        NOT NULL,
     endpoint_id   text        NOT NULL,
     event_id      text        NOT NULL,
     type          text        NOT NULL,
     tenant        text        NOT NULL,
     user_id       text        NOT NULL,
     body          text        NOT NULL,
     status        text        NOT NULL,
     due_at        timestamptz NOT NULL,
     attempts      integer     NOT NULL DEFAULT 0,
     last_status   integer,
     error         text,
     claimed_until timestamptz,
     created_at    timestamptz NOT NULL,
     delivered_at  timestamptz,
     PRIMARY KEY (prefix, id)
   )`,
  // Claimed per endpoint (src/postgres/webhooks/deliveries.ts claimDue): its own earliest due.
  'DROP INDEX IF EXISTS laurel_webhook_deliveries_due',
  `CREATE INDEX IF NOT EXISTS laurel_webhook_deliveries_due_by_endpoint ON laurel_webhook_deliveries (prefix, endpoint_id, due_at) WHERE status IN ('pending', 'sending')`,
  'CREATE INDEX IF NOT EXISTS laurel_webhook_deliveries_list ON laurel_webhook_deliveries (prefix, endpoint_id, created_at DESC, id DESC)',
  // The record of the webhook deliveries sent from the log (src/postgres/webhooks/sent.ts): a row per
  // endpoint and batch of first attempts that delivered. An installation of the version before
  // kept the log's deliveries waiting in this table (`laurel_webhook_outbox`, a row of up to 32 per
  // endpoint, settled after their attempts): renamed, its settled rows stay the record they were,
  // and the rows still waiting are moved to `laurel_webhook_deliveries` by the webhooks worker
  // (src/postgres/webhooks/upgrade.ts).
  `DO $$ BEGIN
     IF to_regclass('laurel_webhook_outbox') IS NOT NULL AND to_regclass('laurel_webhook_sent') IS NULL THEN
       ALTER TABLE laurel_webhook_outbox RENAME TO laurel_webhook_sent;
       ALTER INDEX IF EXISTS laurel_webhook_outbox_pkey RENAME TO laurel_webhook_sent_pkey;
       ALTER INDEX IF EXISTS laurel_webhook_outbox_waiting RENAME TO laurel_webhook_sent_waiting;
       ALTER INDEX IF EXISTS laurel_webhook_outbox_settled RENAME TO laurel_webhook_sent_settled;
       ALTER INDEX IF EXISTS laurel_webhook_outbox_ids RENAME TO laurel_webhook_sent_ids;
       DROP INDEX IF EXISTS laurel_webhook_outbox_by_endpoint;
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS laurel_webhook_sent (
     prefix        text        NOT NULL,
     id            bigint      GENERATED ALWAYS AS IDENTITY,
     endpoint_id   text        NOT NULL,
     items         text        NOT NULL,
     claimed_until timestamptz,
     created_at    timestamptz NOT NULL,
     PRIMARY KEY (prefix, id)
   )`,
  "ALTER TABLE laurel_webhook_sent ADD COLUMN IF NOT EXISTS ids text[] NOT NULL DEFAULT '{}'",
  'ALTER TABLE laurel_webhook_sent ADD COLUMN IF NOT EXISTS outcomes text',
  'ALTER TABLE laurel_webhook_sent ADD COLUMN IF NOT EXISTS settled_at timestamptz',
  // Rows of the earlier outbox still waiting (found and moved by the upgrade); the record listed per
  // endpoint, newest first; a delivery found by its id (a retry asked for).
  'CREATE INDEX IF NOT EXISTS laurel_webhook_sent_waiting ON laurel_webhook_sent (prefix, endpoint_id, id) WHERE settled_at IS NULL',
  'CREATE INDEX IF NOT EXISTS laurel_webhook_sent_settled ON laurel_webhook_sent (prefix, endpoint_id, created_at DESC, id DESC) WHERE settled_at IS NOT NULL',
  'CREATE INDEX IF NOT EXISTS laurel_webhook_sent_ids ON laurel_webhook_sent USING gin (ids)',
  // Rows written before `ids` name their deliveries, so that a retry of one finds it; found through
  // the index above, none after the first start.
  `UPDATE laurel_webhook_sent SET ids = ARRAY(SELECT e->>'id' FROM json_array_elements(items::json) e)
   WHERE ids = '{}'`,
  // The analytics rollups (src/postgres/analytics/rollups.ts).
  ...ROLLUP_MIGRATIONS,
  // The audit log of Admin API writes (src/postgres/audit.ts).
  ...AUDIT_MIGRATIONS,
];

/** What laurel_schema holds once MIGRATIONS are applied. */
const MIGRATIONS_DIGEST = createHash('sha256').update(MIGRATIONS.join('\0')).digest('hex');

const SCHEMA_TABLE = `CREATE TABLE IF NOT EXISTS laurel_schema (
   one     boolean PRIMARY KEY DEFAULT true CHECK (one),
   digest  text    NOT NULL
 )`;

/** Run at every start-up: each looks at the catalog first, and locks a table only when it has something to change. */
const EVERY_START = [
  // The log's lines compressed with lz4 where the server has it: pglz, the default, cost the drain
  // about a sixth of Postgres's CPU per event (docs/performance.md).
  lz4('laurel_log', 'lines'),
  // A batch's deliveries (kilobytes of JSON): lz4 cost Postgres about a third less than pglz per delivery written.
  lz4('laurel_webhook_sent', 'items'),
];

/** How a pool is sized and bounded. */
export interface PoolOptions {
  /** Connections at most. */
  max: number;
  /** How long a query waits for a connection of the pool (connecting included), ms. */
  waitMs: number;
  /** How long a statement may run, ms (`statement_timeout`, and as long again on the client's side); 0: unbounded. */
  statementMs: number;
}

/** The workers' and the command line's: their work waits its turn, and a snapshot or a restore reads long. */
export const WORK_POOL: PoolOptions = { max: 4, waitMs: 3000, statementMs: 0 };

/**
 * The api's (src/engine/services.ts): the Admin API's reads (analytics, deliveries), several at
 * once each (analytics makes three queries), bounded so that a Postgres saturated or gone answers
 * 503 within seconds rather than holding requests.
 */
export const API_POOL: PoolOptions = { max: 10, waitMs: 5000, statementMs: 15_000 };

/** The seconds a client is told to wait (`Retry-After`) when Postgres is busy or away. */
export const POSTGRES_RETRY_AFTER_S = 5;

/** SQLSTATE classes that say "Postgres cannot serve this now": connection, resources, operator intervention (a statement timeout too), authentication, no such database. */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '28', '3D']);

/**
 * Whether `err` says Postgres is away, refusing or busy (a query waited past the pool's bound, a
 * statement past its timeout), rather than that a statement is wrong: an error of a laurel pool
 * (marked, src/lib/stores.ts) that is no SQL error of another class.
 */
export function isPostgresUnavailable(err: unknown): boolean {
  if (err instanceof PostgresUnavailableError) return true;
  if (storeOf(err) !== 'postgres') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  // A connection refused, reset or ended, the pool's wait or the client's timeout.
  return true;
}

type Callback = (err: unknown, ...rest: unknown[]) => void;

/** Runs `call` with `args`, every error it gives (promise or callback) marked as Postgres's. */
function marked(call: (...args: unknown[]) => unknown, args: unknown[]): unknown {
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    const done = last as Callback;
    return call(...args.slice(0, -1), (err: unknown, ...rest: unknown[]) => done(err ? markStore(err, 'postgres') : err, ...rest));
  }
  const result = call(...args);
  if (result instanceof Promise) return result.catch((err: unknown) => { throw markStore(err, 'postgres'); });
  return result;
}

/** Marks every error of the pool and of its clients as Postgres's (src/lib/stores.ts). */
function markErrors(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => marked(query, args)) as typeof pool.query;
  pool.connect = ((...args: unknown[]) => marked(connect, args)) as typeof pool.connect;
  pool.on('connect', (client) => {
    const clientQuery = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => marked(clientQuery, args)) as typeof client.query;
  });
}

/** Connects `client`; with `databaseCreate`, creates the database first when it is missing (src/postgres/database.ts). */
async function connectCreating(settings: Settings, waitMs: number): Promise<pg.Client> {
  const open = async () => {
    const client = new pg.Client({ connectionString: settings.databaseUrl, connectionTimeoutMillis: waitMs });
    client.on('error', () => {});
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  };
  try {
    return await open();
  } catch (err) {
    if ((err as { code?: string }).code !== NO_SUCH_DATABASE) throw err;
    if (!settings.databaseCreate) {
      throw new DatabaseError(`database "${databaseOf(settings.databaseUrl)}" does not exist: create it (createdb ${databaseOf(settings.databaseUrl)}) ` +
        'or point DATABASE_URL at one (unset, laurel uses a database "laurel", created when missing)');
    }
    await createDatabase(settings.databaseUrl, waitMs);
    return open();
  }
}

/** Creates or upgrades the tables, on a connection of its own: they wait for another process's, and may rewrite a table (unbounded). */
async function migrate(settings: Settings, waitMs: number): Promise<void> {
  const client = await connectCreating(settings, waitMs);
  try {
    await client.query('SELECT pg_advisory_lock(7340211)');
    await client.query(SCHEMA_TABLE);
    const { rows } = await client.query<{ digest: string }>('SELECT digest FROM laurel_schema');
    if (rows[0]?.digest !== MIGRATIONS_DIGEST) {
      for (const sql of MIGRATIONS) await client.query(sql);
      await client.query(
        'INSERT INTO laurel_schema (one, digest) VALUES (true, $1) ON CONFLICT (one) DO UPDATE SET digest = EXCLUDED.digest', [MIGRATIONS_DIGEST],
      );
    }
    for (const sql of EVERY_START) await client.query(sql);
    await client.query('SELECT pg_advisory_unlock(7340211)');
  } finally {
    await client.end().catch(() => {});
  }
}

/** A pool of `options`, once the tables are there; rejects with PostgresUnavailableError when Postgres cannot be reached. */
export async function connectPostgres(settings: Settings, options: PoolOptions = WORK_POOL): Promise<pg.Pool> {
  try {
    await migrate(settings, options.waitMs);
  } catch (err) {
    const at = `laurel cannot use Postgres at ${settings.databaseUrl.replace(/\/\/([^@/]*)@/, '//***@')}`;
    throw new PostgresUnavailableError(err instanceof DatabaseError ? `${at}: ${err.message}.` :
      `${at} (${(err as Error).message}). Start PostgreSQL 15+ or point DATABASE_URL at one.`);
  }
  const pool = new pg.Pool({
    connectionString: settings.databaseUrl, max: options.max, connectionTimeoutMillis: options.waitMs,
    ...(options.statementMs > 0 ? { statement_timeout: options.statementMs, query_timeout: 2 * options.statementMs } : {}),
  });
  pool.on('error', () => {});
  markErrors(pool);
  return pool;
}
