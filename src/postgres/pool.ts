/**
 * Postgres: durable storage, never on the request path of a metric event. Tables are created at
 * start-up (idempotently, under an advisory lock so concurrent processes do not race), and only
 * when this version's schema is not there yet (`laurel_schema` holds the digest of the migrations
 * last applied): an `ALTER TABLE … IF NOT EXISTS` or a `CREATE INDEX IF NOT EXISTS` asks for its
 * table's lock even when it has nothing to do, and waits for the longest transaction using the
 * table, every later query of it queued behind (the log drain's among them). Each table is declared
 * by the module that reads and writes it: its statements (the table, its indexes, its upgrades) as
 * `…_MIGRATIONS`, and those run at every start-up as `…_EVERY_START`; this module applies them all
 * in the order listed here, the order they have always run in (a change of it would change the
 * digest, and every installation would apply them again).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Settings } from '../lib/settings.js';
import { markStore, storeOf } from '../lib/stores.js';
import { ROLLUP_MIGRATIONS } from './analytics/rollups.js';
import { AUDIT_MIGRATIONS } from './audit.js';
import { CONFIG_MIGRATIONS } from './config-copy.js';
import { EVENT_ROWS_MIGRATIONS } from './event-rows.js';
import { LOG_ARCHIVE_EVERY_START, LOG_ARCHIVE_MIGRATIONS } from './log-archive.js';
import { NOTIFICATION_DELIVERY_MIGRATIONS } from './notifications/deliveries.js';
import { SNAPSHOT_MIGRATIONS } from './snapshots.js';
import { WEBHOOK_DELIVERY_MIGRATIONS } from './webhooks/deliveries.js';
import { WEBHOOK_SENT_EVERY_START, WEBHOOK_SENT_MIGRATIONS } from './webhooks/sent.js';
import { createDatabase, DatabaseError, databaseOf, NO_SUCH_DATABASE } from './database.js';
import { LaurelError } from '../lib/errors.js';

export class PostgresUnavailableError extends LaurelError {
  constructor(message: string) { super('postgres_unavailable', message); }
}

const MIGRATIONS = [
  // The configuration's copy (src/postgres/config-copy.ts).
  ...CONFIG_MIGRATIONS,
  // The event log's archive: one row per drained batch of a partition (src/postgres/log-archive.ts).
  ...LOG_ARCHIVE_MIGRATIONS,
  // The rows of earlier versions, one per entry, and the view of every entry (src/postgres/event-rows.ts).
  ...EVENT_ROWS_MIGRATIONS,
  // Snapshots of Redis (src/postgres/snapshots.ts).
  ...SNAPSHOT_MIGRATIONS,
  // Notification deliveries (src/postgres/notifications/deliveries.ts).
  ...NOTIFICATION_DELIVERY_MIGRATIONS,
  // Webhook deliveries (src/postgres/webhooks/deliveries.ts).
  ...WEBHOOK_DELIVERY_MIGRATIONS,
  // The record of the webhook deliveries sent from the log (src/postgres/webhooks/sent.ts).
  ...WEBHOOK_SENT_MIGRATIONS,
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
  ...LOG_ARCHIVE_EVERY_START,
  ...WEBHOOK_SENT_EVERY_START,
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
