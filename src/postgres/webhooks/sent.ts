/**
 * The record of the webhook deliveries sent from the log (`laurel_webhook_sent`). The deliveries
 * the log calls for wait in Redis for their first attempt (src/engine/webhooks/queue.ts); once
 * attempted, a sender writes how they ended in bulk, one transaction per batch of outcomes: those
 * delivered as one row per endpoint (their items, ids and outcomes, lz4-compressed), listed and
 * retried from there (src/postgres/webhooks/history.ts), and each one not delivered (a retry due,
 * failed) as a row of its own in `laurel_webhook_deliveries`, whence it is retried. A delivery
 * delivered at once thus costs Postgres its share of one row, written once; nothing is read back
 * or updated on the way. Rows of the outbox an earlier version kept in this table, settled, are
 * the same record; those still waiting are moved by src/postgres/webhooks/upgrade.ts.
 */
import type pg from 'pg';
import { listIn } from '../../lib/lists.js';
import type { WebhookDelivery, WebhookDeliveryStatus } from './deliveries.js';
import { lz4 } from '../compression.js';

/**
 * `laurel_webhook_sent` (applied by src/postgres/pool.ts, in its order): a row per endpoint and
 * batch of first attempts that delivered. An installation of the version before kept the log's
 * deliveries waiting in this table (`laurel_webhook_outbox`, a row of up to 32 per endpoint,
 * settled after their attempts): renamed, its settled rows stay the record they were, and the rows
 * still waiting are moved to `laurel_webhook_deliveries` by the webhooks worker
 * (src/postgres/webhooks/upgrade.ts).
 */
export const WEBHOOK_SENT_MIGRATIONS = [
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
];

/**
 * Run at every start-up (src/postgres/pool.ts): a batch's deliveries (kilobytes of JSON)
 * compressed with lz4 where the server has it: lz4 cost Postgres about a third less than pglz per
 * delivery written.
 */
export const WEBHOOK_SENT_EVERY_START = [lz4('laurel_webhook_sent', 'items')];

/** A delivery as a row of the record holds it (`created`: ms, absent in rows of the earlier outbox, which took the row's). */
export interface SentItem {
  id: string;
  eventId: string;
  type: string;
  tenant: string;
  userId: string;
  body: string;
  created?: number;
}

/** Deliveries in one row at most. */
export const SENT_ROW = 500;

/** How a delivery's first attempt (or the attempt of a row's delivery) ended. */
export interface FirstAttempt {
  delivery: WebhookDelivery;
  status: WebhookDeliveryStatus;
  /** The next attempt's time (ms, service clock), for one `pending`. */
  nextAt?: number;
  lastStatus: number | null;
  error: string | null;
  /** When (ms, service clock). */
  at: number;
}

/** How a delivery of a row ended: `[at, status]`, or null for one that has a row of its own in `laurel_webhook_deliveries`. */
export type Outcome = [at: number, lastStatus: number | null] | null;

/** Runs `work` in a transaction of its own; answers what it answers. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Writes the rows of deliveries after their first attempts (not delivered); a delivery that has its row keeps it. */
export async function writeFirstAttempts(client: pg.ClientBase, prefix: string, attempts: FirstAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await client.query(
    `INSERT INTO laurel_webhook_deliveries
       (prefix, id, endpoint_id, event_id, type, tenant, user_id, body, status, due_at, attempts, last_status, error, created_at, delivered_at)
     SELECT $1, a.id, a.endpoint_id, a.event_id, a.type, a.tenant, a.user_id, a.body, a.status,
       to_timestamp(COALESCE(a.next_at, a.at) / 1000.0), 1, a.last_status, a.error, to_timestamp(a.created_ms / 1000.0),
       CASE WHEN a.status = 'delivered' THEN to_timestamp(a.at / 1000.0) END
     FROM json_to_recordset($2::json) AS a(id text, endpoint_id text, event_id text, type text, tenant text, user_id text, body text,
       status text, next_at float8, at float8, last_status int, error text, created_ms float8)
     ON CONFLICT (prefix, id) DO NOTHING`,
    [prefix, JSON.stringify(attempts.map(({ delivery: d, ...o }) => ({
      id: d.id, endpoint_id: d.endpointId, event_id: d.eventId, type: d.type, tenant: d.tenant, user_id: d.userId, body: d.body,
      status: o.status, next_at: o.nextAt ?? null, at: o.at, last_status: o.lastStatus, error: o.error, created_ms: d.createdAt,
    })))],
  );
}

/**
 * The INSERT of `n` rows of the record, each row's items a parameter of its own (inside one JSON
 * document of rows, every body was escaped a second time, and Postgres parsed it all back).
 */
function insertRows(n: number): string {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = 2 + 5 * i;
    rows.push(`($1, $${at}, $${at + 1}, $${at + 2}::text[], $${at + 3}, to_timestamp($${at + 4}::float8 / 1000.0), now())`);
  }
  return `INSERT INTO laurel_webhook_sent (prefix, endpoint_id, items, ids, outcomes, created_at, settled_at) VALUES ${rows.join(', ')}`;
}

/**
 * Records first attempts of deliveries from the log, in the caller's transaction: the delivered as
 * rows of the record (per endpoint, up to SENT_ROW a row), the others as rows of their own.
 */
export async function recordFirstAttempts(client: pg.ClientBase, prefix: string, attempts: FirstAttempt[]): Promise<void> {
  const delivered = new Map<string, FirstAttempt[]>();
  const others: FirstAttempt[] = [];
  for (const a of attempts) {
    if (a.status === 'delivered') listIn(delivered, a.delivery.endpointId).push(a);
    else others.push(a);
  }
  const values: (string | string[] | number)[] = [];
  let rows = 0;
  for (const [endpointId, list] of delivered) {
    for (let i = 0; i < list.length; i += SENT_ROW) {
      const some = list.slice(i, i + SENT_ROW);
      const items: SentItem[] = some.map(({ delivery: d }) => ({
        id: d.id, eventId: d.eventId, type: d.type, tenant: d.tenant, userId: d.userId, body: d.body, created: d.createdAt,
      }));
      const outcomes: Outcome[] = some.map((a) => [a.at, a.lastStatus]);
      values.push(endpointId, JSON.stringify(items), items.map((x) => x.id), JSON.stringify(outcomes), Math.max(...items.map((x) => x.created!)));
      rows++;
    }
  }
  if (rows > 0) await client.query(insertRows(rows), [prefix, ...values]);
  await writeFirstAttempts(client, prefix, others);
}

/**
 * Of `ids` (deliveries of `endpointId`), those that have a record: a row of their own, or a place in
 * a row of the record. Asked only of deliveries claimed again after a claim ran out (their sender
 * may have recorded them and died before it took them out of the queue).
 */
export async function recordedIds(pool: pg.Pool, prefix: string, endpointId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM laurel_webhook_deliveries WHERE prefix = $1 AND id = ANY($2::text[])
     UNION
     SELECT x.id FROM laurel_webhook_sent s CROSS JOIN LATERAL unnest(s.ids) AS x(id)
     WHERE s.prefix = $1 AND s.endpoint_id = $3 AND s.ids && $2::text[] AND x.id = ANY($2::text[])`,
    [prefix, ids, endpointId],
  );
  return new Set(rows.map((r) => r.id));
}
