/**
 * The upgrade from the outbox of the version before (its table renamed `laurel_webhook_sent` at
 * start-up: src/postgres/webhooks/sent.ts): a row of it still waiting (not settled, its claim run
 * out or none) holds deliveries of the log not attempted yet (a row given back keeps only those).
 * Each is moved, in one transaction with the row's deletion, to a row of its own in
 * `laurel_webhook_deliveries`, pending and due now, and sent from there as a retry is: nothing
 * lost, nothing recorded twice, however many worker processes move them at once (a row is deleted
 * by one). The webhooks worker runs it at its start and every minute (src/engine/webhooks/send.ts),
 * so a row claimed by a process of the earlier version when the upgrade began is moved once its
 * claim runs out; each run costs a probe of the index of waiting rows.
 */
import type pg from 'pg';
import { inTransaction, type SentItem } from './sent.js';

/** Rows moved per transaction. */
const ROWS = 100;

/** Moves the earlier outbox's waiting rows; answers how many deliveries. */
export async function moveWaitingOutbox(pool: pg.Pool, prefix: string, nowMs: number): Promise<number> {
  let moved = 0;
  for (;;) {
    const n = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ endpoint_id: string; items: string; created_at: Date }>(
        `DELETE FROM laurel_webhook_sent WHERE prefix = $1 AND id IN (
           SELECT id FROM laurel_webhook_sent WHERE prefix = $1 AND settled_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
           ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING endpoint_id, items, created_at`,
        [prefix, ROWS],
      );
      const deliveries = rows.flatMap((r) => (JSON.parse(r.items) as SentItem[]).map((i) => ({
        id: i.id, endpoint_id: r.endpoint_id, event_id: i.eventId, type: i.type, tenant: i.tenant, user_id: i.userId, body: i.body,
        created_ms: r.created_at.getTime(),
      })));
      if (deliveries.length > 0) {
        await client.query(
          `INSERT INTO laurel_webhook_deliveries (prefix, id, endpoint_id, event_id, type, tenant, user_id, body, status, due_at, created_at)
           SELECT $1, d.id, d.endpoint_id, d.event_id, d.type, d.tenant, d.user_id, d.body, 'pending', to_timestamp($3 / 1000.0), to_timestamp(d.created_ms / 1000.0)
           FROM json_to_recordset($2::json) AS d(id text, endpoint_id text, event_id text, type text, tenant text, user_id text, body text, created_ms float8)
           ON CONFLICT (prefix, id) DO NOTHING`,
          [prefix, JSON.stringify(deliveries), nowMs],
        );
      }
      return { rows: rows.length, deliveries: deliveries.length };
    });
    moved += n.deliveries;
    if (n.rows < ROWS) return moved;
  }
}
