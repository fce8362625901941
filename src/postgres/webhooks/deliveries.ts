/**
 * Webhook deliveries in Postgres (`laurel_webhook_deliveries`): a row per (endpoint, event), its id
 * a hash of both, for the deliveries due later (the clock's events, points.changed windows: each
 * recorded once, its id naming its occasion) and for those of the log not delivered at their
 * first attempt (src/postgres/webhooks/sent.ts: a retry due, or failed). A row is claimed
 * (`pending` -> `sending`, FOR UPDATE SKIP LOCKED, with a lease) by one worker process before it
 * is sent, and settled by that claim: `delivered`, `pending` again with its next attempt's time,
 * or `failed`. A claim whose process died is taken again once its lease ran out: a receiver may see
 * an event twice, always under the same `webhook-id`.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

/** `laurel_webhook_deliveries` (applied by src/postgres/pool.ts, in its order): one row per (endpoint, event). */
export const WEBHOOK_DELIVERY_MIGRATIONS = [
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
  // Claimed per endpoint (claimDue, below): its own earliest due.
  'DROP INDEX IF EXISTS laurel_webhook_deliveries_due',
  `CREATE INDEX IF NOT EXISTS laurel_webhook_deliveries_due_by_endpoint ON laurel_webhook_deliveries (prefix, endpoint_id, due_at) WHERE status IN ('pending', 'sending')`,
  'CREATE INDEX IF NOT EXISTS laurel_webhook_deliveries_list ON laurel_webhook_deliveries (prefix, endpoint_id, created_at DESC, id DESC)',
];

export type WebhookDeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/** An endpoint's copy of an event. */
interface EndpointEvent {
  endpointId: string;
  eventId: string;
  type: string;
  tenant: string;
  userId: string;
  body: string;
}

export interface WebhookDelivery extends EndpointEvent {
  id: string;
  status: WebhookDeliveryStatus;
  dueAt: number;
  attempts: number;
  lastStatus: number | null;
  error: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** A delivery to record. */
export interface NewDelivery extends EndpointEvent {
  dueAt: number;
  /** Replaces the body of the same delivery while it is pending (points.changed's window). */
  coalesce: boolean;
}

export function webhookDeliveryId(endpointId: string, eventId: string): string {
  return createHash('sha256').update(`${endpointId}\u0000${eventId}`).digest('hex').slice(0, 32);
}

/** A row of `laurel_webhook_deliveries` as read. */
export interface Row {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  tenant: string;
  user_id: string;
  body: string;
  status: WebhookDeliveryStatus;
  due_at: Date;
  attempts: number;
  last_status: number | null;
  error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

/**
 * A Row's columns, named (a prepared statement's `*` is fixed when it is prepared: a column added
 * by a newer process's migration would fail it, "cached plan must not change result type").
 */
const ROW_COLUMNS = 'd.id, d.endpoint_id, d.event_id, d.type, d.tenant, d.user_id, d.body, d.status, d.due_at, d.attempts, d.last_status, d.error, d.created_at, d.delivered_at';

export function fromRow(r: Row): WebhookDelivery {
  return {
    id: r.id, endpointId: r.endpoint_id, eventId: r.event_id, type: r.type, tenant: r.tenant, userId: r.user_id, body: r.body,
    status: r.status, dueAt: r.due_at.getTime(), attempts: r.attempts, lastStatus: r.last_status, error: r.error,
    createdAt: r.created_at.getTime(), deliveredAt: r.delivered_at === null ? null : r.delivered_at.getTime(),
  };
}

/**
 * Records deliveries (in the caller's transaction): a new one once; a coalescing one's body replaced
 * while pending. The list goes as one JSON document (pg's escaping of text arrays, element by
 * element, cost more than the statement), read as `json`: `jsonb` built a binary copy of the whole
 * document first, a third more of Postgres's CPU per row (docs/performance.md).
 */
export async function recordDeliveries(client: pg.ClientBase, prefix: string, deliveries: NewDelivery[], nowMs: number): Promise<void> {
  for (const coalesce of [false, true]) {
    // One row per id in a statement (Postgres refuses to update a row twice in one): of a
    // coalescing delivery the latest body, of another the first (the rest conflict and are skipped
    // anyway).
    const byId = new Map<string, NewDelivery>();
    for (const d of deliveries) {
      if (d.coalesce !== coalesce) continue;
      const id = webhookDeliveryId(d.endpointId, d.eventId);
      if (coalesce || !byId.has(id)) byId.set(id, d);
    }
    if (byId.size === 0) continue;
    await client.query(
      `INSERT INTO laurel_webhook_deliveries (prefix, id, endpoint_id, event_id, type, tenant, user_id, body, status, due_at, created_at)
       SELECT $1, d.id, d.endpoint_id, d.event_id, d.type, d.tenant, d.user_id, d.body, 'pending', to_timestamp(d.due_ms / 1000.0), to_timestamp($3 / 1000.0)
       FROM json_to_recordset($2::json)
         AS d(id text, endpoint_id text, event_id text, type text, tenant text, user_id text, body text, due_ms float8)
       ON CONFLICT (prefix, id) DO ${coalesce
    ? `UPDATE SET body = EXCLUDED.body WHERE laurel_webhook_deliveries.status = 'pending'`
    : 'NOTHING'}`,
      [prefix, JSON.stringify([...byId].map(([id, d]) => ({
        id, endpoint_id: d.endpointId, event_id: d.eventId, type: d.type,
        tenant: d.tenant, user_id: d.userId, body: d.body, due_ms: d.dueAt,
      }))), nowMs],
    );
  }
}

/**
 * Claims the deliveries due at `nowMs` (the service's clock), each for `leaseMs` of wall time, the
 * earliest due first: of each endpoint named in `allowed`, up to that many of its own (so an
 * endpoint with a backlog of retries never fills the claim of the others), and up to `others` of
 * endpoints not named (deleted since: they fail).
 */
export async function claimDue(
  pool: pg.Pool, prefix: string, nowMs: number, leaseMs: number, allowed: Record<string, number>, others: number,
): Promise<WebhookDelivery[]> {
  const due = `d.prefix = $1 AND d.due_at <= to_timestamp($2 / 1000.0) AND (d.status = 'pending' OR (d.status = 'sending' AND d.claimed_until < now()))`;
  const { rows } = await pool.query<Row>({
    // Prepared once a connection (named): it is run at every claim, and planning it cost Postgres
    // ten times what running it did while nothing was due again.
    name: 'laurel-deliveries-claim',
    text: `WITH RECURSIVE wanted AS (SELECT key AS endpoint_id, value::int AS n FROM jsonb_each_text($4::jsonb)),
     known AS (
       SELECT c.id FROM wanted CROSS JOIN LATERAL (
         SELECT d.id FROM laurel_webhook_deliveries d WHERE ${due} AND d.endpoint_id = wanted.endpoint_id
         ORDER BY d.due_at LIMIT wanted.n FOR UPDATE SKIP LOCKED) c),
     -- The endpoints with deliveries pending or sending, one probe of the index each (not a read of
     -- every delivery due: thousands at once when the points.changed windows end).
     present AS (
       SELECT min(endpoint_id) AS endpoint_id FROM laurel_webhook_deliveries WHERE prefix = $1 AND status IN ('pending', 'sending')
       UNION ALL
       SELECT (SELECT min(d.endpoint_id) FROM laurel_webhook_deliveries d
               WHERE d.prefix = $1 AND d.status IN ('pending', 'sending') AND d.endpoint_id > present.endpoint_id)
       FROM present WHERE present.endpoint_id IS NOT NULL),
     unknown AS (
       SELECT c.id FROM present CROSS JOIN LATERAL (
         SELECT d.id FROM laurel_webhook_deliveries d WHERE ${due} AND d.endpoint_id = present.endpoint_id
         ORDER BY d.due_at LIMIT $5 FOR UPDATE SKIP LOCKED) c
       WHERE present.endpoint_id IS NOT NULL AND present.endpoint_id NOT IN (SELECT endpoint_id FROM wanted)
       LIMIT $5)
     UPDATE laurel_webhook_deliveries d SET status = 'sending', claimed_until = now() + make_interval(secs => $3 / 1000.0)
     -- By the primary key, each claimed one (as a list of ids, not a join the planner read the table for).
     WHERE d.prefix = $1 AND d.id = ANY (ARRAY(SELECT id FROM known UNION ALL SELECT id FROM unknown))
     RETURNING ${ROW_COLUMNS}`,
    values: [prefix, nowMs, leaseMs, JSON.stringify(allowed), others],
  });
  return rows.map(fromRow).sort((x, y) => x.dueAt - y.dueAt);
}

/** How an attempt of a claimed delivery ended. */
export interface Settlement {
  id: string;
  status: WebhookDeliveryStatus;
  /** The next attempt's time (ms, service clock), for one `pending` again. */
  nextAt?: number;
  lastStatus: number | null;
  error: string | null;
  /** When (ms, service clock). */
  at: number;
}

/** Settles claimed deliveries after their attempts, in one statement. */
export async function settleMany(db: pg.ClientBase | pg.Pool, prefix: string, settled: Settlement[]): Promise<void> {
  if (settled.length === 0) return;
  await db.query(
    `UPDATE laurel_webhook_deliveries d SET status = s.status, attempts = d.attempts + 1, last_status = s.last_status, error = s.error,
       claimed_until = NULL, due_at = COALESCE(to_timestamp(s.next_at / 1000.0), d.due_at),
       delivered_at = CASE WHEN s.status = 'delivered' THEN to_timestamp(s.at / 1000.0) END
     FROM json_to_recordset($2::json) AS s(id text, status text, next_at float8, last_status int, error text, at float8)
     WHERE d.prefix = $1 AND d.id = s.id AND d.status = 'sending'`,
    [prefix, JSON.stringify(settled.map((o) => ({
      id: o.id, status: o.status, next_at: o.nextAt ?? null, last_status: o.lastStatus, error: o.error, at: o.at,
    })))],
  );
}

/** Gives back claimed deliveries not attempted (a worker process stopping): pending again, free to claim at once. */
export async function releaseClaims(pool: pg.Pool, prefix: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await pool.query(
    `UPDATE laurel_webhook_deliveries SET status = 'pending', claimed_until = NULL WHERE prefix = $1 AND id = ANY($2) AND status = 'sending'`,
    [prefix, ids],
  );
}
