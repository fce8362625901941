/**
 * The webhook receiver of `laurel-system-hooks` (bench/variants.ts): a uWebSockets.js server on
 * loopback in the runner's process that reads every POST's body, answers 204 and counts them.
 * The customer's receiver does not run on laurel's machine: on this one it should take as little
 * of the cores the system is measured on as it can (a `node:http` receiver took several times the
 * CPU per delivery, and most of a core under the bench's load). Started once, on first use.
 */
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

/** How the sender kept up with one load: the outbox's rows waiting once the drain caught up, and the seconds until none did. */
export interface WebhookTail {
  waiting: number;
  sentAfterS: number | null;
}

/**
 * Waits (reading every 250 ms, at most `capS` seconds after the load ended) until the webhook
 * outbox of the installation is empty: the deliveries the load's events called for, due at once,
 * all attempted (src/postgres/webhooks/outbox.ts). `sentAfterS` null: not within the cap.
 */
export async function waitForWebhooks(databaseUrl: string, prefix: string, loadEndMs: number, capS: number): Promise<WebhookTail> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const waitingNow = async () => Number((await db.query<{ n: string }>(
      // Rows not settled yet; read through to_jsonb so a baseline whose outbox has no settled_at (it
      // deleted rows once sent) is read by the same query.
      `SELECT count(*) AS n FROM laurel_webhook_outbox o WHERE prefix = $1 AND to_jsonb(o)->>'settled_at' IS NULL`, [prefix],
    )).rows[0].n);
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
