/**
 * Notification deliveries in Postgres (`laurel_deliveries`): one row per (tenant, user, type,
 * channel, occasion), its id a hash of them, indexed by when it is due, so a pass reads only what
 * is due (never every user). Exactly once: a row is claimed (`scheduled` -> `sending`, FOR UPDATE
 * SKIP LOCKED) before it is sent, by one worker process only, and settled by the claim that took
 * it; a claim whose process died mid-send is never sent again (its outcome is unknown: at most
 * once), it is settled `failed`.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Channel, NotificationType } from '../../model/entities.js';

/**
 * `laurel_deliveries` (applied by src/postgres/pool.ts, in its order): one row per (tenant, user,
 * type, channel, occasion), the id that says so; the scheduler adds to a row while it is scheduled.
 */
export const NOTIFICATION_DELIVERY_MIGRATIONS = [
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
];

export type DeliveryStatus = 'scheduled' | 'sending' | 'sent' | 'failed' | 'suppressed' | 'cancelled';

/** What a message lists, by key: an achievement completion is `{ "<achievement id>": <ms> }`. */
export type DeliveryItems = Record<string, number>;

export interface Delivery {
  id: string;
  tenant: string;
  userId: string;
  type: NotificationType;
  channel: Channel;
  occasion: string;
  status: DeliveryStatus;
  reason: string | null;
  scheduledFor: number;
  sentAt: number | null;
  attempts: number;
  error: string | null;
  items: DeliveryItems;
  createdAt: number;
}

/** A delivery to schedule, or to add items to while it is scheduled. */
export interface Occasion {
  tenant: string;
  userId: string;
  type: NotificationType;
  channel: Channel;
  occasion: string;
  /** When it is due (ms). */
  at: number;
  items: DeliveryItems;
}

/** The id of the delivery of one occasion: 32 hex digits of a hash of what names it. */
export function deliveryId(o: Pick<Occasion, 'tenant' | 'userId' | 'type' | 'channel' | 'occasion'>): string {
  return createHash('sha256').update(JSON.stringify([o.tenant, o.userId, o.type, o.channel, o.occasion])).digest('hex').slice(0, 32);
}

interface Row {
  id: string;
  tenant: string;
  user_id: string;
  type: NotificationType;
  channel: Channel;
  occasion: string;
  status: DeliveryStatus;
  reason: string | null;
  scheduled_for: Date;
  sent_at: Date | null;
  attempts: number;
  error: string | null;
  items: DeliveryItems;
  created_at: Date;
}

function fromRow(r: Row): Delivery {
  return {
    id: r.id, tenant: r.tenant, userId: r.user_id, type: r.type, channel: r.channel, occasion: r.occasion, status: r.status,
    reason: r.reason, scheduledFor: r.scheduled_for.getTime(), sentAt: r.sent_at?.getTime() ?? null, attempts: r.attempts,
    error: r.error, items: r.items, createdAt: r.created_at.getTime(),
  };
}

/**
 * Schedules the occasion, or adds its items to its delivery while that is still scheduled (due at
 * the earlier time). True when the items are in a delivery now (also one sent already that lists
 * them, by key: a completion seen twice, as a restore replays it, is listed once); false when the
 * occasion's message has gone without them (the caller tries a later occasion). `client` may be
 * inside a transaction.
 */
export async function schedule(client: pg.ClientBase, prefix: string, o: Occasion, now: number): Promise<boolean> {
  const r = await client.query(
    `INSERT INTO laurel_deliveries (prefix, id, tenant, user_id, type, channel, occasion, status, scheduled_for, due_at, items, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'scheduled', to_timestamp($8 / 1000.0), to_timestamp($8 / 1000.0), $9::jsonb, to_timestamp($10 / 1000.0))
     ON CONFLICT (prefix, id) DO UPDATE SET
       items = laurel_deliveries.items || EXCLUDED.items,
       scheduled_for = CASE WHEN laurel_deliveries.status = 'scheduled' THEN LEAST(laurel_deliveries.scheduled_for, EXCLUDED.scheduled_for) ELSE laurel_deliveries.scheduled_for END,
       due_at = CASE WHEN laurel_deliveries.status = 'scheduled' THEN LEAST(laurel_deliveries.due_at, EXCLUDED.due_at) ELSE laurel_deliveries.due_at END
     WHERE laurel_deliveries.status = 'scheduled' OR laurel_deliveries.items ?& $11::text[]
     RETURNING 1`,
    [prefix, deliveryId(o), o.tenant, o.userId, o.type, o.channel, o.occasion, o.at, JSON.stringify(o.items), now, Object.keys(o.items)],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * Claims up to `limit` deliveries due at `now` (the service's clock) for this process: each is
 * `sending` from then on, its attempts counted, held for `leaseMs` of wall time. Claims of a
 * process that died mid-send (lease past) are settled `failed` first: never sent twice.
 */
export async function claimDue(pool: pg.Pool, prefix: string, now: number, limit: number, leaseMs: number): Promise<Delivery[]> {
  await pool.query(
    `UPDATE laurel_deliveries SET status = 'failed', reason = 'interrupted', claimed_until = NULL,
       error = 'the worker stopped while sending: the outcome is unknown, so it is not sent again'
     WHERE prefix = $1 AND status = 'sending' AND claimed_until < now()`,
    [prefix],
  );
  const { rows } = await pool.query<Row>(
    `UPDATE laurel_deliveries d SET status = 'sending', attempts = d.attempts + 1, claimed_until = now() + $4 * interval '1 millisecond'
     FROM (SELECT id FROM laurel_deliveries WHERE prefix = $1 AND status = 'scheduled' AND due_at <= to_timestamp($2 / 1000.0)
           ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
     WHERE d.prefix = $1 AND d.id = due.id
     RETURNING d.*`,
    [prefix, now, limit, leaseMs],
  );
  return rows.map(fromRow);
}

/** How a claimed delivery ended, or that it is to be tried again at `retryAt` (ms, service clock). */
export type Settlement =
  | { status: 'sent'; at: number }
  | { status: 'suppressed'; reason: string }
  | { status: 'cancelled'; reason: string }
  | { status: 'failed'; reason: string; error: string }
  | { status: 'scheduled'; retryAt: number; error: string };

/** Settles a claimed delivery; false when the claim is no longer this one's (nothing written). */
export async function settle(pool: pg.Pool, prefix: string, d: Delivery, s: Settlement): Promise<boolean> {
  const r = await pool.query(
    `UPDATE laurel_deliveries SET status = $4, claimed_until = NULL,
       sent_at = CASE WHEN $4 = 'sent' THEN to_timestamp($5 / 1000.0) ELSE sent_at END,
       due_at = CASE WHEN $4 = 'scheduled' THEN to_timestamp($5 / 1000.0) ELSE due_at END,
       reason = $6, error = $7
     WHERE prefix = $1 AND id = $2 AND status = 'sending' AND attempts = $3`,
    [
      prefix, d.id, d.attempts, s.status, s.status === 'sent' ? s.at : s.status === 'scheduled' ? s.retryAt : 0,
      s.status === 'suppressed' || s.status === 'failed' || s.status === 'cancelled' ? s.reason : null, s.status === 'failed' || s.status === 'scheduled' ? s.error : null,
    ],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * Gives back claimed deliveries that were not attempted (a worker process stopping): `scheduled`
 * again, due as they were, the claim's attempt not counted; free to claim at once. A claim that is
 * no longer this one's is left alone.
 */
export async function releaseClaimed(pool: pg.Pool, prefix: string, deliveries: Delivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await pool.query(
    `UPDATE laurel_deliveries d SET status = 'scheduled', attempts = d.attempts - 1, claimed_until = NULL
     FROM unnest($2::text[], $3::int[]) AS c(id, attempts)
     WHERE d.prefix = $1 AND d.id = c.id AND d.status = 'sending' AND d.attempts = c.attempts`,
    [prefix, deliveries.map((d) => d.id), deliveries.map((d) => d.attempts)],
  );
}

export interface DeliveryFilter {
  tenant: string;
  userId?: string;
  type?: string;
  channel?: string;
  status?: string;
  limit: number;
  skip: number;
}

/** A tenant's deliveries, newest first. */
export async function listDeliveries(pool: pg.Pool, prefix: string, f: DeliveryFilter): Promise<Delivery[]> {
  const { rows } = await pool.query<Row>(
    `SELECT * FROM laurel_deliveries
     WHERE prefix = $1 AND tenant = $2 AND ($3::text IS NULL OR user_id = $3) AND ($4::text IS NULL OR type = $4)
       AND ($5::text IS NULL OR channel = $5) AND ($6::text IS NULL OR status = $6)
     ORDER BY created_at DESC, id DESC LIMIT $7 OFFSET $8`,
    [prefix, f.tenant, f.userId ?? null, f.type ?? null, f.channel ?? null, f.status ?? null, f.limit, f.skip],
  );
  return rows.map(fromRow);
}

/** Whether the user has a delivery of a type with an occasion after `occasion` (an absence ended since). */
export async function hasLater(pool: pg.Pool, prefix: string, d: Pick<Delivery, 'tenant' | 'userId' | 'type' | 'occasion'>): Promise<boolean> {
  const { rows } = await pool.query(
    'SELECT 1 FROM laurel_deliveries WHERE prefix = $1 AND tenant = $2 AND user_id = $3 AND type = $4 AND occasion > $5 LIMIT 1',
    [prefix, d.tenant, d.userId, d.type, d.occasion],
  );
  return rows.length > 0;
}

/**
 * Schedules many occasions in one statement (reminders, reactivations, recaps: each one occasion,
 * no later one to try), merging items into a delivery still scheduled as schedule() does; the
 * same occasion twice in the list is scheduled once.
 */
export async function scheduleMany(client: pg.ClientBase | pg.Pool, prefix: string, occasions: Occasion[], now: number): Promise<void> {
  const byId = new Map(occasions.map((o) => [deliveryId(o), o]));
  if (byId.size === 0) return;
  const list = [...byId];
  await client.query(
    `INSERT INTO laurel_deliveries (prefix, id, tenant, user_id, type, channel, occasion, status, scheduled_for, due_at, items, created_at)
     SELECT $1, o.id, o.tenant, o.user_id, o.type, o.channel, o.occasion, 'scheduled', to_timestamp(o.at / 1000.0), to_timestamp(o.at / 1000.0),
            o.items::jsonb, to_timestamp($10 / 1000.0)
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[])
       AS o(id, tenant, user_id, type, channel, occasion, at, items)
     ON CONFLICT (prefix, id) DO UPDATE SET items = laurel_deliveries.items || EXCLUDED.items
     WHERE laurel_deliveries.status = 'scheduled'`,
    [
      prefix, list.map(([id]) => id), list.map(([, o]) => o.tenant), list.map(([, o]) => o.userId), list.map(([, o]) => o.type),
      list.map(([, o]) => o.channel), list.map(([, o]) => o.occasion), list.map(([, o]) => o.at), list.map(([, o]) => JSON.stringify(o.items)), now,
    ],
  );
}


/** Every delivery to one user, newest first (a user's export). */
export async function userDeliveries(pool: pg.Pool, prefix: string, tenant: string, userId: string): Promise<Delivery[]> {
  const { rows } = await pool.query<Row>(
    'SELECT * FROM laurel_deliveries WHERE prefix = $1 AND tenant = $2 AND user_id = $3 ORDER BY created_at DESC, id DESC',
    [prefix, tenant, userId],
  );
  return rows.map(fromRow);
}
