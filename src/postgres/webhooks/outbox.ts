/**
 * The webhook outbox (`laurel_webhook_outbox`): the deliveries the log drain calls for, due as soon
 * as they are recorded, written in the drain's archive transaction (workers/log-drain.ts) as a row
 * of up to OUTBOX_ROW deliveries of one endpoint rather than a row each. A sender claims a row
 * (with a lease, FOR UPDATE SKIP LOCKED), attempts its deliveries, then settles it in one
 * transaction: the row is kept, with how each delivery's first attempt ended, as the record of
 * those delivered (listed and retried from there: src/postgres/webhooks/history.ts), and only the
 * others (pending their retry, failed) get a row of their own in `laurel_webhook_deliveries`. A
 * delivery delivered at once thus costs Postgres its share of one row, written once and updated
 * once (a row of its own each, written after the attempt, was half of Postgres's work under the
 * bench's load). A process that dies holding a row leaves it to another once its lease runs out;
 * its deliveries are sent again under the same `webhook-id`, and the first settlement stands.
 */
import type pg from 'pg';
import { listIn } from '../../lib/lists.js';
import { memoize } from '../../lib/memo.js';
import { webhookDeliveryId, type NewDelivery, type WebhookDelivery, type WebhookDeliveryStatus } from './deliveries.js';

/** Deliveries in one outbox row. */
export const OUTBOX_ROW = 32;

/** A delivery as the outbox holds it. */
export interface OutboxItem {
  id: string;
  eventId: string;
  type: string;
  tenant: string;
  userId: string;
  body: string;
}

const itemOf = (id: string, d: Omit<OutboxItem, 'id'>): OutboxItem => ({ id, eventId: d.eventId, type: d.type, tenant: d.tenant, userId: d.userId, body: d.body });

/**
 * The INSERT of `n` outbox rows, each row's items a parameter of its own: inside one JSON document
 * of rows, every item's body was escaped a second time, and Postgres parsed it all back.
 */
const ROWS_A_STATEMENT = 1000;
const insertRows = memoize(64, (n: number): string => {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) rows.push(`($1, $${3 + 3 * i}, $${4 + 3 * i}, $${5 + 3 * i}::text[], to_timestamp($2::float8 / 1000.0))`);
  return `INSERT INTO laurel_webhook_outbox (prefix, endpoint_id, items, ids, created_at) VALUES ${rows.join(', ')}`;
});

/** Writes `deliveries` (due now, each recorded once: the drain's transaction) in the caller's transaction. */
export async function addToOutbox(client: pg.ClientBase, prefix: string, deliveries: NewDelivery[], nowMs: number): Promise<void> {
  const byEndpoint = new Map<string, OutboxItem[]>();
  for (const d of deliveries) listIn(byEndpoint, d.endpointId).push(itemOf(webhookDeliveryId(d.endpointId, d.eventId), d));
  const rows: (string | string[])[] = [];
  for (const [endpointId, items] of byEndpoint) {
    for (let i = 0; i < items.length; i += OUTBOX_ROW) {
      const row = items.slice(i, i + OUTBOX_ROW);
      rows.push(endpointId, JSON.stringify(row), row.map((x) => x.id));
    }
  }
  // At most ROWS_A_STATEMENT rows a statement (Postgres takes 65,535 parameters at most).
  for (let i = 0; i < rows.length; i += 3 * ROWS_A_STATEMENT) {
    const some = rows.slice(i, i + 3 * ROWS_A_STATEMENT);
    await client.query(insertRows(some.length / 3), [prefix, nowMs, ...some]);
  }
}

/** A claimed outbox row: its id and its deliveries, none attempted yet. */
export interface OutboxRow {
  id: string;
  endpointId: string;
  deliveries: WebhookDelivery[];
}

/**
 * Claims outbox rows waiting to be sent for `leaseMs` of wall time: of each endpoint named in
 * `allowed`, up to that many of its own oldest (so an endpoint with a backlog never fills the claim
 * of the others), and up to `others` rows of endpoints not named (deleted since: their deliveries
 * fail).
 */
export async function claimOutbox(
  pool: pg.Pool, prefix: string, leaseMs: number, allowed: Record<string, number>, others: number,
): Promise<OutboxRow[]> {
  const { rows: claimed } = await pool.query<{ id: string; endpoint_id: string; items: string; created_at: Date }>({
    // Prepared once a connection (named): planned anew, this statement cost Postgres about a
    // fifth of what running it did, many times a second under load.
    name: 'laurel-outbox-claim',
    text: `WITH RECURSIVE wanted AS (SELECT key AS endpoint_id, value::int AS n FROM jsonb_each_text($3::jsonb)),
     known AS (
       SELECT c.id FROM wanted CROSS JOIN LATERAL (
         SELECT o.id FROM laurel_webhook_outbox o
         WHERE o.prefix = $1 AND o.endpoint_id = wanted.endpoint_id AND o.settled_at IS NULL
           AND (o.claimed_until IS NULL OR o.claimed_until < now())
         ORDER BY o.id LIMIT wanted.n FOR UPDATE SKIP LOCKED) c),
     -- The endpoints with rows waiting, one probe of the index each (not a scan of every row
     -- waiting: under load hundreds, read by every claim, most of Postgres's work in claiming).
     present AS (
       SELECT min(endpoint_id) AS endpoint_id FROM laurel_webhook_outbox WHERE prefix = $1 AND settled_at IS NULL
       UNION ALL
       SELECT (SELECT min(o.endpoint_id) FROM laurel_webhook_outbox o
               WHERE o.prefix = $1 AND o.settled_at IS NULL AND o.endpoint_id > present.endpoint_id)
       FROM present WHERE present.endpoint_id IS NOT NULL),
     unknown AS (
       SELECT c.id FROM present CROSS JOIN LATERAL (
         SELECT o.id FROM laurel_webhook_outbox o
         WHERE o.prefix = $1 AND o.endpoint_id = present.endpoint_id AND o.settled_at IS NULL
           AND (o.claimed_until IS NULL OR o.claimed_until < now())
         ORDER BY o.id LIMIT $4 FOR UPDATE SKIP LOCKED) c
       WHERE present.endpoint_id IS NOT NULL AND present.endpoint_id NOT IN (SELECT endpoint_id FROM wanted)
       LIMIT $4)
     UPDATE laurel_webhook_outbox o SET claimed_until = now() + make_interval(secs => $2 / 1000.0)
     WHERE o.prefix = $1 AND o.id IN (SELECT id FROM known UNION ALL SELECT id FROM unknown)
     RETURNING o.id, o.endpoint_id, o.items, o.created_at`,
    values: [prefix, leaseMs, JSON.stringify(allowed), others],
  });
  return claimed.sort((x, y) => Number(x.id) - Number(y.id)).map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    deliveries: (JSON.parse(r.items) as OutboxItem[]).map((i) => ({
      ...i, endpointId: r.endpoint_id, status: 'sending', dueAt: r.created_at.getTime(), attempts: 0,
      lastStatus: null, error: null, createdAt: r.created_at.getTime(), deliveredAt: null,
    })),
  }));
}

/** How a delivery of the outbox ended its first attempt. */
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

/** Writes the rows of deliveries after their first attempts; a delivery that has its row keeps it. */
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

/** An outbox row whose deliveries were all attempted: its deliveries in order, and how each first attempt ended. */
export interface AttemptedRow {
  id: string;
  deliveries: WebhookDelivery[];
  attempts: FirstAttempt[];
}

/** How a delivery of a settled row ended its first attempt: `[at, status]`, or null for one with a row of its own. */
export type Outcome = [at: number, lastStatus: number | null] | null;

/**
 * Settles outbox rows whose deliveries were all attempted, in one transaction: each row kept with
 * its outcomes, and the deliveries not delivered written as rows of their own (to be tried again,
 * or listed as failed). A row settled already (its lease ran out, and another process sent it
 * again and settled it first) is left as that settlement wrote it.
 */
export async function completeOutbox(pool: pg.Pool, prefix: string, rows: AttemptedRow[]): Promise<void> {
  if (rows.length === 0) return;
  const own = new Map<string, FirstAttempt[]>();
  const settled = rows.map((r) => {
    const byId = new Map(r.attempts.map((a) => [a.delivery.id, a]));
    const outcomes: Outcome[] = r.deliveries.map((d) => {
      const a = byId.get(d.id);
      if (a !== undefined && a.status === 'delivered') return [a.at, a.lastStatus];
      if (a !== undefined) listIn(own, r.id).push(a);
      return null;
    });
    return { id: r.id, outcomes: JSON.stringify(outcomes) };
  });
  await inTransaction(pool, async (client) => {
    const { rows: mine } = await client.query<{ id: string }>({
      name: 'laurel-outbox-settle',
      text: `UPDATE laurel_webhook_outbox o SET outcomes = s.outcomes, settled_at = now(), claimed_until = NULL
       FROM json_to_recordset($2::json) AS s(id bigint, outcomes text)
       WHERE o.prefix = $1 AND o.id = s.id AND o.settled_at IS NULL RETURNING o.id`,
      values: [prefix, JSON.stringify(settled)],
    });
    await writeFirstAttempts(client, prefix, mine.flatMap((r) => own.get(String(r.id)) ?? []));
  });
}

/**
 * Gives back a claimed row whose deliveries were not all attempted (a worker process stopping):
 * the attempted ones get their rows, the rest stay in the outbox row, free to claim at once.
 */
export async function releaseOutbox(pool: pg.Pool, prefix: string, rowId: string, attempts: FirstAttempt[], left: WebhookDelivery[]): Promise<void> {
  const items = left.map((d) => itemOf(d.id, d));
  await inTransaction(pool, async (client) => {
    await writeFirstAttempts(client, prefix, attempts);
    await client.query(
      'UPDATE laurel_webhook_outbox SET items = $3, ids = $4::text[], claimed_until = NULL WHERE prefix = $1 AND id = $2',
      [prefix, rowId, JSON.stringify(items), items.map((x) => x.id)],
    );
  });
}
