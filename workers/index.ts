/**
 * The workers process: BullMQ queues for everything off the request path. Each queue processor
 * lives in its own file; this entry point wires them and shuts them down in order.
 */
import type { EventEmitter } from 'node:events';
import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type pg from 'pg';
import { connect, type Services } from '../src/engine/services.js';
import { guardInstallation } from '../src/engine/durability/installation-check.js';
import { failInterruptedSnapshots, takeSnapshot, type SnapshotResult } from '../src/engine/durability/snapshot.js';
import { SNAPSHOT_QUEUE } from './snapshot.js';
import { closeClient, createClient, MAX_RETRY_DELAY_MS, settleWithin } from '../src/redis/client.js';
import { isConnectionError } from '../src/redis/outage.js';
import { PostgresOutage } from '../src/postgres/outage.js';
import type { Settings } from '../src/lib/settings.js';
import { connectPostgres, isPostgresUnavailable } from '../src/postgres/pool.js';
import { CONFIG_COPY_QUEUE, copyConfig } from './config-copy.js';
import { LOG_DRAIN_QUEUE, LogDrainer, type DrainResult } from './log-drain.js';
import { backfill } from './achievements.js';
import type { BackfillResult } from '../src/engine/achievements/backfill.js';
import { ACHIEVEMENTS_QUEUE, ANNIVERSARIES_QUEUE, LEADERBOARDS_QUEUE, POINTS_TIME_QUEUE, type BackfillJob } from '../src/engine/jobs.js';
import { anniversariesDue, type AnniversaryPassResult } from './anniversaries.js';
import { allAnniversaryDue } from '../src/engine/achievements/anniversary-due.js';
import { accrueDue, type AccrueResult } from './points-time.js';
import { allTimeDue } from '../src/engine/points/time-due.js';
import { finaliseRuns, type FinaliseResult } from '../src/engine/leaderboards/finalise.js';
import { FINALISE_MS } from './leaderboards.js';
import { NOTIFICATIONS_QUEUE, Notifier } from './notifications.js';
import type { SendResult } from '../src/engine/notifications/send.js';
import { WebhookSender, type SendResult as WebhookTotals } from '../src/engine/webhooks/send.js';
import { WEBHOOKS_QUEUE } from './webhooks.js';
import { WorkersHealth } from './health.js';
import { observeWorkers } from './observe.js';
import { BatchProcessor, type BatchPassResult } from '../src/engine/batches/process.js';
import { exposeLiveness, QueueLiveness, type WatchedQueue } from './liveness.js';
import { QueueReach } from './queue-reach.js';
import { LivePublisher } from '../src/engine/live/publisher.js';
import { runErasures, type ErasurePassResult } from '../src/engine/users/erasure-pass.js';
import { noteFollowed, noteLogged } from '../src/engine/webhooks/clock-notes.js';
import { drainAudit, pruneAudit } from '../src/engine/audit/drain.js';
import { AUDIT_PRUNE_MS, AUDIT_QUEUE } from './audit.js';
import { pruneLog } from '../src/engine/durability/log-retention.js';
import { LOG_RETENTION_MS, LOG_RETENTION_QUEUE } from './log-retention.js';

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
  /** Waits until the configuration copy has caught up with the current version (for tests). */
  configCopied(version: number, timeoutMs?: number): Promise<void>;
  /** Drains every partition's event log now, beside the scheduled drains (for tests and tools). */
  drainNow(): Promise<DrainResult>;
  /** Finishes the erasures whose entry the archive holds, beside the drain's passes (for tests and tools). */
  erasuresNow(): Promise<ErasurePassResult>;
  /** Copies the audit log's queued entries into Postgres now, beside the scheduled passes; answers how many (for tests and tools). */
  auditNow(): Promise<number>;
  /** Deletes the audit log's entries past their retention now, beside the hourly passes; answers how many (for tests and tools). */
  pruneAuditNow(): Promise<number>;
  /** Deletes the archived event log's entries past LAUREL_LOG_RETENTION_DAYS now, beside the hourly passes; answers how many rows (for tests and tools). */
  pruneLogNow(): Promise<number>;
  /** Accrues every due time award now, beside the scheduled passes (for tests and tools). */
  accrueNow(): Promise<AccrueResult>;
  /** Finalises the leaderboard runs that are due now, beside the scheduled passes (for tests). */
  finaliseNow(): Promise<FinaliseResult>;
  /** Sends the notifications due now, beside the scheduled passes (for tests and tools). */
  notifyNow(): Promise<SendResult>;
  /** Sends the webhook deliveries due now and waits for every send in flight; answers the totals so far (for tests). */
  webhooksNow(): Promise<WebhookTotals>;
  /** Takes a snapshot now (full: of every user), beside the scheduled ones. */
  snapshotNow(full?: boolean): Promise<SnapshotResult | null>;
  /** Resolves once no points-time job is waiting or running (for tests). */
  timeIdle(timeoutMs?: number): Promise<void>;
  /**
   * Stops this process's points-time pass each second, letting the one running finish (for tests
   * that accrue time awards with accrueNow alone, in their own order).
   */
  pauseTimePass(): Promise<void>;
  /** Looks at every user whose anniversary may have come now, beside the scheduled passes (for tests and tools). */
  anniversariesNow(): Promise<AnniversaryPassResult>;
  /** Resolves once no anniversaries job is waiting or running (for tests). */
  anniversariesIdle(timeoutMs?: number): Promise<void>;
  /** Stops this process's anniversaries pass each second, letting the one running finish (for tests of the event path). */
  pauseAnniversaryPass(): Promise<void>;
  /** Resolves once no achievement job is waiting or running (for tests). */
  achievementsIdle(timeoutMs?: number): Promise<void>;
  /** Applies every batch item queued now, beside the loop's passes (for tests and tools). */
  batchesNow(): Promise<BatchPassResult>;
  /** This process's consumer of the batch queues (its id, for tests). */
  batches: BatchProcessor;
  /** This process's live publisher (it publishes while it holds the lease: src/engine/live/publisher.ts). */
  live: LivePublisher;
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

export async function startWorkers(settings: Settings, log: Logger, services?: Services): Promise<WorkersHandle> {
  const svc = services ?? (await connect(settings, log));
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
  /** One queue and its worker (one job at a time), with failures logged; `every` schedules a job. */
  async function queue(name: string, process: (job: Job) => Promise<unknown>, failure: string, every?: { ms: number; job: string }) {
    const q = new Queue(name, { connection, prefix });
    q.on('error', onError(`queue ${name}`));
    const entry = { worker: null as unknown as Worker, running: 0, lastActivity: 0 };
    const tracked = async (job: Job) => {
      entry.running++;
      entry.lastActivity = Date.now();
      try {
        const result = await process(job);
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
        else wlog.error({ err, job: job?.id }, failure);
      });
      return worker;
    };
    entry.worker = makeWorker();
    if (every) await schedule(() => q.upsertJobScheduler(`${name}-every-${every.ms}ms`, { every: every.ms }, { name: every.job, opts: { removeOnComplete: 10, removeOnFail: 100 } }));
    started.push({
      name, queue: q, entry,
      worker: () => entry.worker,
      running: () => entry.running,
      lastActivity: () => entry.lastActivity,
      recreate() {
        // The one that stood still takes no job from now on (a closing worker fetches none); its
        // connections are dropped without waiting for them.
        const stuck = entry.worker;
        entry.worker = makeWorker();
        void stuck.close(true).catch(() => undefined);
      },
    });
    return q;
  }
  /**
   * Resolves once a queue has no job waiting or running (for tests). A scheduled queue always has
   * its next run delayed: only an unscheduled one counts delayed jobs (retries).
   */
  async function idle(q: Queue, what: string, timeoutMs: number, scheduled: boolean) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const counts = await q.getJobCounts('waiting', 'active', 'prioritized', ...(scheduled ? [] : ['delayed' as const]));
      if (Object.values(counts).every((n) => n === 0)) return;
      if (Date.now() > until) throw new Error(`${what} jobs still pending: ${JSON.stringify(counts)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  let copiedVersion = -1;
  const configQueue = await queue(CONFIG_COPY_QUEUE, async () => {
    const r = await copyConfig(svc, pool);
    copiedVersion = Math.max(copiedVersion, r.version);
    return r;
  }, 'config copy failed');
  const jobOptions = { removeOnComplete: 100, removeOnFail: 500, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };
  const enqueueCopy = (version: number) =>
    configQueue.add('copy', { version }, { ...jobOptions, jobId: `v${version}` })
      .catch((err: unknown) => wlog.warn({ err }, 'could not enqueue config copy'));
  svc.store.onChange((s) => { void enqueueCopy(s.version); });
  await enqueueCopy(svc.store.current.version);
  await schedule(() => configQueue.upsertJobScheduler('config-copy-periodic', { every: 5 * 60_000 }, { name: 'copy', opts: jobOptions }));

  // The drain tells this process's webhook sender when it queued deliveries, so they go at once.
  let webhooksQueued = (): void => undefined;
  const drainer = new LogDrainer(svc, pool, () => webhooksQueued());
  await queue(LOG_DRAIN_QUEUE, async () => {
    const r = await drainer.drain();
    if (r.drained > 0) wlog.debug(r, 'event logs drained');
    // The erasures whose entry the archive now holds (src/engine/users/erasure-pass.ts): apart, so
    // that one failing leaves the drain's own outcome alone.
    await runErasures(svc, pool).catch((err: unknown) => wlog.warn({ err }, 'erasure pass failed; the next pass goes on'));
    return r;
  }, 'event log drain failed; the entries stay in Redis', { ms: 1000, job: 'drain' });

  const auditQueue = await queue(AUDIT_QUEUE, async (job) => {
    const n = job.name === 'prune' ? await pruneAudit(svc, pool) : await drainAudit(svc, pool);
    if (n > 0) wlog.debug({ entries: n, job: job.name }, job.name === 'prune' ? 'audit entries past their retention deleted' : 'audit entries copied');
    return n;
  }, 'audit job failed; the entries wait in Redis', { ms: 1000, job: 'drain' });
  await schedule(() => auditQueue.upsertJobScheduler(`${AUDIT_QUEUE}-prune-every-${AUDIT_PRUNE_MS}ms`, { every: AUDIT_PRUNE_MS }, {
    name: 'prune', opts: { removeOnComplete: 10, removeOnFail: 100 },
  }));

  // Only while a retention is set: without one there is nothing to run (and no queue to watch); a
  // schedule left by an earlier start with one is taken out.
  if (settings.logRetentionDays !== null) {
    await queue(LOG_RETENTION_QUEUE, async () => {
      const n = await pruneLog(svc, pool);
      if (n > 0) wlog.info({ rows: n, days: settings.logRetentionDays }, 'archived event log past its retention deleted');
      return n;
    }, 'log retention job failed; the next pass deletes what is left', { ms: LOG_RETENTION_MS, job: 'prune' });
  } else {
    const unused = new Queue(LOG_RETENTION_QUEUE, { connection, prefix });
    unused.on('error', onError(`queue ${LOG_RETENTION_QUEUE}`));
    try {
      await unused.removeJobScheduler(`${LOG_RETENTION_QUEUE}-every-${LOG_RETENTION_MS}ms`);
    } finally {
      await unused.close();
    }
  }

  const achievementsQueue = await queue(ACHIEVEMENTS_QUEUE, async (job): Promise<BackfillResult> => {
    const r = await backfill(svc, job.data as BackfillJob);
    wlog.info({ achievement: (job.data as BackfillJob).achievementId, ...r }, 'achievement backfilled');
    return r;
  }, 'achievement job failed');

  const timeQueue = await queue(POINTS_TIME_QUEUE, async (job) => {
    if (job.name === 'backfill') {
      const r = await allTimeDue(svc);
      wlog.info(r, 'users put in the time-trigger due sets');
      return r;
    }
    const r = await accrueDue(svc);
    if (r.awards > 0) wlog.debug(r, 'time awards accrued');
    return r;
  }, 'points-time job failed', { ms: 1000, job: 'accrue' });

  const anniversaryQueue = await queue(ANNIVERSARIES_QUEUE, async (job) => {
    if (job.name === 'backfill') {
      const r = await allAnniversaryDue(svc);
      wlog.info(r, 'users put in the anniversary due sets');
      return r;
    }
    const r = await anniversariesDue(svc);
    if (r.completed > 0) wlog.debug(r, 'anniversary achievements completed');
    return r;
  }, 'anniversaries job failed', { ms: 1000, job: 'pass' });

  await queue(SNAPSHOT_QUEUE, async () => {
    const r = await takeSnapshot(svc, pool);
    if (r === null) wlog.debug('a new installation: nothing to snapshot yet');
    else wlog.info(r, 'snapshot taken');
    return r;
  }, 'snapshot failed', { ms: settings.snapshotIntervalMs, job: 'snapshot' });

  // Live updates: the logs read as they are appended, each change published once (one worker at a
  // time holds the lease), the logs read on a connection of their own (a blocking read).
  const liveReader = createClient(settings, { maxRetriesPerRequest: null, connectionName: 'laurel-live-tail' });
  outage.watch(liveReader, 'laurel-live-tail');
  const live = new LivePublisher(svc, {
    reader: liveReader, warn: (err, what) => outage.warn(wlog, err, what), watch: (client) => outage.watch(client as EventEmitter, 'laurel-live-wanted'),
  }, { logged: (entries) => noteLogged(svc, entries), followed: (users) => noteFollowed(svc, users) });

  await queue(LEADERBOARDS_QUEUE, async () => {
    const r = await finaliseRuns(svc, live.interest);
    if (r.runs > 0) wlog.info(r, 'leaderboard runs finalised');
    return r;
  }, 'leaderboards job failed', { ms: FINALISE_MS, job: 'finalise' });

  const notifier = new Notifier(svc, pool);
  await queue(NOTIFICATIONS_QUEUE, async () => {
    const r = await notifier.send();
    if (r.claimed > 0) wlog.info(r, 'notifications sent');
    return r;
  }, 'notifications job failed', { ms: 1000, job: 'send' });

  const webhooks = new WebhookSender(svc, pool, live.interest);
  webhooksQueued = () => webhooks.kick();
  await queue(WEBHOOKS_QUEUE, async () => {
    const claimed = await webhooks.pass();
    if (claimed > 0) wlog.debug({ claimed }, 'webhook deliveries started');
    return claimed;
  }, 'webhooks job failed', { ms: 1000, job: 'send' });

  // Batch events: the partitions' batch queues, consumed by a loop of its own (not a BullMQ queue:
  // a user's items must be applied in order, one partition by one worker at a time, and a pass
  // starts within POLL_MS of a batch, src/engine/batches/process.ts).
  const batches = new BatchProcessor(svc);
  await batches.start();

  // Live updates (started below; the clock's passes above ask it which topics are wanted).
  await live.start();

  const health = new WorkersHealth(svc.metrics, wlog);
  // The node of the queues' slot, asked on the queues' own connection (workers/queue-reach.ts).
  const reach = new QueueReach(connection, `${prefix}:reach`);
  observeWorkers(health, svc, pool, { drainer, webhooks, postgresOutage, reach });
  health.metrics.counter('laurel_live_published_total', 'Live messages the workers published (src/engine/live/publisher.ts).', null, () => ({ '': live.stats.published }));
  const healthPort = settings.workersPort === null ? null : await health.listen(settings.host, settings.workersPort);

  /**
   * The stop (WorkersHandle.close). While Redis answers, every worker stops taking jobs at once and
   * its running job finishes, until the deadline less CLOSE_RESERVE_MS; the webhooks' sends in
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
    notifier.stop();
    webhooks.stop();
    const busy = runningQueues();
    if (busy.length > 0) wlog.info({ running: busy, force }, 'workers stopping: no job taken from now, the running ones finish');
    liveness?.stop();
    const closes = started.map(({ entry }) => entry.worker.close(force).then(() => true, () => true));
    const [closed] = await Promise.all([
      settleWithin(Promise.all([...closes, batches.close().then(() => true, () => true)]), force ? Math.min(1000, left()) : left()),
      settleWithin(webhooks.close(finishBy), left() + CLOSE_RESERVE_MS / 2),
    ]);
    if (!closed) {
      wlog.warn({ running: runningQueues() }, 'workers stopped with jobs still running: each goes back to its queue once its lock expires; the connections are left to the exit');
      return;
    }
    await Promise.all(started.map(async ({ queue: q }) => {
      if (down()) void q.disconnect().catch(() => undefined);
      else await settleWithin(q.close(), 1000);
    }));
    notifier.close();
    await settleWithin(liveClosed, 2000);
    liveReader.disconnect();
    await closeClient(connection);
    if (!services) await svc.close();
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
    async configCopied(version, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (copiedVersion < version) {
        if (Date.now() > until) throw new Error(`config copy did not reach version ${version} (at ${copiedVersion})`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    drainNow: () => drainer.drain(),
    erasuresNow: () => runErasures(svc, pool),
    auditNow: () => drainAudit(svc, pool),
    pruneAuditNow: () => pruneAudit(svc, pool),
    pruneLogNow: () => pruneLog(svc, pool),
    accrueNow: () => accrueDue(svc),
    finaliseNow: () => finaliseRuns(svc, live.interest),
    notifyNow: () => notifier.send(),
    async webhooksNow() {
      await webhooks.pass();
      await webhooks.idle();
      return webhooks.totals;
    },
    snapshotNow: (full = false) => takeSnapshot(svc, pool, full),
    timeIdle: (timeoutMs = 10_000) => idle(timeQueue, 'points-time', timeoutMs, true),
    async pauseTimePass() {
      await started.find((x) => x.queue === timeQueue)!.worker().pause();
    },
    achievementsIdle: (timeoutMs = 10_000) => idle(achievementsQueue, 'achievement', timeoutMs, false),
    anniversariesNow: () => anniversariesDue(svc),
    anniversariesIdle: (timeoutMs = 10_000) => idle(anniversaryQueue, 'anniversaries', timeoutMs, true),
    async pauseAnniversaryPass() {
      await started.find((x) => x.queue === anniversaryQueue)!.worker().pause();
    },
    batchesNow: () => batches.drain(),
    batches,
    live,
    close(deadline = Date.now() + STOP_MS) {
      return (closing ??= stop(deadline));
    },
  };
}
