/**
 * The upgrade from the outbox of the version before (src/postgres/pool.ts, src/postgres/webhooks/upgrade.ts),
 * on a database of its own holding that version's tables and rows: the first start renames the
 * outbox `laurel_webhook_sent` (its settled rows stay the record: listed as before, a delivered one
 * retried); the workers move each row still waiting to rows of their own and send its deliveries,
 * once each, leaving a row an earlier process holds a claim on until that claim runs out.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { connectPostgres } from '../../src/postgres/pool.js';
import { webhookDeliveryId } from '../../src/postgres/webhooks/deliveries.js';
import { moveWaitingOutbox } from '../../src/postgres/webhooks/upgrade.js';
import { startWorkers } from '../../workers/index.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, type TestServer } from '../support/server.js';

const log = createLogger('silent');

/** The outbox as the version before made it (its migrations, in order). */
const EARLIER_OUTBOX = [
  `CREATE TABLE laurel_webhook_outbox (
     prefix text NOT NULL, id bigint GENERATED ALWAYS AS IDENTITY, endpoint_id text NOT NULL, items text NOT NULL,
     claimed_until timestamptz, created_at timestamptz NOT NULL, PRIMARY KEY (prefix, id))`,
  "ALTER TABLE laurel_webhook_outbox ADD COLUMN ids text[] NOT NULL DEFAULT '{}'",
  'ALTER TABLE laurel_webhook_outbox ADD COLUMN outcomes text',
  'ALTER TABLE laurel_webhook_outbox ADD COLUMN settled_at timestamptz',
  'CREATE INDEX laurel_webhook_outbox_waiting ON laurel_webhook_outbox (prefix, endpoint_id, id) WHERE settled_at IS NULL',
  'CREATE INDEX laurel_webhook_outbox_settled ON laurel_webhook_outbox (prefix, endpoint_id, created_at DESC, id DESC) WHERE settled_at IS NOT NULL',
  'CREATE INDEX laurel_webhook_outbox_ids ON laurel_webhook_outbox USING gin (ids)',
  `CREATE TABLE laurel_webhook_deliveries (
     prefix text NOT NULL, id text NOT NULL, endpoint_id text NOT NULL, event_id text NOT NULL, type text NOT NULL, tenant text NOT NULL,
     user_id text NOT NULL, body text NOT NULL, status text NOT NULL, due_at timestamptz NOT NULL, attempts integer NOT NULL DEFAULT 0,
     last_status integer, error text, claimed_until timestamptz, created_at timestamptz NOT NULL, delivered_at timestamptz, PRIMARY KEY (prefix, id))`,
];

describe('the upgrade from the webhook outbox', () => {
  const database = `laurel_upgrade_${randomBytes(4).toString('hex')}`;
  const admin = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const url = new URL(admin.toString());
  url.pathname = `/${database}`;
  let s: TestServer | undefined;
  let receiver: Server | undefined;
  afterAll(async () => {
    await s?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
    const db = new pg.Client({ connectionString: admin.toString().replace(/\/[^/]*$/, '/postgres') });
    await db.connect();
    await db.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await db.end();
  });

  it('keeps the settled rows as the record, and sends the waiting ones once each', { timeout: 60_000 }, async () => {
    const received: string[] = [];
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const server = new pg.Client({ connectionString: admin.toString().replace(/\/[^/]*$/, '/postgres') });
    await server.connect();
    await server.query(`CREATE DATABASE ${database}`);
    await server.end();

    // The earlier version's tables and rows (of an endpoint whose id is set once the api made it).
    const prefix = `t${randomBytes(5).toString('hex')}`;
    const placeholder = 'endpoint-of-the-earlier-version';
    const item = (n: number) => {
      const eventId = `msg_${String(n).repeat(32).slice(0, 32)}`;
      return { id: webhookDeliveryId(placeholder, eventId), eventId, type: 'achievement.completed', tenant: '', userId: `old${n}`, body: JSON.stringify({ type: 'achievement.completed', n }) };
    };
    const [d1, d2, d3, d4, d5] = [1, 2, 3, 4, 5].map(item);
    const earlier = new pg.Client({ connectionString: url.toString() });
    await earlier.connect();
    try {
      for (const sql of EARLIER_OUTBOX) await earlier.query(sql);
      const at = Date.now() - 60_000;
      // Settled: d1 delivered at once, d2 failed (a row of its own).
      await earlier.query(
        `INSERT INTO laurel_webhook_outbox (prefix, endpoint_id, items, ids, outcomes, settled_at, created_at)
         VALUES ($1, $2, $3, $4, $5, now(), to_timestamp($6 / 1000.0))`,
        [prefix, placeholder, JSON.stringify([d1, d2]), [d1.id, d2.id], JSON.stringify([[at + 10, 204], null]), at],
      );
      await earlier.query(
        `INSERT INTO laurel_webhook_deliveries (prefix, id, endpoint_id, event_id, type, tenant, user_id, body, status, due_at, attempts, last_status, error, created_at)
         VALUES ($1, $2, $3, $4, $5, '', $6, $7, 'failed', now(), 7, 500, 'HTTP 500', to_timestamp($8 / 1000.0))`,
        [prefix, d2.id, placeholder, d2.eventId, d2.type, d2.userId, d2.body, at],
      );
      // Waiting: d3 and d4 free; d5 claimed by a process of the earlier version, its claim running.
      await earlier.query(
        `INSERT INTO laurel_webhook_outbox (prefix, endpoint_id, items, ids, created_at) VALUES ($1, $2, $3, $4, to_timestamp($5 / 1000.0))`,
        [prefix, placeholder, JSON.stringify([d3, d4]), [d3.id, d4.id], at + 1000],
      );
      await earlier.query(
        `INSERT INTO laurel_webhook_outbox (prefix, endpoint_id, items, ids, claimed_until, created_at)
         VALUES ($1, $2, $3, $4, now() + interval '1 hour', to_timestamp($5 / 1000.0))`,
        [prefix, placeholder, JSON.stringify([d5]), [d5.id], at + 2000],
      );
    } finally {
      await earlier.end();
    }

    // This version starts: the outbox is renamed, its rows in it.
    s = await startTestServer({ env: { LAUREL_PREFIX: prefix, DATABASE_URL: url.toString(), LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    const pool = await connectPostgres(s.settings);
    const tables = await pool.query<{ old: string | null; now: string | null }>(
      `SELECT to_regclass('laurel_webhook_outbox')::text AS old, to_regclass('laurel_webhook_sent')::text AS now`,
    );
    expect(tables.rows).toEqual([{ old: null, now: 'laurel_webhook_sent' }]);
    expect((await pool.query('SELECT count(*)::int AS n FROM laurel_webhook_sent WHERE prefix = $1', [prefix])).rows[0].n).toBe(3);
    const hook = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Old', url: hookUrl, events: ['achievement.completed'] }] });
    expect(hook.status, hook.text).toBe(201);
    const endpoint = hook.body.created[0].id as string;
    for (const table of ['laurel_webhook_sent', 'laurel_webhook_deliveries']) {
      await pool.query(`UPDATE ${table} SET endpoint_id = $2 WHERE prefix = $1`, [prefix, endpoint]);
    }

    // The workers of this version start: the table is renamed, the waiting rows moved and sent.
    s.workers = await startWorkers(s.settings, log, s.api.services);
    await eventually(async () => {
      await s!.workers!.testing.webhooksNow();
      expect([...received].sort()).toEqual([d3.eventId, d4.eventId].sort());
    }, 30_000);
    try {
      const listed = async () => (await s!.request('GET', `/admin/v1/webhooks/${endpoint}/deliveries?limit=100`)).body as
        { id: string; webhookId: string; status: string; attempts: number; lastStatus: number }[];
      const byEvent = async () => Object.fromEntries((await listed()).map((d) => [d.webhookId, [d.status, d.attempts, d.lastStatus]]));
      expect(await byEvent()).toEqual({
        [d1.eventId]: ['delivered', 1, 204], [d2.eventId]: ['failed', 7, 500], [d3.eventId]: ['delivered', 1, 204], [d4.eventId]: ['delivered', 1, 204],
      });
      // Moved once: nothing is left to move while d5's claim runs, and nothing is sent twice.
      expect(await moveWaitingOutbox(pool, s.prefix, Date.now())).toBe(0);
      await s.workers.testing.webhooksNow();
      expect(received).toHaveLength(2);
      // d5's claim runs out (its process gone): moved and sent, once.
      await pool.query('UPDATE laurel_webhook_sent SET claimed_until = now() - interval \'1 second\' WHERE prefix = $1 AND settled_at IS NULL', [s.prefix]);
      expect(await moveWaitingOutbox(pool, s.prefix, Date.now())).toBe(1);
      await eventually(async () => {
        await s!.workers!.testing.webhooksNow();
        expect(received).toHaveLength(3);
      }, 30_000);
      expect(received[2]).toBe(d5.eventId);
      expect((await pool.query('SELECT count(*)::int AS n FROM laurel_webhook_sent WHERE prefix = $1 AND settled_at IS NULL', [s.prefix])).rows[0].n).toBe(0);
      // A delivered one of the earlier record is retried from a row of its own, under its id.
      const d1Listed = (await listed()).find((d) => d.webhookId === d1.eventId)!;
      expect((await s.request('POST', `/admin/v1/webhooks/${endpoint}/deliveries/${d1Listed.id}/retry`)).body).toMatchObject({ status: 'pending' });
      await eventually(async () => {
        await s!.workers!.testing.webhooksNow();
        expect(received.slice(3)).toEqual([d1.eventId]);
      }, 30_000);
    } finally {
      await pool.end();
    }
  });
});
