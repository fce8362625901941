/**
 * The webhook outbox (src/postgres/webhook-outbox.ts) on the real Postgres: rows of up to 32
 * deliveries per endpoint; a claim takes at most the rows allowed per endpoint, each endpoint's own
 * (another's backlog never fills it), and holds them for
 * its lease (another claim skips them, and takes them once the lease has run out); completing rows
 * writes each delivery's row with its first attempt and deletes the outbox rows, keeping a
 * delivery's row already written; a pass of more rows than one statement takes written whole.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/lib/settings.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { claimDue, listDeliveries, recordDeliveries, type NewDelivery } from '../../src/postgres/webhook-deliveries.js';
import { addToOutbox, claimOutbox, completeOutbox, OUTBOX_ROW } from '../../src/postgres/webhook-outbox.js';

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

    // Completed: each delivery's row with its first attempt, the outbox rows gone.
    const [b] = first.filter((r) => r.endpointId === 'b');
    await completeOutbox(pool, prefix, [b.id], [{ delivery: b.deliveries[0], status: 'pending', nextAt: now + 5_000, lastStatus: 500, error: 'HTTP 500', at: now + 10 }]);
    const rows = again[0];
    await completeOutbox(pool, prefix, [rows.id], rows.deliveries.map((d) => ({ delivery: d, status: 'delivered' as const, lastStatus: 204, error: null, at: now + 20 })));
    expect(await listDeliveries(pool, prefix, 'b', { limit: 10, skip: 0 })).toEqual([expect.objectContaining({
      id: b.deliveries[0].id, eventId: 'ev-b-0', status: 'pending', attempts: 1, lastStatus: 500, error: 'HTTP 500', dueAt: now + 5_000, createdAt: now,
    })]);
    const a = await listDeliveries(pool, prefix, 'a', { limit: 100, skip: 0 });
    expect(a.map((d) => [d.status, d.attempts, d.deliveredAt])).toEqual(Array(6).fill(['delivered', 1, now + 20]));
    const left = await pool.query('SELECT id FROM laurel_webhook_outbox WHERE prefix = $1 ORDER BY id', [prefix]);
    expect(left.rows.map((r: { id: string }) => r.id).sort()).toEqual(first.filter((r) => r.endpointId === 'a').map((r) => r.id).sort());

    // A row sent again by a process whose lease ran out keeps the outcome written first.
    const stale = rows.deliveries.slice(0, 1).map((d) => ({ delivery: d, status: 'failed' as const, lastStatus: null, error: 'ECONNRESET', at: now + 30 }));
    await completeOutbox(pool, prefix, [rows.id], stale);
    expect((await listDeliveries(pool, prefix, 'a', { limit: 100, skip: 0 })).filter((d) => d.status !== 'delivered')).toEqual([]);
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
  });
  it('writes a pass of more rows than one statement takes (1,000 a statement), every delivery once, bodies as given', async () => {
    const many = Array.from({ length: 1001 * OUTBOX_ROW + 5 }, (_, n) => ({ ...delivery('big', n), body: JSON.stringify({ type: 'streak.started', n, quote: 'a "b" \\ c' }) }));
    await record(many);
    const { rows } = await pool.query<{ n: string; items: string }>(
      `SELECT count(*) OVER () AS n, items FROM laurel_webhook_outbox WHERE prefix = $1 AND endpoint_id = 'big' ORDER BY id`, [prefix],
    );
    expect(Number(rows[0].n)).toBe(1002);
    const items = rows.flatMap((r) => JSON.parse(r.items) as { eventId: string; body: string }[]);
    expect(items.map((i) => i.eventId)).toEqual(many.map((d) => d.eventId));
    expect(items[1001 * OUTBOX_ROW + 4].body).toBe(many[1001 * OUTBOX_ROW + 4].body);
    await pool.query(`DELETE FROM laurel_webhook_outbox WHERE prefix = $1 AND endpoint_id = 'big'`, [prefix]);
  });
});
