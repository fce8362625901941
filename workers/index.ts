/**
 * The workers process: BullMQ queues for everything off the request path. Each file of workers/
 * declares one queue, its processor and its schedules (workers/queue.ts); this entry point makes
 * those workers/queues.ts lists, beside the batches' loop and the live publisher, and shuts them
 * down in order.
 */
import type { EventEmitter } from 'node:events';
import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type pg from 'pg';
import { connect, withOwnRedis } from '../src/engine/services.js';
import type { Services } from '../src/engine/deps.js';
import { guardInstallation } from '../src/engine/installation-check.js';
import { failInterruptedSnapshots } from '../src/engine/durability/snapshot.js';
import { closeClient, createClient, MAX_RETRY_DELAY_MS, settleWithin } from '../src/redis/client.js';
import { isConnectionError } from '../src/redis/outage.js';
import { PostgresOutage } from '../src/postgres/outage.js';
import type { Settings } from '../src/lib/settings.js';
import { connectPostgres, isPostgresUnavailable } from '../src/postgres/pool.js';
import { LogDrainer } from './log-drain.js';
import { WebhookSender } from '../src/engine/webhooks/send.js';
import { WorkersHealth } from './health.js';
import { observeWorkers } from './observe.js';
import { BatchProcessor, type BatchPassResult } from '../src/engine/batches/process.js';
import { exposeLiveness, QueueLiveness, type WatchedQueue } from './liveness.js';
import { QueueReach } from './queue-reach.js';
import { LivePublisher } from '../src/engine/live/publisher.js';
import { noteFollowed, noteLogged } from '../src/engine/webhooks/clock-notes.js';
import type { QueueRun, QueueSpec, Runtime, StartedQueue } from './queue.js';
import { QUEUES } from './queues.js';
import { makeSchedules } from './schedules.js';

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
   * Stops (workers/index.ts WORKERS_STOP): no job is taken from then on, the jobs running finish
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
/** What a stop keeps, of the time to its deadline, for giving back, settling and closing. */
const CLOSE_RESERVE_MS = 2000;
/** What the stop waits for the close of a worker with no job running (workers/index.ts stop). */
const IDLE_CLOSE_MS = 1000;

/*
 * unready: a BullMQ worker closed while one of its connections is still being made throws, once
 * that connection's making fails, an error nothing can catch (its close has taken away the
 * listeners the failure is reported to: an unhandled rejection, which ends the process). So a
 * worker is closed only once its connections are made: the start waits for them, a worker made
 * again is closed once they are, and a stop leaves one whose connections are not made by then to
 * the exit.
 */

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
  const started: (WatchedQueue & { entry: { worker: Worker; running: number; lastActivity: number } })[] = [];
  const runningQueues = () => started.filter((x) => x.entry.running > 0).map((x) => x.name);
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

  /** One queue and its worker (one job at a time), with failures logged, and its schedules. */
  async function queue(spec: QueueSpec, run: QueueRun<object>) {
    const { name, failure } = spec;
    const q = new Queue(name, { connection, prefix });
    q.on('error', onError(`queue ${name}`));
    const entry = { worker: null as unknown as Worker, running: 0, lastActivity: 0 };
    const tracked = async (job: Job) => {
      entry.running++;
      entry.lastActivity = Date.now();
      try {
        const result = await run.process(job);
        liveness?.completed(name);
        return result;
      } finally {
        entry.running--;
        entry.lastActivity = Date.now();
      }
    };
    const makeWorker = () => {
      // A fetch that failed on the connection is tried again after runRetryDelay: BullMQ's 15 s kept a
      // worker (the log drain's among them) idle that long after Redis was back; now as often as the
      // connections try to reconnect.
      const worker = new Worker(name, tracked, { connection, prefix, concurrency: 1, runRetryDelay: MAX_RETRY_DELAY_MS });
      worker.on('error', onError(`worker ${name}`));
      // A job that failed on Redis's connection runs again (its schedule, or its attempts): counted
      // by the outage account, not an error line with its stack per run (one a second for the log
      // drain while a Cluster node was down).
      worker.on('failed', (job, err) => {
        if (isConnectionError(err)) outage.noise(err, failure);
        else if (isPostgresUnavailable(err)) postgresOutage.failed(err, failure);
        else wlog.error({ err, queue: name, job: job?.id }, failure);
      });
      return worker;
    };
    entry.worker = makeWorker();
    // Started with its connections made: a stop may close it at once (workers/index.ts unready).
    await entry.worker.waitUntilReady();
    await schedule(() => makeSchedules(q, spec.schedules?.(settings) ?? []));
    started.push({
      name, queue: q, entry,
      worker: () => entry.worker,
      running: () => entry.running,
      lastActivity: () => entry.lastActivity,
      recreate() {
        // The one that stood still takes no job from now on (a closing worker fetches none); its
        // connections are dropped without waiting for them, once they are made (unready).
        const stuck = entry.worker;
        entry.worker = makeWorker();
        void stuck.waitUntilReady().then(() => stuck.close(true)).catch(() => undefined);
      },
    });
    await run.started?.(q);
    // A scheduled queue always has its next run delayed: only an unscheduled one counts delayed jobs (retries).
    const scheduled = (spec.schedules?.(settings) ?? []).length > 0;
    return run.testing?.({ queue: q, idle: (timeoutMs) => idle(q, name, timeoutMs, scheduled) }) ?? {};
  }
  /** Resolves once a queue has no job waiting or running (for tests). */
  async function idle(q: Queue, what: string, timeoutMs: number, scheduled: boolean) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const counts = await q.getJobCounts('waiting', 'active', 'prioritized', ...(scheduled ? [] : ['delayed' as const]));
      if (Object.values(counts).every((n) => n === 0)) return;
      if (Date.now() > until) throw new Error(`${what} jobs still pending: ${JSON.stringify(counts)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  /** A queue this installation does not run, for its testing members: always idle. */
  function notRun(name: string): StartedQueue {
    return {
      get queue(): Queue { throw new Error(`the ${name} queue does not run in this installation`); },
      idle: async () => undefined,
    };
  }
  /** A queue this installation does not run: the schedules an earlier start left are taken out. */
  async function unschedule(spec: QueueSpec) {
    const unused = new Queue(spec.name, { connection, prefix });
    unused.on('error', onError(`queue ${spec.name}`));
    try {
      await makeSchedules(unused, []);
    } finally {
      await unused.close();
    }
  }

  const runs: QueueRun<object>[] = [];
  const parts: object[] = [];
  for (const spec of QUEUES as readonly QueueSpec[]) {
    // Each queue's lines say which queue wrote them.
    const run = spec.start({ ...rt, log: wlog.child({ queue: spec.name }) });
    if (spec.runs !== undefined && !spec.runs(settings)) {
      // Not run here: its passes may still be run by hand (they find nothing to do).
      await unschedule(spec);
      parts.push(run.testing?.(notRun(spec.name)) ?? {});
      continue;
    }
    runs.push(run);
    parts.push(await queue(spec, run));
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
  let closing: Promise<void> | null = null;
  async function stop(deadline: number): Promise<void> {
    const finishBy = deadline - CLOSE_RESERVE_MS;
    const left = () => Math.max(0, finishBy - Date.now());
    const down = () => outage.down || connection.status !== 'ready';
    const force = down();
    await health.close();
    const liveClosed = live.close();
    for (const run of runs) run.stop?.();
    webhooks.stop();
    const busy = runningQueues();
    if (busy.length > 0) wlog.info({ running: busy, force }, 'workers stopping: no job taken from now, the running ones finish');
    liveness?.stop();
    // A worker with no job running has nothing to finish, and its close is given IDLE_CLOSE_MS: when
    // a Cluster node went away and came back, BullMQ's close of an idle worker may wait for its
    // blocking connection to end, which a Cluster client left without nodes never reports.
    const idleLeft: string[] = [];
    const closes = started.map(async ({ name, entry }) => {
      // A worker whose connections are still being made is left to the exit (unready).
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
      wlog.warn({ running: runningQueues() }, 'workers stopped with jobs still running: each goes back to its queue once its lock expires; the connections are left to the exit');
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
