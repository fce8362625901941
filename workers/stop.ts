/**
 * The workers process's stop (WorkersHandle.close, workers/index.ts), given what the start made.
 */
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Services } from '../src/engine/deps.js';
import type { BatchProcessor } from '../src/engine/batches/process.js';
import type { LivePublisher } from '../src/engine/live/publisher.js';
import type { WebhookSender } from '../src/engine/webhooks/send.js';
import { closeClient, settleWithin, type RedisClient } from '../src/redis/client.js';
import type { RedisOutage } from '../src/redis/outage.js';
import type { WorkersHealth } from './health.js';
import type { QueueLiveness } from './liveness.js';
import type { QueueRun } from './queue.js';
import type { MadeQueue } from './queue-factory.js';

/** What a stop keeps, of the time to its deadline, for giving back, settling and closing. */
const CLOSE_RESERVE_MS = 2000;
/** What the stop waits for the close of a worker with no job running (workers/stop.ts stopWorkers). */
const IDLE_CLOSE_MS = 1000;

/** What the workers process's start made, that its stop closes. */
export interface Stopping {
  /** The workers' log. */
  log: Logger;
  /** The health endpoint, closed first. */
  health: WorkersHealth;
  live: LivePublisher;
  /** The live publisher's reading connection. */
  liveReader: RedisClient;
  /** The queues' runs this process made (the queues it runs). */
  runs: QueueRun<object>[];
  webhooks: WebhookSender;
  /** Each queue made, with its worker (workers/queue-factory.ts). */
  started: MadeQueue[];
  liveness: QueueLiveness | null;
  batches: BatchProcessor;
  /** The queues' connection. */
  connection: RedisClient;
  outage: RedisOutage;
  /** The workers' own Redis connection beside an api in its process; null: the services are the workers' own. */
  own: { close(): Promise<void> } | null;
  svc: Services;
  pool: pg.Pool;
}

/** The queues with a job of theirs running here. */
function runningQueues(started: MadeQueue[]): string[] {
  return started.filter((x) => x.entry.running > 0).map((x) => x.name);
}

/**
 * The stop (WorkersHandle.close). While Redis answers, every worker stops taking jobs at once and
 * its running job finishes, until the deadline less CLOSE_RESERVE_MS (a worker with none closes
 * within IDLE_CLOSE_MS, or is left to the exit); the webhooks' sends in
 * flight likewise (those unanswered then are given up and given back), and the notifications'
 * pass gives back what it claimed and did not start. While Redis does not answer, a job cannot be
 * acknowledged anyway: the workers stop without waiting for theirs. The connections close only
 * once every worker has closed: a worker whose job ends after its connection was quit retries the
 * job's acknowledgement without a pause, forever (BullMQ's retryIfFailed while closing). Postgres's
 * pool closes last: the jobs, the settlements and the givings back all need it.
 */
export async function stopWorkers(s: Stopping, deadline: number): Promise<void> {
  const { log: wlog, health, live, liveReader, runs, webhooks, started, liveness, batches, connection, outage, own, svc, pool } = s;
  const finishBy = deadline - CLOSE_RESERVE_MS;
  const left = () => Math.max(0, finishBy - Date.now());
  const down = () => outage.down || connection.status !== 'ready';
  const force = down();
  await health.close();
  const liveClosed = live.close();
  for (const run of runs) run.stop?.();
  webhooks.stop();
  const busy = runningQueues(started);
  if (busy.length > 0) wlog.info({ running: busy, force }, 'workers stopping: no job taken from now, the running ones finish');
  liveness?.stop();
  // A worker with no job running has nothing to finish, and its close is given IDLE_CLOSE_MS: when
  // a Cluster node went away and came back, BullMQ's close of an idle worker may wait for its
  // blocking connection to end, which a Cluster client left without nodes never reports.
  const idleLeft: string[] = [];
  const closes = started.map(async ({ name, entry }) => {
    // A worker whose connections are still being made is left to the exit (workers/queue-factory.ts unready).
    if (!(await settleWithin(entry.worker.waitUntilReady(), force ? 0 : Math.min(IDLE_CLOSE_MS, left())))) {
      idleLeft.push(name);
      return true;
    }
    const closing = entry.worker.close(force);
    if (entry.running > 0) return closing.then(() => true, () => true);
    if (!(await settleWithin(closing, Math.min(IDLE_CLOSE_MS, left())))) idleLeft.push(name);
    return true;
  });
  const [closed] = await Promise.all([
    settleWithin(Promise.all([...closes, batches.close().then(() => true, () => true)]), force ? Math.min(1000, left()) : left()),
    settleWithin(webhooks.close(finishBy), left() + CLOSE_RESERVE_MS / 2),
  ]);
  if (idleLeft.length > 0) wlog.info({ queues: idleLeft }, 'workers without a job whose connections were not made, or did not end, in time: those are left to the exit');
  if (!closed) {
    wlog.warn({ running: runningQueues(started) }, 'workers stopped with jobs still running: each goes back to its queue once its lock expires; the connections are left to the exit');
    return;
  }
  await Promise.all(started.map(async ({ queue: q }) => {
    if (down()) void q.disconnect().catch(() => undefined);
    else await settleWithin(q.close(), 1000);
  }));
  for (const run of runs) run.close?.();
  await settleWithin(liveClosed, 2000);
  liveReader.disconnect();
  await closeClient(connection);
  if (own !== null) await own.close();
  else await svc.close();
  await settleWithin(pool.end(), Math.max(500, deadline - Date.now()));
}
