/**
 * A workers process (`laurel workers`, the built command line) stopped with SIGTERM while it sends
 * emails to a slow SMTP server and webhooks to a slow receiver: the sends in flight finish and are
 * settled, what it claimed and did not start is given back, it logs `laurel stopped` and exits with
 * 0 within its limit; its successor sends the rest, and every email and webhook arrives exactly
 * once. A second SIGTERM exits at once. In-process, a stop whose receiver never answers gives up
 * at its deadline and gives the sends back.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHUTDOWN_LIMIT_MS } from '../../src/app/shutdown.js';
import { createLogger } from '../../src/lib/log.js';
import { heldClaims } from '../../src/engine/webhooks/queue.js';
import { LEASE_MS } from '../../src/engine/webhooks/send.js';
import { startWorkers } from '../../workers/index.js';
import { adminCreate } from '../support/admin.js';
import { killCliProcesses, runCli, type CliRun } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { deletePostgresRows, startTestServer, type TestServer } from '../support/server.js';
import { startMailCatcher, type MailCatcher } from '../support/smtp.js';

/** Emails, each acknowledged by the SMTP server this long after it arrived: a pass takes longer than a stop used to wait. */
const EMAIL_DELAY_MS = 300;
/** How long the receiver takes to answer, while it answers. */
const ANSWER_MS = 1000;

/** Waits for a process's exit, at most `ms`; its exit code, or 'running'. */
async function exitWithin(run: CliRun, ms: number): Promise<number | null | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'running'>((resolve) => { timer = setTimeout(() => resolve('running'), ms); });
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a workers process stopped mid-send', () => {
  let s: TestServer;
  let mail: MailCatcher;
  let receiver: Server;
  let url: string;
  let db: pg.Client;
  /** The webhook-id of every POST received, in order. */
  const received: string[] = [];
  /** Answers held by a receiver that does not answer (hold: true). */
  const held: ServerResponse[] = [];
  let hold = false;
  let env: Record<string, string>;
  let metric: string;

  /** Users whose first lesson completes the achievement: one email and one webhook each. */
  const complete = async (names: string[]) => {
    for (const id of names) await s.event('lessons', { id, email: `${id}@example.test`, tz: 'UTC' } as never, 1);
  };
  /** What is claimed and not settled (in Postgres, and the claims of the webhook queue in Redis): nothing once a stop has finished. */
  const unsettled = async () => {
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM laurel_deliveries WHERE prefix = $1 AND status = 'sending') AS emails,
              (SELECT count(*)::int FROM laurel_webhook_deliveries WHERE prefix = $1 AND status = 'sending') AS webhooks`,
      [s.prefix],
    );
    const claims = await Promise.all([...s.api.services.store.current.webhooks.keys()].map((id) => heldClaims(s.api.services, id, LEASE_MS)));
    return { ...rows[0], claims: claims.reduce((a, b) => a + b, 0) } as { emails: number; webhooks: number; claims: number };
  };

  beforeAll(async () => {
    mail = await startMailCatcher({ delayMs: EMAIL_DELAY_MS });
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        if (hold) held.push(res);
        else setTimeout(() => res.writeHead(204).end(), ANSWER_MS);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    s = await startTestServer({ clock: 'manual', env: { LAUREL_SMTP_URL: mail.url, LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
    env = {
      LAUREL_PREFIX: s.prefix, LAUREL_CLOCK: 'manual', LAUREL_SMTP_URL: mail.url, LAUREL_WEBHOOKS_ALLOW_PRIVATE: '1',
      REDIS_CLUSTER_NODES: '', LOG_LEVEL: 'info',
    };
    db = new pg.Client({ connectionString: s.settings.databaseUrl });
    await db.connect();
    await s.setClock('2026-06-01T18:00:00Z');
    metric = (await s.metrics('lessons')).lessons;
    await adminCreate(s, '/admin/v1/achievements', [{ name: 'First', key: 'first', trigger: 'metric', metricId: metric, metricValue: 1 } as never]);
    const settings = await s.request('PUT', '/admin/v1/notifications/settings', {
      body: { email: { from: 'Acme <hello@acme.test>' }, publicUrl: 'https://acme.test/laurel' },
    });
    expect(settings.status, settings.text).toBe(200);
    await adminCreate(s, '/admin/v1/notifications/templates', [{
      key: 'done', type: 'achievement_completed', channel: 'email', status: 'active', subject: 'Well done', text: 'You did it.',
    } as never]);
    const hook = await s.request('POST', '/admin/v1/webhooks', { body: [{ name: 'Slow', url, events: ['achievement.completed'] }] });
    expect(hook.status, hook.text).toBe(201);
  });
  afterAll(async () => {
    killCliProcesses();
    await s?.close();
    for (const res of held.splice(0)) res.destroy();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await mail?.stop();
    await db?.end();
    if (s) await deletePostgresRows(s.settings, [s.prefix]);
  });

  it('finishes the sends in flight, gives back the rest and exits in time; its successor sends each once', async () => {
    const users = Array.from({ length: 24 }, (_, n) => `stop-${n}`);
    await complete(users);
    const first = runCli(['workers'], env);
    // Mid-send: emails going out one by one, a first round of webhooks unanswered.
    await eventually(() => {
      expect(mail.messages.length).toBeGreaterThanOrEqual(2);
      expect(received.length).toBeGreaterThanOrEqual(16);
    }, 30_000);
    first.child.kill('SIGTERM');
    expect(await exitWithin(first, SHUTDOWN_LIMIT_MS + 5000), first.output()).toBe(0);
    expect(first.output()).toMatch(/"laurel stopped"/);
    expect(first.output()).not.toMatch(/took too long|Cannot use a pool|not settled/);
    expect(await unsettled()).toEqual({ emails: 0, webhooks: 0, claims: 0 });
    expect(mail.messages.length).toBeLessThan(users.length);

    const second = runCli(['workers'], env);
    try {
      await eventually(() => {
        expect(mail.messages.length).toBe(users.length);
        expect(received.length).toBe(users.length);
      }, 30_000);
    } finally {
      second.child.kill('SIGTERM');
      expect(await exitWithin(second, SHUTDOWN_LIMIT_MS + 5000), second.output()).toBe(0);
    }
    expect(new Set(received).size).toBe(users.length);
    expect(new Set(mail.recipients.flat()).size).toBe(users.length);
    expect(await unsettled()).toEqual({ emails: 0, webhooks: 0, claims: 0 });
  });

  it('gives up on sends unanswered at its deadline and gives them back', async () => {
    hold = true;
    const before = new Set(received);
    const fresh = () => received.filter((id) => !before.has(id));
    await complete(['late-1', 'late-2', 'late-3']);
    const log = createLogger('silent');
    const w = await startWorkers(s.settings, log);
    // Its own pass (each second) sends them; nothing answers.
    await w.testing.drainNow();
    await eventually(() => expect(fresh()).toHaveLength(3));
    await w.close(Date.now() + 3000);
    expect(await unsettled()).toEqual({ emails: 0, webhooks: 0, claims: 0 });
    // Given back: the next process sends them at once (under the same webhook-ids), not after a lease.
    hold = false;
    for (const res of held.splice(0)) res.destroy();
    const next = await startWorkers(s.settings, log);
    try {
      await next.testing.webhooksNow();
      await eventually(() => expect(fresh()).toHaveLength(6));
    } finally {
      await next.close();
    }
    expect(new Set(fresh()).size).toBe(3);
  });

  it('exits at once on a second SIGTERM', async () => {
    hold = true;
    const before = received.length;
    await complete(['twice-1', 'twice-2']);
    const run = runCli(['workers'], env);
    // A send that will never be answered: the first signal's stop waits for it.
    await eventually(() => expect(received.length).toBeGreaterThan(before), 30_000);
    run.child.kill('SIGTERM');
    await eventually(() => expect(run.output()).toMatch(/"laurel shutting down"/));
    await new Promise((r) => setTimeout(r, 1200));
    expect(await exitWithin(run, 500)).toBe('running');
    run.child.kill('SIGTERM');
    expect(await exitWithin(run, 5000), run.output()).toBe(1);
    expect(run.output()).toMatch(/laurel stopped at once/);
  });

});
