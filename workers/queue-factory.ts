/**
 * One queue of those workers/queues.ts lists, made for the workers process (workers/index.ts): the
 * queue and its worker (one job at a time), with failures logged, and its schedules; a queue this
 * installation does not run has its schedules taken out, and stands in for its testing members.
 */
import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Settings } from '../src/lib/settings.js';
import { MAX_RETRY_DELAY_MS, type RedisClient } from '../src/redis/client.js';
import { isConnectionError, type RedisOutage } from '../src/redis/outage.js';
import type { PostgresOutage } from '../src/postgres/outage.js';
import { isPostgresUnavailable } from '../src/postgres/pool.js';
import type { QueueLiveness, WatchedQueue } from './liveness.js';
import type { QueueRun, QueueSpec, StartedQueue } from './queue.js';
import { makeSchedules } from './schedules.js';

/*
 * unready: a BullMQ worker closed while one of its connections is still being made throws, once
 * that connection's making fails, an error nothing can catch (its close has taken away the
 * listeners the failure is reported to: an unhandled rejection, which ends the process). So a
 * worker is closed only once its connections are made: the start waits for them, a worker made
 * again is closed once they are, and a stop leaves one whose connections are not made by then to
 * the exit.
 */

/**
 * A queue as made, its worker (made again when it stands still: workers/liveness.ts), the jobs of
 * it running here and when one last started or ended.
 */
export type MadeQueue = WatchedQueue & { entry: { worker: Worker; running: number; lastActivity: number } };

/** What the workers process (workers/index.ts) makes its queues with. */
export interface QueueMaking {
  settings: Settings;
  /** The queues' connection, and the prefix of their keys. */
  connection: RedisClient;
  prefix: string;
  /** The workers' log. */
  log: Logger;
  outage: RedisOutage;
  postgresOutage: PostgresOutage;
  /** A queue's or worker's error event (workers/index.ts). */
  onError: (what: string) => (err: Error) => void;
  /** Makes a queue's schedules, now and again once a restore has rebuilt Redis (workers/index.ts). */
  schedule: (make: () => Promise<unknown>) => Promise<void>;
  /** The queues made so far: each one made is added. */
  started: MadeQueue[];
  /** The queues' liveness, once made (after every queue): told of each job that completed. */
  liveness: () => QueueLiveness | null;
}

/** One queue and its worker (one job at a time), with failures logged, and its schedules. */
export async function makeQueue(m: QueueMaking, spec: QueueSpec, run: QueueRun<object>): Promise<object> {
  const { settings, connection, prefix, log: wlog, outage, postgresOutage, onError, schedule, started } = m;
  const { name, failure } = spec;
  const q = new Queue(name, { connection, prefix });
  q.on('error', onError(`queue ${name}`));
  const entry = { worker: null as unknown as Worker, running: 0, lastActivity: 0 };
  const tracked = async (job: Job) => {
    entry.running++;
    entry.lastActivity = Date.now();
    try {
      const result = await run.process(job);
      m.liveness()?.completed(name);
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
  // Started with its connections made: a stop may close it at once (workers/queue-factory.ts unready).
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
export async function idle(q: Queue, what: string, timeoutMs: number, scheduled: boolean): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const counts = await q.getJobCounts('waiting', 'active', 'prioritized', ...(scheduled ? [] : ['delayed' as const]));
    if (Object.values(counts).every((n) => n === 0)) return;
    if (Date.now() > until) throw new Error(`${what} jobs still pending: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A queue this installation does not run, for its testing members: always idle. */
export function notRun(name: string): StartedQueue {
  return {
    get queue(): Queue { throw new Error(`the ${name} queue does not run in this installation`); },
    idle: async () => undefined,
  };
}

/** A queue this installation does not run: the schedules an earlier start left are taken out. */
export async function unschedule(m: Pick<QueueMaking, 'connection' | 'prefix' | 'onError'>, spec: QueueSpec): Promise<void> {
  const { connection, prefix, onError } = m;
  const unused = new Queue(spec.name, { connection, prefix });
  unused.on('error', onError(`queue ${spec.name}`));
  try {
    await makeSchedules(unused, []);
  } finally {
    await unused.close();
  }
}
