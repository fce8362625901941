/**
 * The webhook receiver of `laurel-system-hooks` (bench/variants.ts): a uWebSockets.js server on
 * loopback in the runner's process that reads every POST's body, answers 204 and counts them.
 * The customer's receiver does not run on laurel's machine: on this one it should take as little
 * of the cores the system is measured on as it can (a `node:http` receiver took several times the
 * CPU per delivery, and most of a core under the bench's load). Started once, on first use.
 */
import type { Redis } from 'ioredis';
import pg from 'pg';
import { App, us_socket_local_port } from 'uWebSockets.js';

let started: Promise<string> | null = null;
let received = 0;

/** The receiver's URL (started on first call). */
export function webhookReceiver(): Promise<string> {
  started ??= new Promise((resolve, reject) => {
    App().post('/*', (res) => {
      let done = false;
      res.onAborted(() => { done = true; });
      res.onData((_chunk, isLast) => {
        if (!isLast || done) return;
        received++;
        res.cork(() => { res.writeStatus('204 No Content').end(); });
      });
    }).listen('127.0.0.1', 0, (socket) => {
      if (socket === false) reject(new Error('the webhook receiver could not listen'));
      else resolve(`http://127.0.0.1:${us_socket_local_port(socket)}/hooks`);
    });
  });
  return started;
}

/** Deliveries received so far. */
export const webhooksReceived = (): number => received;

/** How the sender kept up with one load: the deliveries waiting once the drain caught up, and the seconds until none did. */
export interface WebhookTail {
  waiting: number;
  sentAfterS: number | null;
}

/**
 * Waits (reading every 250 ms, at most `capS` seconds after the load ended) until nothing of the
 * installation waits to be sent: its endpoints' queues in Redis empty (src/engine/webhooks/queue.ts:
 * a delivery leaves its queue once its attempt is recorded), and, for a baseline of the version
 * before, its outbox's rows all settled. `sentAfterS` null: not within the cap.
 */
export async function waitForWebhooks(databaseUrl: string, redis: Redis, prefix: string, loadEndMs: number, capS: number): Promise<WebhookTail> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const queues: string[] = [];
    for (let cursor = '0'; ;) {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:{whq:*}:q`, 'COUNT', 1000);
      queues.push(...found);
      cursor = next;
      if (cursor === '0') break;
    }
    const outbox = (await db.query<{ t: string | null }>(`SELECT to_regclass('laurel_webhook_outbox')::text AS t`)).rows[0].t !== null;
    const waitingNow = async () => {
      let n = 0;
      for (const q of queues) n += await redis.xlen(q);
      // Rows not settled yet; read through to_jsonb so a baseline whose outbox has no settled_at (it
      // deleted rows once sent) is read by the same query.
      if (outbox) {
        n += Number((await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM laurel_webhook_outbox o WHERE prefix = $1 AND to_jsonb(o)->>'settled_at' IS NULL`, [prefix],
        )).rows[0].n);
      }
      return n;
    };
    const waiting = await waitingNow();
    for (let left = waiting; left > 0; left = await waitingNow()) {
      if (Date.now() - loadEndMs > capS * 1000) return { waiting, sentAfterS: null };
      await new Promise((r) => setTimeout(r, 250));
    }
    return { waiting, sentAfterS: Math.max(0, (Date.now() - loadEndMs) / 1000) };
  } finally {
    await db.end();
  }
}
