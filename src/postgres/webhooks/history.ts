/**
 * An endpoint's deliveries as the Admin API lists and retries them: the rows of
 * `laurel_webhook_deliveries` (due later, tried again, failed: src/postgres/webhooks/deliveries.ts)
 * and the deliveries of the record's rows that their first attempt delivered
 * (src/postgres/webhooks/sent.ts), one list newest first. Each delivery is in one place: a
 * record's delivery that gets a row of its own (a retry asked for) is marked there as moved.
 * Both are kept 7 days (src/engine/webhooks/send.ts RETENTION_MS), then pruned.
 */
import type pg from 'pg';
import { fromRow, type Row, type WebhookDelivery } from './deliveries.js';
import { inTransaction, type SentItem as Item, type Outcome } from './sent.js';

/** Deliveries in a row of the record, as a chunk of rows is sized: the earlier outbox's rows held 32, the record's hold up to 500. */
const ROW_GUESS = 32;

interface SettledRow {
  id: string;
  items: string;
  outcomes: string;
  created_at: Date;
}

const newestFirst = (a: WebhookDelivery, b: WebhookDelivery): number =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** A delivery its first attempt delivered, as listed (`rowCreated`: the row's, for an item of the earlier outbox, which has none of its own). */
function delivered(endpointId: string, item: Item, [at, lastStatus]: [number, number | null], rowCreated: number): WebhookDelivery {
  const createdAt = item.created ?? rowCreated;
  return {
    id: item.id, eventId: item.eventId, type: item.type, tenant: item.tenant, userId: item.userId, body: item.body,
    endpointId, status: 'delivered', dueAt: createdAt, attempts: 1, lastStatus, error: null, createdAt, deliveredAt: at,
  };
}

/**
 * The deliveries of an endpoint's rows of the record that their first attempt delivered (of one
 * tenant's events only, with `tenant`): at least the newest `want` of them, if there are. A row's
 * items were made at different times (sends end out of order), each no later than the row
 * (src/postgres/webhooks/sent.ts), so rows are read newest first until `want` items are newer
 * than every row left: a row read later can hold none of the newest `want`.
 */
async function settledDeliveries(pool: pg.Pool, prefix: string, endpointId: string, want: number, tenant: string | null): Promise<WebhookDelivery[]> {
  const out: WebhookDelivery[] = [];
  const chunk = Math.min(500, Math.ceil(want / ROW_GUESS) + 1);
  // The last row read: the next chunk starts after it.
  let after: [Date | null, string] = [null, '0'];
  for (;;) {
    const { rows } = await pool.query<SettledRow>(
      `SELECT id, items, outcomes, created_at FROM laurel_webhook_sent
       WHERE prefix = $1 AND endpoint_id = $2 AND settled_at IS NOT NULL AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::bigint))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [prefix, endpointId, ...after, chunk],
    );
    for (const r of rows) {
      const items = JSON.parse(r.items) as Item[];
      const outcomes = JSON.parse(r.outcomes) as Outcome[];
      items.forEach((item, i) => {
        const o = outcomes[i];
        if (o !== null && o !== undefined && (tenant === null || item.tenant === tenant)) out.push(delivered(endpointId, item, o, r.created_at.getTime()));
      });
    }
    if (rows.length < chunk) break;
    const last = rows[rows.length - 1].created_at;
    const lastMs = last.getTime();
    let newer = 0;
    for (const d of out) if (d.createdAt > lastMs) newer++;
    if (newer >= want) break;
    after = [last, rows[rows.length - 1].id];
  }
  return out;
}

/** An endpoint's deliveries, newest first (`status` one of them only; `tenant` the events of that tenant only). */
export async function listDeliveries(
  pool: pg.Pool, prefix: string, endpointId: string, filter: { status?: string; tenant?: string | null; limit: number; skip: number },
): Promise<WebhookDelivery[]> {
  const want = filter.skip + filter.limit;
  const tenant = filter.tenant ?? null;
  const { rows } = await pool.query<Row>(
    `SELECT * FROM laurel_webhook_deliveries WHERE prefix = $1 AND endpoint_id = $2 AND ($3::text IS NULL OR status = $3)
       AND ($5::text IS NULL OR tenant = $5)
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [prefix, endpointId, filter.status ?? null, want, tenant],
  );
  const settled = filter.status === undefined || filter.status === 'delivered' ? await settledDeliveries(pool, prefix, endpointId, want, tenant) : [];
  return [...rows.map(fromRow), ...settled].sort(newestFirst).slice(filter.skip, want);
}

/**
 * A delivery of a row of the record, given a row of its own, pending and due at `nowMs`, in the
 * caller's transaction: marked moved in the record's row (listed from its own row now). Null when no
 * settled row of the endpoint holds it delivered.
 */
async function moveToOwnRow(
  client: pg.ClientBase, prefix: string, endpointId: string, id: string, nowMs: number, tenant: string | null,
): Promise<WebhookDelivery | null> {
  const { rows } = await client.query<SettledRow>(
    `SELECT id, items, outcomes, created_at FROM laurel_webhook_sent
     WHERE prefix = $1 AND endpoint_id = $2 AND ids @> ARRAY[$3]::text[] AND settled_at IS NOT NULL FOR UPDATE`,
    [prefix, endpointId, id],
  );
  for (const r of rows) {
    const items = JSON.parse(r.items) as Item[];
    const outcomes = JSON.parse(r.outcomes) as Outcome[];
    const i = items.findIndex((x) => x.id === id);
    const o = outcomes[i];
    if (i < 0 || o === null || o === undefined || (tenant !== null && items[i].tenant !== tenant)) continue;
    const was = delivered(endpointId, items[i], o, r.created_at.getTime());
    outcomes[i] = null;
    await client.query('UPDATE laurel_webhook_sent SET outcomes = $3 WHERE prefix = $1 AND id = $2', [prefix, r.id, JSON.stringify(outcomes)]);
    const { rows: [own] } = await client.query<Row>(
      `INSERT INTO laurel_webhook_deliveries
         (prefix, id, endpoint_id, event_id, type, tenant, user_id, body, status, due_at, attempts, last_status, created_at, delivered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', to_timestamp($9 / 1000.0), 1, $10, to_timestamp($11 / 1000.0), to_timestamp($12 / 1000.0))
       ON CONFLICT (prefix, id) DO UPDATE SET status = 'pending', due_at = EXCLUDED.due_at, claimed_until = NULL
       RETURNING *`,
      [prefix, id, endpointId, was.eventId, was.type, was.tenant, was.userId, was.body, nowMs, was.lastStatus, was.createdAt, was.deliveredAt],
    );
    return fromRow(own);
  }
  return null;
}

/**
 * Sends a delivery again (pending, due at `nowMs`); null when the endpoint has no such delivery
 * (of `tenant`'s events, when one is given).
 */
export async function retryDelivery(
  pool: pg.Pool, prefix: string, endpointId: string, id: string, nowMs: number, tenant: string | null = null,
): Promise<WebhookDelivery | null> {
  const { rows } = await pool.query<Row>(
    `UPDATE laurel_webhook_deliveries SET status = 'pending', due_at = to_timestamp($4 / 1000.0), claimed_until = NULL
     WHERE prefix = $1 AND endpoint_id = $2 AND id = $3 AND status <> 'sending' AND ($5::text IS NULL OR tenant = $5) RETURNING *`,
    [prefix, endpointId, id, nowMs, tenant],
  );
  if (rows.length > 0) return fromRow(rows[0]);
  const moved = await inTransaction(pool, (client) => moveToOwnRow(client, prefix, endpointId, id, nowMs, tenant));
  if (moved !== null) return moved;
  // Being sent now: answered as it is.
  const { rows: existing } = await pool.query<Row>(
    'SELECT * FROM laurel_webhook_deliveries WHERE prefix = $1 AND endpoint_id = $2 AND id = $3 AND ($4::text IS NULL OR tenant = $4)',
    [prefix, endpointId, id, tenant],
  );
  return existing.length > 0 ? fromRow(existing[0]) : null;
}

/**
 * Deletes the deliveries settled (delivered or failed) before `beforeMs` (the service's clock),
 * and the rows of the record made before then; answers how many rows went. Pending and sending
 * deliveries stay, however old.
 */
export async function pruneSettled(pool: pg.Pool, prefix: string, beforeMs: number): Promise<number> {
  const own = await pool.query(
    `DELETE FROM laurel_webhook_deliveries WHERE prefix = $1 AND status IN ('delivered', 'failed') AND created_at < to_timestamp($2 / 1000.0)`,
    [prefix, beforeMs],
  );
  const settled = await pool.query(
    'DELETE FROM laurel_webhook_sent WHERE prefix = $1 AND settled_at IS NOT NULL AND created_at < to_timestamp($2 / 1000.0)',
    [prefix, beforeMs],
  );
  return (own.rowCount ?? 0) + (settled.rowCount ?? 0);
}

/**
 * Every delivery of one user's events, of every endpoint, newest first (a user's export): their rows
 * and the record's deliveries their first attempt delivered. The record is not indexed by user:
 * its rows whose text names the user are read (a week's worth at most, as both are pruned).
 */
export async function userDeliveries(pool: pg.Pool, prefix: string, tenant: string, userId: string): Promise<WebhookDelivery[]> {
  const { rows } = await pool.query<Row>(
    `SELECT * FROM laurel_webhook_deliveries WHERE prefix = $1 AND tenant = $2 AND user_id = $3`, [prefix, tenant, userId],
  );
  const out = rows.map(fromRow);
  const { rows: sent } = await pool.query<SettledRow & { endpoint_id: string }>(
    `SELECT id, endpoint_id, items, outcomes, created_at FROM laurel_webhook_sent
     WHERE prefix = $1 AND settled_at IS NOT NULL AND strpos(items, $2) > 0`,
    [prefix, JSON.stringify(userId)],
  );
  for (const r of sent) {
    const items = JSON.parse(r.items) as Item[];
    const outcomes = JSON.parse(r.outcomes) as Outcome[];
    items.forEach((item, i) => {
      const o = outcomes[i];
      if (o !== null && o !== undefined && item.tenant === tenant && item.userId === userId) out.push(delivered(r.endpoint_id, item, o, r.created_at.getTime()));
    });
  }
  return out.sort(newestFirst);
}
