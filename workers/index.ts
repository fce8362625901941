/**
 * The workers process: BullMQ queues for everything off the request path. Each file of workers/
 * declares one queue, its processor and its schedules (workers/queue.ts); this entry point makes
 * those workers/queues.ts lists (each by workers/queue-factory.ts), beside the batches' loop and
 * the live publisher, and shuts them down in order (workers/stop.ts).
 */
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type pg from 'pg';
import { connect, withOwnRedis } from '../src/engine/services.js';
import type { Services } from '../src/engine/deps.js';
import { guardInstallation } from '../src/engine/installation-check.js';
import { failInterruptedSnapshots } from '../src/engine/durability/snapshot.js';
import { createClient } from '../src/redis/client.js';
import { PostgresOutage } from '../src/postgres/outage.js';
import type { Settings } from '../src/lib/settings.js';
import { connectPostgres } from '../src/postgres/pool.js';
import { LogDrainer } from '../src/engine/log-drain/drain.js';
import { WebhookSender } from '../src/engine/webhooks/send.js';
import { WorkersHealth } from './health.js';
import { observeWorkers } from './observe.js';
import { BatchProcessor, type BatchPassResult } from '../src/engine/batches/process.js';
import { exposeLiveness, QueueLiveness } from './liveness.js';
import { QueueReach } from './queue-reach.js';
import { LivePublisher } from '../src/engine/live/publisher.js';
import { noteFollowed, noteLogged } from '../src/engine/webhooks/clock-notes.js';
import type { QueueRun, QueueSpec, Runtime } from './queue.js';
import { makeQueue, notRun, unschedule, type MadeQueue, type QueueMaking } from './queue-factory.js';
import { QUEUES } from './queues.js';
import { stopWorkers } from './stop.js';

/** Each queue's `testing` members, together (workers/queue.ts). */
type TestingOf<S> = S extends QueueSpec<infer T> ? T : never;
type Together<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
export type WorkersTesting = Together<TestingOf<(typeof QUEUES)[number]>> & {
  /** Applies every batch item queued now, beside the loop's passes. */
  batchesNow(): Promise<BatchPassResult>;
};

export interface WorkersHandle {
  services: Services;
  pool: pg.Pool;
  /**
   * The health endpoint's checks and metrics (workers/health.ts): register a readiness check with
   * `health.registerReadiness(name, () => ({ ok, detail }))`, metrics on `health.metrics`.
   */
  health: WorkersHealth;
  /** The port the health endpoint listens on (LAUREL_WORKERS_PORT); null: none. */
  healthPort: number | null;
  /** Each queue's liveness (workers/liveness.ts), on the health endpoint as the `queues` check and the `laurel_worker_queue_*` series. */
  liveness: QueueLiveness;
  /** This process's consumer of the batch queues (its id, for tests). */
  batches: BatchProcessor;
  /** This process's live publisher (it publishes while it holds the lease: src/engine/live/publisher.ts). */
  live: LivePublisher;
  /**
   * What tests and tools may run beside the schedules (a queue's pass now, waiting until a queue
   * is idle, pausing a queue's passes): what each queue declares, and the batches' pass.
   */
  testing: WorkersTesting;
  /**
   * Stops (workers/stop.ts stopWorkers): no job is taken from then on, the jobs running finish
   * until `deadline` (ms since the epoch; STOP_MS from now by default), what they hold that is not
   * done is given back, every outcome settled; then the connections close, Postgres's last. A job
   * still running at the deadline keeps them open (closing them under it would set BullMQ retrying
   * its acknowledgement in a loop): the process exits with them, and the job goes back to its queue
   * once its lock expires.
   */
  close(deadline?: number): Promise<void>;
}

/** How long a stop lets the jobs running finish when no deadline is given. */
export const STOP_MS = 12_000;

export async function startWorkers(settings: Settings, log: Logger, services?: Services): Promise<WorkersHandle> {
  // Beside an api in its process, the workers' reads and writes go on a connection of their own.
  const own = services === undefined ? null : await withOwnRedis(settings, services, 'laurel-workers-data');
  const svc = own?.services ?? (await connect(settings, log));
  if (!services) await guardInstallation(svc, log);
  const pool = await connectPostgres(settings);
  // The snapshots a process that died left unfinished: marked failed (src/engine/durability/snapshot.ts).
  await failInterruptedSnapshots(pool, settings.prefix).then((ids) => {
    if (ids !== null && ids.length > 0) log.warn({ snapshots: ids }, 'snapshots left unfinished by a process that stopped: marked failed');
  }, (err: unknown) => log.warn({ err }, 'could not look for snapshots left unfinished; the next snapshot does'));
  const connection = createClient(settings, { maxRetriesPerRequest: null, connectionName: 'laurel-workers' });
  const prefix = svc.keys.queuePrefix;
  const wlog = log.child({ component: 'workers' });
  const outage = svc.outage;
  outage.watch(connection, 'laurel-workers');
  /**
   * A queue's or worker's error event: while Redis is down its loops retry (BullMQ waits between
   * attempts), and the outage reports that once. Without a listener, BullMQ prints each one with
   * its stack to stderr.
   */
  const postgresOutage = new PostgresOutage(wlog);
  const onError = (what: string) => (err: Error) => outage.warn(wlog, err, `${what} error`);

  /**
   * Each queue, its worker (made again when it stands still: workers/liveness.ts), the jobs of it
   * running here and when one last started or ended.
   */
  const started: MadeQueue[] = [];
  let liveness: QueueLiveness | null = null;
  /**
   * The queues' schedules, made again once a restore has rebuilt Redis: a Redis that lost its data
   * lost them too (and `laurel restore --force` deletes them), and without them nothing drains,
   * snapshots or sends while the api serves again.
   */
  const schedules: (() => Promise<unknown>)[] = [];
  const schedule = async (make: () => Promise<unknown>) => {
    schedules.push(make);
    await make();
  };
  svc.store.onRestored(() => {
    wlog.warn('Redis rebuilt by a restore: the workers\' schedules made again');
    for (const make of schedules) make().catch((err: unknown) => wlog.error({ err }, 'could not make a worker schedule again after a restore'));
  });
  // Live updates: the logs read as they are appended, each change published once (one worker at a
  // time holds the lease), the logs read on a connection of their own (a blocking read).
  const liveReader = createClient(settings, { maxRetriesPerRequest: null, connectionName: 'laurel-live-tail' });
  outage.watch(liveReader, 'laurel-live-tail');
  const live = new LivePublisher(svc, {
    reader: liveReader, warn: (err, what) => outage.warn(wlog, err, what), watch: (client) => outage.watch(client as EventEmitter, 'laurel-live-wanted'),
  }, { logged: (entries) => noteLogged(svc, entries), followed: (users) => noteFollowed(svc, users) });
  const webhooks = new WebhookSender(svc, pool, live.interest);
  // The drain tells this process's webhook sender when it queued deliveries, so they go at once.
  const drainer = new LogDrainer(svc, pool, () => webhooks.kick());
  const rt: Runtime = { svc, pool, settings, log: wlog, live, webhooks, drainer };

  /** What each queue is made with (workers/queue-factory.ts). */
  const making: QueueMaking = {
    settings, connection, prefix, log: wlog, outage, postgresOutage, onError, schedule, started, liveness: () => liveness,
  };

  const runs: QueueRun<object>[] = [];
  const parts: object[] = [];
  for (const spec of QUEUES as readonly QueueSpec[]) {
    // Each queue's lines say which queue wrote them.
    const run = spec.start({ ...rt, log: wlog.child({ queue: spec.name }) });
    if (spec.runs !== undefined && !spec.runs(settings)) {
      // Not run here: its passes may still be run by hand (they find nothing to do).
      await unschedule(making, spec);
      parts.push(run.testing?.(notRun(spec.name)) ?? {});
      continue;
    }
    runs.push(run);
    parts.push(await makeQueue(making, spec, run));
  }

  // Batch events: the partitions' batch queues, consumed by a loop of its own (not a BullMQ queue:
  // a user's items must be applied in order, one partition by one worker at a time, and a pass
  // starts within POLL_MS of a batch, src/engine/batches/process.ts).
  const batches = new BatchProcessor(svc);
  await batches.start();
  const testing = Object.assign({}, ...parts, { batchesNow: () => batches.drain() }) as WorkersTesting;

  // Live updates (the clock's passes above ask it which topics are wanted).
  await live.start();

  const health = new WorkersHealth(svc.metrics, wlog);
  // The node of the queues' slot, asked on the queues' own connection (workers/queue-reach.ts).
  const reach = new QueueReach(connection, `${prefix}:reach`);
  observeWorkers(health, svc, pool, { drainer, webhooks, postgresOutage, reach });
  health.metrics.counter('laurel_live_published_total', 'Live messages the workers published (src/engine/live/publisher.ts).', null, () => ({ '': live.stats.published }));
  const healthPort = settings.workersPort === null ? null : await health.listen(settings.host, settings.workersPort);

  // The stop (WorkersHandle.close), once however often it is asked for: workers/stop.ts.
  let closing: Promise<void> | null = null;
  const stop = (deadline: number) => stopWorkers({
    log: wlog, health, live, liveReader, runs, webhooks, started, liveness, batches, connection, outage, own, svc, pool,
  }, deadline);

  liveness = new QueueLiveness(started, () => outage.down || connection.status !== 'ready', () => reach.probe(), wlog);
  liveness.start();
  exposeLiveness(health, liveness);

  wlog.info({ queues: started.map((x) => x.queue.name), healthPort }, 'laurel workers running');
  return {
    services: svc,
    pool,
    health,
    healthPort,
    liveness,
    batches,
    live,
    testing,
    close(deadline = Date.now() + STOP_MS) {
      return (closing ??= stop(deadline));
    },
  };
}
