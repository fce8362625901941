/**
 * What the workers show on the health endpoint (workers/health.ts) and, under `laurel start`, in
 * the api's `GET /metrics`: readiness of Redis and Postgres, the log drain's backlog and lag, the
 * age of the last snapshot, webhook deliveries by outcome, the audit log's entries waiting in
 * Redis, Postgres's errors (docs/operations.md, "Metrics").
 */
import type pg from 'pg';
import { redisAnswers } from '../src/engine/services.js';
import type { Services } from '../src/engine/deps.js';
import type { WebhookSender } from '../src/engine/webhooks/send.js';
import { queueLengths } from '../src/engine/webhooks/queue.js';
import { auditBacklog } from '../src/engine/audit/drain.js';
import type { PostgresOutage } from '../src/postgres/outage.js';
import { SnapshotStore } from '../src/postgres/snapshots.js';
import type { WorkersHealth } from './health.js';
import type { QueueReach } from './queue-reach.js';
import { secondsBehind, type LogDrainer } from '../src/engine/log-drain/drain.js';

/** How long a scrape waits for Redis or Postgres to answer a check or a query. */
const ASK_MS = 1000;

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); }),
  ]);
}

export interface Observed {
  drainer: LogDrainer;
  webhooks: WebhookSender;
  postgresOutage: PostgresOutage;
  /** The node holding the queues (workers/queue-reach.ts). */
  reach: QueueReach;
}

export function observeWorkers(health: WorkersHealth, svc: Services, pool: pg.Pool, { drainer, webhooks, postgresOutage, reach }: Observed): void {
  const { metrics } = health;
  const prefix = svc.settings.prefix;
  // A PING reaches whichever node the client picks: on a Cluster, not necessarily the one holding
  // the queues, so that one is asked too.
  health.registerReadiness('redis', async () => {
    const [answers, queues] = await Promise.all([within(redisAnswers(svc), ASK_MS, 'Redis'), reach.probe()]);
    if (!queues.ok) return queues;
    return { ok: answers };
  });
  health.registerReadiness('postgres', async () => {
    await within(pool.query('SELECT 1'), ASK_MS, 'Postgres');
    return { ok: true };
  });

  const stats = drainer.stats;
  metrics.counter('laurel_log_drain_entries_total', 'Event log entries the log drain archived in Postgres.', null, () => ({ '': stats.archived }));
  metrics.counter('laurel_log_drain_passes_total', 'Log drain passes, by outcome (failed: Redis or Postgres failed it; the entries wait in Redis).',
    'outcome', () => stats.passes);
  metrics.counter('laurel_log_drain_seconds_total', 'Seconds the log drain spent in each part of its passes (wall time: a part waiting for Redis or Postgres counts the wait): read, parse, <consumer>:<step> (drain, take, plan, write, archive, end), archive (the transaction, the consumers\' archive steps in it), trim.',
    'part', () => Object.fromEntries(drainer.seconds));
  metrics.gauge('laurel_log_drain_backlog_entries', 'Event log entries the latest drain pass found waiting to be archived.', () => stats.waiting, 'max');
  metrics.gauge('laurel_log_drain_seconds_behind', 'How far the archive is behind the event log, s: the age of what may not be archived yet (the entries made since the latest drain that read every partition began, or the oldest entry found and not archived); it grows while no drain succeeds.',
    () => secondsBehind(stats), 'max');
  metrics.gauge('laurel_log_drain_last_success_timestamp_seconds', 'When the latest log drain pass that succeeded ended (Unix time, s).',
    () => (stats.lastDrainMs === 0 ? null : stats.lastDrainMs / 1000), 'max');
  const snapshots = new SnapshotStore(pool, prefix);
  metrics.gauge('laurel_snapshot_age_seconds', 'Seconds since the latest snapshot of Redis into Postgres that did not fail ended (absent before the first).',
    () => within(snapshots.age(), ASK_MS, 'Postgres'), 'min');
  metrics.counter('laurel_webhook_deliveries_total', 'Webhook delivery attempts settled, by outcome (retried: tried again after the backoff; failed: given up or the endpoint gone).',
    'outcome', () => ({ delivered: webhooks.totals.delivered, retried: webhooks.totals.retried, failed: webhooks.totals.failed }));
  metrics.gauge('laurel_webhook_queue_deliveries', 'Webhook deliveries of the event log waiting in the endpoints\' queues in Redis for their first attempt (claimed or not).', async () => {
    const lengths = await within(queueLengths(svc, [...svc.store.current.webhooks.keys()]), ASK_MS, 'Redis');
    let n = 0;
    for (const length of lengths.values()) n += length;
    return n;
  }, 'max');
  metrics.gauge('laurel_audit_queue_entries', 'Audit log entries waiting in Redis for the workers to copy them into Postgres.',
    () => within(auditBacklog(svc), ASK_MS, 'Redis'), 'max');
  metrics.counter('laurel_store_errors_total', '', 'store', () => ({ postgres: postgresOutage.failures }));
}
