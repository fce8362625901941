/**
 * The webhook outbox (src/postgres/webhooks/outbox.ts) on the real Postgres: rows of up to 32
 * deliveries per endpoint; a claim takes at most the rows allowed per endpoint, each endpoint's own
 * (another's backlog never fills it), and holds them for
 * its lease (another claim skips them, and takes them once the lease has run out); settling rows
 * keeps them with how each first attempt ended, gives the deliveries not delivered rows of their
 * own, and leaves a row settled first as it was; the deliveries listed from both as one, newest
 * first, by pages and status; a delivered one retried from a row of its own; both pruned; a pass of
 * more rows than one statement takes written whole.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { claimDue, recordDeliveries, type NewDelivery } from '../../src/postgres/webhooks/deliveries.js';
import { listDeliveries, pruneSettled, retryDelivery } from '../../src/postgres/webhooks/history.js';
import { addToOutbox, claimOutbox, completeOutbox, OUTBOX_ROW } from '../../src/postgres/webhooks/outbox.js';

describe('the webhook outbox', () => {
  let pool: pg.Pool;
  const prefix = `outbox-${randomUUID().slice(0, 8)}`;
  const now = Date.parse('2026-03-01T12:00:00Z');

  const delivery = (endpointId: string, n: number): NewDelivery => ({
    endpointId, eventId: `ev-${endpointId}-${n}`, type: 'streak.started', tenant: '', userId: `u${n}`,
    body: JSON.stringify({ type: 'streak.started', n }), dueAt: now, coalesce: false,
  });

  const record = async (deliveries: NewDelivery[]) => {
    const client = await pool.connect();
    try {
      await addToOutbox(client, prefix, deliveries, now);
    } finally {
      client.release();
    }
  };

  beforeAll(async () => {
    pool = await connectPostgres(loadSettings({ ...process.env, LAUREL_PREFIX: prefix }));
  });
  afterAll(async () => {
    await pool.query('DELETE FROM laurel_webhook_outbox WHERE prefix = $1', [prefix]);
    await pool.query('DELETE FROM laurel_webhook_deliveries WHERE prefix = $1', [prefix]);
    await pool.end();
  });

  it('holds an endpoint\'s deliveries in rows of 32, claimed once each until the lease runs out', async () => {
    await record([...Array.from({ length: 70 }, (_, n) => delivery('a', n)), delivery('b', 0)]);
    // At most 2 rows of `a`, one of `b` (the rows allowed each).
    const first = await claimOutbox(pool, prefix, 60_000, { a: 2, b: 1 }, 0);
    expect(first.map((r) => [r.endpointId, r.deliveries.length]).sort()).toEqual([['a', OUTBOX_ROW], ['a', OUTBOX_ROW], ['b', 1]]);
    expect(first[0].deliveries[0]).toMatchObject({ status: 'sending', attempts: 0, createdAt: now });
    // Claimed: another process gets the third row of `a` only.
    const second = await claimOutbox(pool, prefix, 1, { a: 5, b: 5 }, 0);
    expect(second.map((r) => [r.endpointId, r.deliveries.length])).toEqual([['a', 70 - 2 * OUTBOX_ROW]]);
    expect(second[0].deliveries.map((d) => d.eventId)).toEqual(['ev-a-64', 'ev-a-65', 'ev-a-66', 'ev-a-67', 'ev-a-68', 'ev-a-69']);
    // Its lease (1 ms) runs out: claimed again, the same deliveries under the same ids.
    await new Promise((r) => setTimeout(r, 20));
    const again = await claimOutbox(pool, prefix, 60_000, { a: 5, b: 5 }, 0);
    expect(again.map((r) => r.id)).toEqual([second[0].id]);
    expect(again[0].deliveries.map((d) => d.id)).toEqual(second[0].deliveries.map((d) => d.id));
    // Nothing else is free.
    expect(await claimOutbox(pool, prefix, 60_000, { a: 5, b: 5 }, 5)).toEqual([]);

    // Settled: each outbox row kept with how its deliveries' first attempts ended; a delivery not
    // delivered gets a row of its own (to be tried again).
    const [b] = first.filter((r) => r.endpointId === 'b');
    await completeOutbox(pool, prefix, [{ id: b.id, deliveries: b.deliveries, attempts: [
      { delivery: b.deliveries[0], status: 'pending', nextAt: now + 5_000, lastStatus: 500, error: 'HTTP 500', at: now + 10 },
    ] }]);
    const rows = again[0];
    await completeOutbox(pool, prefix, [{ id: rows.id, deliveries: rows.deliveries, attempts: rows.deliveries.map((d) => ({ delivery: d, status: 'delivered' as const, lastStatus: 204, error: null, at: now + 20 })) }]);
    expect(await listDeliveries(pool, prefix, 'b', { limit: 10, skip: 0 })).toEqual([expect.objectContaining({
      id: b.deliveries[0].id, eventId: 'ev-b-0', status: 'pending', attempts: 1, lastStatus: 500, error: 'HTTP 500', dueAt: now + 5_000, createdAt: now,
    })]);
    const ownRows = await pool.query('SELECT endpoint_id FROM laurel_webhook_deliveries WHERE prefix = $1', [prefix]);
    expect(ownRows.rows).toEqual([{ endpoint_id: 'b' }]);
    const a = await listDeliveries(pool, prefix, 'a', { limit: 100, skip: 0 });
    expect(a.map((d) => [d.status, d.attempts, d.lastStatus, d.deliveredAt, d.createdAt])).toEqual(Array(6).fill(['delivered', 1, 204, now + 20, now]));
    expect(a.map((d) => d.id)).toEqual(rows.deliveries.map((d) => d.id).sort().reverse());
    expect(a[0]).toEqual(expect.objectContaining({ endpointId: 'a', type: 'streak.started', body: rows.deliveries.find((d) => d.id === a[0].id)!.body }));
    const left = await pool.query('SELECT id FROM laurel_webhook_outbox WHERE prefix = $1 AND settled_at IS NULL ORDER BY id', [prefix]);
    expect(left.rows.map((r: { id: string }) => r.id).sort()).toEqual(first.filter((r) => r.endpointId === 'a').map((r) => r.id).sort());

    // A row sent again by a process whose lease ran out keeps the settlement written first.
    const stale = rows.deliveries.slice(0, 1).map((d) => ({ delivery: d, status: 'failed' as const, lastStatus: null, error: 'ECONNRESET', at: now + 30 }));
    await completeOutbox(pool, prefix, [{ id: rows.id, deliveries: rows.deliveries, attempts: stale }]);
    expect((await listDeliveries(pool, prefix, 'a', { limit: 100, skip: 0 })).filter((d) => d.status !== 'delivered')).toEqual([]);
    expect((await pool.query('SELECT 1 FROM laurel_webhook_deliveries WHERE prefix = $1 AND endpoint_id = $2', [prefix, 'a'])).rows).toEqual([]);
  });

  it('lists settled deliveries and rows of their own as one, newest first; retries a delivered one from its own row; prunes both', async () => {
    const t0 = now + 3_600_000;
    const settle = async (endpoint: string, from: number, n: number, at: number, failing = -1) => {
      const client = await pool.connect();
      try {
        await addToOutbox(client, prefix, Array.from({ length: n }, (_, i) => delivery(endpoint, from + i)), at);
      } finally {
        client.release();
      }
      const [row] = await claimOutbox(pool, prefix, 60_000, { [endpoint]: 1 }, 0);
      await completeOutbox(pool, prefix, [{ id: row.id, deliveries: row.deliveries, attempts: row.deliveries.map((d, i) => (i === failing
        ? { delivery: d, status: 'failed' as const, lastStatus: 500, error: 'HTTP 500', at: at + 1 }
        : { delivery: d, status: 'delivered' as const, lastStatus: 200, error: null, at: at + 1 })) }]);
      return row;
    };
    const older = await settle('l', 0, 3, t0, 1);
    const newer = await settle('l', 3, 2, t0 + 1000);
    const all = await listDeliveries(pool, prefix, 'l', { limit: 10, skip: 0 });
    expect(all.map((d) => d.eventId)).toEqual([
      ...newer.deliveries.map((d) => d).sort((x, y) => (x.id < y.id ? 1 : -1)).map((d) => d.eventId),
      ...older.deliveries.map((d) => d).sort((x, y) => (x.id < y.id ? 1 : -1)).map((d) => d.eventId),
    ]);
    expect(all.find((d) => d.eventId === 'ev-l-1')).toMatchObject({ status: 'failed', lastStatus: 500 });
    // Pages, and one status.
    const paged = [...await listDeliveries(pool, prefix, 'l', { limit: 2, skip: 0 }), ...await listDeliveries(pool, prefix, 'l', { limit: 2, skip: 2 }),
      ...await listDeliveries(pool, prefix, 'l', { limit: 2, skip: 4 })];
    expect(paged.map((d) => d.id)).toEqual(all.map((d) => d.id));
    expect((await listDeliveries(pool, prefix, 'l', { status: 'failed', limit: 10, skip: 0 })).map((d) => d.eventId)).toEqual(['ev-l-1']);
    expect((await listDeliveries(pool, prefix, 'l', { status: 'delivered', limit: 10, skip: 0 }))).toHaveLength(4);

    // A retry of a delivered one: its own row, pending and due now, listed once.
    const target = newer.deliveries[0];
    expect(await retryDelivery(pool, prefix, 'l', target.id, t0 + 5000)).toMatchObject({
      id: target.id, eventId: target.eventId, status: 'pending', attempts: 1, lastStatus: 200, dueAt: t0 + 5000, createdAt: t0 + 1000, body: target.body,
    });
    const after = await listDeliveries(pool, prefix, 'l', { limit: 10, skip: 0 });
    expect(after.filter((d) => d.id === target.id).map((d) => d.status)).toEqual(['pending']);
    expect(after).toHaveLength(5);
    expect((await claimDue(pool, prefix, t0 + 5000, 60_000, { l: 10 }, 0)).map((d) => d.id)).toEqual([target.id]);
    expect(await retryDelivery(pool, prefix, 'l', 'no-such-delivery', t0)).toBeNull();
    expect(await retryDelivery(pool, prefix, 'other', older.deliveries[0].id, t0)).toBeNull();

    // Pruned: settled rows and settled deliveries made before the time given; the pending one stays.
    expect(await pruneSettled(pool, prefix, t0 + 2000)).toBeGreaterThanOrEqual(3);
    expect((await listDeliveries(pool, prefix, 'l', { limit: 10, skip: 0 })).map((d) => d.id)).toEqual([target.id]);
  });

  it('names the deliveries of a row written before rows named them (waiting at the upgrade), so a retry finds one once it is settled', async () => {
    const at = now + 7_200_000;
    const client = await pool.connect();
    try {
      await addToOutbox(client, prefix, [delivery('up', 0), delivery('up', 1)], at);
    } finally {
      client.release();
    }
    // As the version before wrote it: no ids.
    await pool.query(`UPDATE laurel_webhook_outbox SET ids = '{}' WHERE prefix = $1 AND endpoint_id = 'up'`, [prefix]);
    // A start (the migrations run again) names them.
    const restarted = await connectPostgres(loadSettings({ ...process.env, LAUREL_PREFIX: prefix }));
    await restarted.end();
    const [row] = await claimOutbox(pool, prefix, 60_000, { up: 1 }, 0);
    const { rows: [named] } = await pool.query(`SELECT ids FROM laurel_webhook_outbox WHERE prefix = $1 AND id = $2`, [prefix, row.id]);
    expect(named.ids).toEqual(row.deliveries.map((d) => d.id));
    await completeOutbox(pool, prefix, [{ id: row.id, deliveries: row.deliveries,
      attempts: row.deliveries.map((d) => ({ delivery: d, status: 'delivered' as const, lastStatus: 204, error: null, at: at + 1 })) }]);
    expect(await retryDelivery(pool, prefix, 'up', row.deliveries[1].id, at + 5000)).toMatchObject({ eventId: 'ev-up-1', status: 'pending', attempts: 1 });
  });

  it('claims each endpoint\'s own rows, however many older rows another has waiting', async () => {
    // A receiver that fell behind: 70 rows waiting, older than the one of a receiver that keeps up.
    await record(Array.from({ length: 70 * OUTBOX_ROW }, (_, n) => delivery('slow', n)));
    await record([delivery('fast', 0)]);
    await record([delivery('gone', 0)]);
    // `slow` has all it may have claimed: `fast` gets its row all the same.
    const claimed = await claimOutbox(pool, prefix, 60_000, { slow: 0, fast: 4 }, 0);
    expect(claimed.map((r) => r.endpointId)).toEqual(['fast']);
    // An endpoint not named (deleted since) is claimed apart, up to `others` rows.
    const orphans = await claimOutbox(pool, prefix, 60_000, { slow: 0, fast: 4 }, 1);
    expect(orphans.map((r) => [r.endpointId, r.deliveries.map((d) => d.eventId)])).toEqual([['gone', ['ev-gone-0']]]);
    // Several such endpoints, named after and before those configured: up to `others` rows in all.
    await record([delivery('zgone', 0), delivery('zgone', 1), delivery('agone', 0)]);
    await record([delivery('zgone', 2)]);
    const more = await claimOutbox(pool, prefix, 60_000, { slow: 0, fast: 4 }, 2);
    expect(more).toHaveLength(2);
    const last = await claimOutbox(pool, prefix, 60_000, { slow: 0, fast: 4 }, 5);
    expect(last).toHaveLength(1);
    expect([...more, ...last].flatMap((r) => r.deliveries.map((d) => d.eventId)).sort()).toEqual(['ev-agone-0', 'ev-zgone-0', 'ev-zgone-1', 'ev-zgone-2']);
    expect(await claimOutbox(pool, prefix, 60_000, { slow: 0, fast: 4 }, 5)).toEqual([]);
    const slow = await claimOutbox(pool, prefix, 60_000, { slow: 2 }, 0);
    expect(slow.map((r) => r.deliveries[0].eventId)).toEqual(['ev-slow-0', `ev-slow-${OUTBOX_ROW}`]);
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
    const claimed = await claimDue(pool, prefix, now + 1_000, 60_000, { dead: 0, alive: 128 }, 0);
    expect(claimed.map((d) => d.eventId)).toEqual(['ev-alive-0']);
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
  it('writes a pass of more rows than one statement takes (1,000 a statement), every delivery once, bodies as given, compressed with lz4', async () => {
    const many = Array.from({ length: 1001 * OUTBOX_ROW + 5 }, (_, n) => ({ ...delivery('big', n), body: JSON.stringify({ type: 'streak.started', n, quote: 'a "b" \\ c' }) }));
    await record(many);
    const { rows } = await pool.query<{ n: string; items: string }>(
      `SELECT count(*) OVER () AS n, items FROM laurel_webhook_outbox WHERE prefix = $1 AND endpoint_id = 'big' ORDER BY id`, [prefix],
    );
    expect(Number(rows[0].n)).toBe(1002);
    const items = rows.flatMap((r) => JSON.parse(r.items) as { eventId: string; body: string }[]);
    expect(items.map((i) => i.eventId)).toEqual(many.map((d) => d.eventId));
    expect(items[1001 * OUTBOX_ROW + 4].body).toBe(many[1001 * OUTBOX_ROW + 4].body);
    // Compressed with lz4 (the server has it; a row too small to compress stays as it is), read back as written.
    const { rows: [column] } = await pool.query(`SELECT attcompression FROM pg_attribute WHERE attrelid = 'laurel_webhook_outbox'::regclass AND attname = 'items'`);
    expect(column.attcompression).toBe('l');
    const methods = await pool.query(`SELECT DISTINCT pg_column_compression(items) AS m FROM laurel_webhook_outbox WHERE prefix = $1 AND endpoint_id = 'big' AND pg_column_compression(items) IS NOT NULL`, [prefix]);
    expect(methods.rows).toEqual([{ m: 'lz4' }]);
    await pool.query(`DELETE FROM laurel_webhook_outbox WHERE prefix = $1 AND endpoint_id = 'big'`, [prefix]);
  });
});
