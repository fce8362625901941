/**
 * The record of webhook deliveries on the real Postgres (src/postgres/webhooks/sent.ts, history.ts,
 * deliveries.ts): first attempts recorded in bulk, the delivered as rows of the record per endpoint
 * (up to 500 a row, lz4), the others as rows of their own; recorded again (a process whose claim ran
 * out), a delivery keeps its first record; the deliveries listed from both as one, newest first, by
 * pages (a row's items made far apart too) and status; a delivered one retried from a row of its own; both pruned; the record found by
 * id (a claim run out); rows due claimed per endpoint, another's backlog never filling them.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { claimDue, recordDeliveries, webhookDeliveryId, type NewDelivery, type WebhookDelivery } from '../../src/postgres/webhooks/deliveries.js';
import { listDeliveries, pruneSettled, retryDelivery } from '../../src/postgres/webhooks/history.js';
import { inTransaction, recordedIds, recordFirstAttempts, SENT_ROW, type FirstAttempt } from '../../src/postgres/webhooks/sent.js';

describe('the record of webhook deliveries', () => {
  let pool: pg.Pool;
  const prefix = `record-${randomUUID().slice(0, 8)}`;
  const now = Date.parse('2026-03-01T12:00:00Z');

  const delivery = (endpointId: string, n: number): NewDelivery => ({
    endpointId, eventId: `ev-${endpointId}-${n}`, type: 'streak.started', tenant: '', userId: `u${n}`,
    body: JSON.stringify({ type: 'streak.started', n }), dueAt: now, coalesce: false,
  });

  /** A delivery of the log as a sender claimed it from its queue, made at `created`. */
  const claimed = (endpointId: string, n: number, created: number): WebhookDelivery => {
    const d = delivery(endpointId, n);
    return {
      id: webhookDeliveryId(endpointId, d.eventId), endpointId, eventId: d.eventId, type: d.type, tenant: d.tenant, userId: d.userId, body: d.body,
      status: 'sending', dueAt: created, attempts: 0, lastStatus: null, error: null, createdAt: created, deliveredAt: null,
    };
  };
  const delivered = (d: WebhookDelivery, at: number): FirstAttempt => ({ delivery: d, status: 'delivered', lastStatus: 204, error: null, at });
  const record = (attempts: FirstAttempt[]) => inTransaction(pool, (client) => recordFirstAttempts(client, prefix, attempts));

  beforeAll(async () => {
    pool = await connectPostgres(loadSettings({ ...process.env, LAUREL_PREFIX: prefix }));
  });
  afterAll(async () => {
    await pool.query('DELETE FROM laurel_webhook_sent WHERE prefix = $1', [prefix]);
    await pool.query('DELETE FROM laurel_webhook_deliveries WHERE prefix = $1', [prefix]);
    await pool.end();
  });

  it('records the delivered in rows of the record and the others in rows of their own; a delivery recorded again keeps its first record', async () => {
    const a = Array.from({ length: 6 }, (_, n) => claimed('a', n, now));
    const b = claimed('b', 0, now);
    await record([...a.map((d) => delivered(d, now + 20)),
      { delivery: b, status: 'pending', nextAt: now + 5_000, lastStatus: 500, error: 'HTTP 500', at: now + 10 }]);
    // One row of the record for `a`'s six; `b` has its own row, due again after its backoff.
    const rows = await pool.query<{ endpoint_id: string; ids: string[] }>('SELECT endpoint_id, ids FROM laurel_webhook_sent WHERE prefix = $1', [prefix]);
    expect(rows.rows).toEqual([{ endpoint_id: 'a', ids: a.map((d) => d.id) }]);
    expect(await listDeliveries(pool, prefix, 'b', { limit: 10, skip: 0 })).toEqual([expect.objectContaining({
      id: b.id, eventId: 'ev-b-0', status: 'pending', attempts: 1, lastStatus: 500, error: 'HTTP 500', dueAt: now + 5_000, createdAt: now,
    })]);
    const listed = await listDeliveries(pool, prefix, 'a', { limit: 100, skip: 0 });
    expect(listed.map((d) => [d.status, d.attempts, d.lastStatus, d.deliveredAt, d.createdAt])).toEqual(Array(6).fill(['delivered', 1, 204, now + 20, now]));
    expect(listed.map((d) => d.id)).toEqual(a.map((d) => d.id).sort().reverse());
    expect(listed[0]).toEqual(expect.objectContaining({ endpointId: 'a', type: 'streak.started', body: a.find((d) => d.id === listed[0].id)!.body }));
    // Found by id (a sender whose claim ran out asks), of either kind; not another endpoint's.
    expect(await recordedIds(pool, prefix, 'a', [a[2].id, 'nope'])).toEqual(new Set([a[2].id]));
    expect(await recordedIds(pool, prefix, 'b', [b.id, a[2].id])).toEqual(new Set([b.id]));
    // Recorded again by a process whose claim ran out (it failed this time): the first record stands.
    await record([{ delivery: b, status: 'failed', lastStatus: null, error: 'ECONNRESET', at: now + 30 }]);
    expect((await listDeliveries(pool, prefix, 'b', { limit: 10, skip: 0 }))[0]).toMatchObject({ status: 'pending', lastStatus: 500 });
  });

  it('lists the record and rows of their own as one, newest first; retries a delivered one from its own row; prunes both', async () => {
    const t0 = now + 3_600_000;
    const older = [0, 1, 2].map((n) => claimed('l', n, t0));
    const newer = [3, 4].map((n) => claimed('l', n, t0 + 1000));
    await record([delivered(older[0], t0 + 1), { delivery: older[1], status: 'failed', lastStatus: 500, error: 'HTTP 500', at: t0 + 1 }, delivered(older[2], t0 + 1)]);
    await record(newer.map((d) => delivered(d, t0 + 1001)));
    const all = await listDeliveries(pool, prefix, 'l', { limit: 10, skip: 0 });
    const byId = (x: WebhookDelivery, y: WebhookDelivery) => (x.id < y.id ? 1 : -1);
    expect(all.map((d) => d.eventId)).toEqual([...[...newer].sort(byId), ...[...older].sort(byId)].map((d) => d.eventId));
    expect(all.find((d) => d.eventId === 'ev-l-1')).toMatchObject({ status: 'failed', lastStatus: 500 });
    // Pages, and one status.
    const paged = [...await listDeliveries(pool, prefix, 'l', { limit: 2, skip: 0 }), ...await listDeliveries(pool, prefix, 'l', { limit: 2, skip: 2 }),
      ...await listDeliveries(pool, prefix, 'l', { limit: 2, skip: 4 })];
    expect(paged.map((d) => d.id)).toEqual(all.map((d) => d.id));
    expect((await listDeliveries(pool, prefix, 'l', { status: 'failed', limit: 10, skip: 0 })).map((d) => d.eventId)).toEqual(['ev-l-1']);
    expect((await listDeliveries(pool, prefix, 'l', { status: 'delivered', limit: 10, skip: 0 }))).toHaveLength(4);

    // A retry of a delivered one: its own row, pending and due now, listed once.
    const target = newer[0];
    expect(await retryDelivery(pool, prefix, 'l', target.id, t0 + 5000)).toMatchObject({
      id: target.id, eventId: target.eventId, status: 'pending', attempts: 1, lastStatus: 204, dueAt: t0 + 5000, createdAt: t0 + 1000, body: target.body,
    });
    const after = await listDeliveries(pool, prefix, 'l', { limit: 10, skip: 0 });
    expect(after.filter((d) => d.id === target.id).map((d) => d.status)).toEqual(['pending']);
    expect(after).toHaveLength(5);
    expect((await claimDue(pool, prefix, t0 + 5000, 60_000, { l: 10 }, 0)).map((d) => d.id)).toEqual([target.id]);
    expect(await retryDelivery(pool, prefix, 'l', 'no-such-delivery', t0)).toBeNull();
    expect(await retryDelivery(pool, prefix, 'other', older[0].id, t0)).toBeNull();

    // Pruned: the record's rows and settled deliveries made before the time given; the pending one stays.
    expect(await pruneSettled(pool, prefix, t0 + 2000)).toBeGreaterThanOrEqual(3);
    expect((await listDeliveries(pool, prefix, 'l', { limit: 10, skip: 0 })).map((d) => d.id)).toEqual([target.id]);
  });

  it('lists by pages each delivery once when a row\'s items were made at times far apart (sends ended out of order)', async () => {
    const t0 = now + 7_200_000;
    // 40 rows of 5: row r holds the deliveries made at t0 + r + 100 k, so the newest of all are one in each row.
    for (let r = 0; r < 40; r++) {
      await record(Array.from({ length: 5 }, (_, k) => delivered(claimed('pages', r * 5 + k, t0 + r + 100 * k), t0 + 500)));
    }
    const all = await listDeliveries(pool, prefix, 'pages', { limit: 200, skip: 0 });
    expect(all).toHaveLength(200);
    const created = all.map((d) => d.createdAt);
    expect(created).toEqual([...created].sort((x, y) => y - x));
    const paged: WebhookDelivery[] = [];
    for (let skip = 0; skip < 200; skip += 10) paged.push(...await listDeliveries(pool, prefix, 'pages', { limit: 10, skip }));
    expect(paged.map((d) => d.id)).toEqual(all.map((d) => d.id));
  });

  it('claims each endpoint\'s own due deliveries (retries, the clock\'s events), however many another has due before', async () => {
    const client = await pool.connect();
    try {
      // A receiver down for hours: 600 retries due, all before the one of a receiver that answers.
      await recordDeliveries(client, prefix, Array.from({ length: 600 }, (_, n) => ({ ...delivery('dead', n), dueAt: now - 600_000 + n })), now);
      await recordDeliveries(client, prefix, [delivery('alive', 0)], now);
    } finally {
      client.release();
    }
    const first = await claimDue(pool, prefix, now + 1_000, 60_000, { dead: 0, alive: 128 }, 0);
    expect(first.map((d) => d.eventId)).toEqual(['ev-alive-0']);
    const dead = await claimDue(pool, prefix, now + 1_000, 60_000, { dead: 3 }, 0);
    expect(dead.map((d) => d.eventId)).toEqual(['ev-dead-0', 'ev-dead-1', 'ev-dead-2']);
    // Endpoints not named (deleted since), before and after those named: up to `others` in all, the earliest due of each.
    const again = await pool.connect();
    try {
      await recordDeliveries(again, prefix, [{ ...delivery('agone', 0), dueAt: now - 5 }, { ...delivery('zgone', 0), dueAt: now - 7 }, { ...delivery('zgone', 1), dueAt: now - 6 }], now);
    } finally {
      again.release();
    }
    const named = { dead: 0, alive: 0 };
    const orphans = await claimDue(pool, prefix, now + 1_000, 60_000, named, 2);
    expect(orphans).toHaveLength(2);
    const rest = await claimDue(pool, prefix, now + 1_000, 60_000, named, 5);
    expect([...orphans, ...rest].map((d) => d.eventId).sort()).toEqual(['ev-agone-0', 'ev-zgone-0', 'ev-zgone-1']);
    expect(await claimDue(pool, prefix, now + 1_000, 60_000, named, 5)).toEqual([]);
  });

  it('records a batch larger than a row holds in rows of 500, every delivery once, bodies as given, compressed with lz4', async () => {
    const t = now + 7_200_000;
    const many = Array.from({ length: 2 * SENT_ROW + 5 }, (_, n) => ({ ...claimed('big', n, t + n), body: JSON.stringify({ type: 'streak.started', n, quote: 'a "b" \\ c' }) }));
    await record(many.map((d) => delivered(d, t + 5000)));
    const { rows } = await pool.query<{ n: string; items: string; created_at: Date }>(
      `SELECT count(*) OVER () AS n, items, created_at FROM laurel_webhook_sent WHERE prefix = $1 AND endpoint_id = 'big' ORDER BY id`, [prefix],
    );
    expect(Number(rows[0].n)).toBe(3);
    const items = rows.flatMap((r) => JSON.parse(r.items) as { eventId: string; body: string; created: number }[]);
    expect(items.map((i) => i.eventId)).toEqual(many.map((d) => d.eventId));
    expect(items[2 * SENT_ROW + 4]).toMatchObject({ body: many[2 * SENT_ROW + 4].body, created: t + 2 * SENT_ROW + 4 });
    // A row is as new as its newest delivery (listed and pruned by it).
    expect(rows.map((r) => r.created_at.getTime())).toEqual([t + SENT_ROW - 1, t + 2 * SENT_ROW - 1, t + 2 * SENT_ROW + 4]);
    expect((await listDeliveries(pool, prefix, 'big', { limit: 3, skip: 0 })).map((d) => d.eventId)).toEqual(
      [2 * SENT_ROW + 4, 2 * SENT_ROW + 3, 2 * SENT_ROW + 2].map((n) => `ev-big-${n}`));
    // Compressed with lz4 (the server has it), read back as written.
    const { rows: [column] } = await pool.query(`SELECT attcompression FROM pg_attribute WHERE attrelid = 'laurel_webhook_sent'::regclass AND attname = 'items'`);
    expect(column.attcompression).toBe('l');
    const methods = await pool.query(`SELECT DISTINCT pg_column_compression(items) AS m FROM laurel_webhook_sent WHERE prefix = $1 AND endpoint_id = 'big' AND pg_column_compression(items) IS NOT NULL`, [prefix]);
    expect(methods.rows).toEqual([{ m: 'lz4' }]);
  });
});
