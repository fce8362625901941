/**
 * Whether each queue's worker takes its jobs, and a worker made again when it does not. A BullMQ
 * worker can stop taking jobs for good while it says it runs: after a Cluster primary restarted
 * under load, some workers' blocking connections never came back (ioredis status `wait`), or came
 * back and the worker fetched nothing more, while their jobs' times passed. A check every
 * CHECK_MS, per queue, once Redis has answered for OVERDUE_MS (a worker gets that long to take up
 * its jobs by itself after an outage), while the worker runs no job of this process:
 *
 * - `overdue`: a job of the queue (a schedule's next run, a waiting job) due more than OVERDUE_MS
 *   ago that no worker took, and this process's worker idle all along;
 * - `connection`: the worker's blocking connection not connected (nor connecting) for more than
 *   OVERDUE_MS while the process's connection is.
 *
 * Either way the worker is closed without waiting and made again; the outage is logged once
 * (`worker queue stalled`), and the recovery once its queue completes a job again (`worker queue
 * recovered`, with how long it stood still). `status()` says per queue what the last check found,
 * `ready()` whether every queue is live; exposeLiveness puts both on the workers' health endpoint.
 *
 * Each check first asks whether the node that holds the queues answers (workers/queue-reach.ts:
 * one command on the queues' slot, bounded): while it does not, or while a queue's own read does
 * not answer within READ_MS, the queue is not live (`redis`), and nothing else is asked of it. On a
 * Cluster whose other nodes answer, the process's connection stays `ready` and a read of a queue
 * waits for its node without end: neither says anything by itself.
 */
import type { Job, Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import type { Metrics } from '../src/lib/metrics.js';
import type { WorkersHealth } from './health.js';
import type { Reach } from './queue-reach.js';

/** How often each queue is checked (ms). */
export const CHECK_MS = 2000;
/** How long past its time a job may wait, or a blocking connection be away, before the worker is made again (ms). */
export const OVERDUE_MS = 5000;
/** Jobs of each state read per check (the earliest due first). */
const READ = 50;
/** How long a queue's read may take before the queue counts as not reaching Redis (ms). */
export const READ_MS = 1000;

/** One queue as the workers run it. */
export interface WatchedQueue {
  name: string;
  queue: Queue;
  /** The worker taking its jobs now. */
  worker(): Worker;
  /** Jobs of the queue running in this process. */
  running(): number;
  /** When a job of the queue last started or ended in this process (ms since the epoch). */
  lastActivity(): number;
  /** Closes the worker without waiting for it and makes another. */
  recreate(): void;
}

export type StallReason = 'redis' | 'overdue' | 'connection';

/** A queue's liveness as the last check found it. */
export interface QueueStatus {
  queue: string;
  /** Its worker takes its jobs (false while Redis is away, or while a stall is being recovered). */
  live: boolean;
  /** Why not, or null. */
  reason: StallReason | null;
  /** Jobs due more than OVERDUE_MS ago and not taken. */
  overdueJobs: number;
  /** How long ago the earliest of them was due (ms; 0 with none). */
  overdueMs: number;
  /** The worker's blocking connection's ioredis status. */
  blocking: string;
  /** Workers made again since the process started. */
  restarts: number;
  /** When a job of the queue last completed in this process (ms since the epoch), or null. */
  lastCompletedAt: number | null;
}

interface State {
  status: QueueStatus;
  /** When the blocking connection was first seen away (ms), or null. */
  blockingAwaySince: number | null;
  /** When the current stall began (ms), or null while live. */
  stalledSince: number | null;
  /** Since when the checks have read the queue without a failure (ms), or null after one failed. */
  answeringSince: number | null;
}

/** A BullMQ worker's blocking connection's status: private in BullMQ, read as it keeps it (5.x). */
function blockingStatus(worker: Worker): string {
  const connection = (worker as unknown as { blockingConnection?: { _client?: { status?: string } } }).blockingConnection;
  return connection?._client?.status ?? 'unknown';
}

/** The instant a job is due: created, plus its delay (a schedule's next run). */
const dueAt = (job: Job): number => job.timestamp + (job.delay ?? 0);

/** `p`, or a rejection once `ms` have passed (`p` is left to settle by itself). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); }),
  ]);
}

/** An ioredis status that is, or is on its way to, a connection. */
const CONNECTING = new Set(['ready', 'connect', 'connecting', 'reconnecting']);

export class QueueLiveness {
  private readonly states = new Map<string, State>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly queues: WatchedQueue[],
    /** True while the process's own connection to Redis is not ready: nothing is judged then. */
    private readonly redisDown: () => boolean,
    /** Whether the node holding the queues answers (workers/queue-reach.ts). */
    private readonly reach: () => Promise<Reach>,
    private readonly log: Logger,
  ) {
    for (const q of queues) {
      this.states.set(q.name, {
        status: { queue: q.name, live: true, reason: null, overdueJobs: 0, overdueMs: 0, blocking: 'unknown', restarts: 0, lastCompletedAt: null },
        blockingAwaySince: null,
        stalledSince: null,
        answeringSince: null,
      });
    }
  }

  /** Checks every CHECK_MS from now on. */
  start(): void {
    this.timer ??= setInterval(() => { void this.check(); }, CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** A job of `queue` completed in this process: a queue that stood still has recovered. */
  completed(queue: string): void {
    const state = this.states.get(queue);
    if (state === undefined) return;
    state.status.lastCompletedAt = Date.now();
    this.recovered(queue, state);
  }

  private recovered(queue: string, state: State): void {
    if (state.stalledSince !== null) {
      this.log.info({ queue, stalledMs: Date.now() - state.stalledSince, restarts: state.status.restarts }, 'worker queue recovered');
    }
    state.stalledSince = null;
    state.status.live = true;
    state.status.reason = null;
  }

  /** One check of every queue (a check already under way is waited for instead). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => { this.checking = null; });
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    const reach = this.redisDown() ? { ok: false } : await this.reach();
    if (!reach.ok) {
      for (const q of this.queues) this.away(this.states.get(q.name)!, q);
      return;
    }
    await Promise.all(this.queues.map((q) => this.checkOne(q).catch((err: unknown) => {
      // Its node away, or too slow to answer: judged again once it has answered a while.
      this.away(this.states.get(q.name)!, q);
      this.log.debug({ err, queue: q.name }, 'worker queue check failed');
    })));
  }

  /** The queue cannot reach Redis: not live, and judged again once Redis has answered for OVERDUE_MS. */
  private away(state: State, q: WatchedQueue): void {
    state.status.blocking = blockingStatus(q.worker());
    state.status.live = false;
    state.status.reason = 'redis';
    state.blockingAwaySince = null;
    state.answeringSince = null;
  }

  private async checkOne(q: WatchedQueue): Promise<void> {
    const state = this.states.get(q.name)!;
    const { status } = state;
    const worker = q.worker();
    const now = Date.now();
    status.blocking = blockingStatus(worker);
    const jobs = await within(q.queue.getJobs(['wait', 'prioritized', 'delayed'], 0, READ - 1, true), READ_MS, `queue ${q.name}'s jobs`);
    state.answeringSince ??= now;
    // Just back: a worker gets OVERDUE_MS to take its jobs again by itself before it is judged.
    if (now - state.answeringSince < OVERDUE_MS) return;
    const late = jobs.map((j) => now - dueAt(j)).filter((ms) => ms > OVERDUE_MS);
    status.overdueJobs = late.length;
    status.overdueMs = late.length === 0 ? 0 : Math.max(...late);
    if (CONNECTING.has(status.blocking)) state.blockingAwaySince = null;
    else state.blockingAwaySince ??= now;
    // Paused (a test's), or closing (the process stopping): not judged.
    if (worker.isPaused() || worker.closing !== undefined) return;
    // Busy, or busy a moment ago: a job that waits is waiting its turn.
    const idle = q.running() === 0 && now - q.lastActivity() > OVERDUE_MS;
    let reason: StallReason | null = null;
    if (idle && status.overdueJobs > 0) reason = 'overdue';
    else if (state.blockingAwaySince !== null && now - state.blockingAwaySince > OVERDUE_MS && q.running() === 0) reason = 'connection';
    if (reason === null) {
      // Nothing waits past its time and the blocking connection is up: live (again: a queue made
      // again that has no job to show it, or whose job another process took).
      if (status.overdueJobs === 0 && state.blockingAwaySince === null) this.recovered(q.name, state);
      return;
    }
    status.live = false;
    status.reason = reason;
    if (state.stalledSince === null) {
      state.stalledSince = now;
      this.log.warn(
        { queue: q.name, reason, overdueJobs: status.overdueJobs, overdueMs: status.overdueMs, blocking: status.blocking },
        'worker queue stalled: its worker is made again',
      );
    }
    status.restarts++;
    state.blockingAwaySince = null;
    q.recreate();
  }

  /** Every queue's liveness as the last check found it. */
  status(): QueueStatus[] {
    return [...this.states.values()].map((s) => ({ ...s.status }));
  }

  /** Whether every queue's worker takes its jobs. */
  ready(): boolean {
    return [...this.states.values()].every((s) => s.status.live);
  }
}

/** The liveness each registry's series read: the latest workers' of the process (tests start several). */
const exposed = new WeakMap<Metrics, { current: QueueLiveness }>();

/**
 * Puts `liveness` on the workers' health endpoint: the readiness check `queues` (every queue live;
 * its detail the queues that are not) and, per queue, `laurel_worker_queue_live`,
 * `laurel_worker_queue_overdue_jobs`, `laurel_worker_queue_overdue_seconds` and
 * `laurel_worker_queue_restarts_total` (docs/operations.md, "Worker queues that stand still").
 */
export function exposeLiveness(health: WorkersHealth, liveness: QueueLiveness): void {
  health.registerReadiness('queues', () => {
    const stalled = liveness.status().filter((q) => !q.live);
    return stalled.length === 0 ? { ok: true } : { ok: false, detail: stalled };
  });
  const { metrics } = health;
  const known = exposed.get(metrics);
  if (known !== undefined) {
    known.current = liveness;
    return;
  }
  const holder = { current: liveness };
  exposed.set(metrics, holder);
  const perQueue = (name: string, help: string, aggregator: 'min' | 'max', value: (s: QueueStatus) => number) => new Gauge({
    name, help, labelNames: ['queue'], aggregator, registers: [metrics.registry],
    collect() {
      this.reset();
      for (const s of holder.current.status()) this.set({ queue: s.queue }, value(s));
    },
  });
  perQueue('laurel_worker_queue_live', 'Whether the queue\'s worker takes its jobs: 1, or 0 (Redis away, a job overdue, its blocking connection not back); across processes the lowest.',
    'min', (s) => (s.live ? 1 : 0));
  perQueue('laurel_worker_queue_overdue_jobs', `Jobs of the queue due more than ${OVERDUE_MS / 1000} s ago that no worker took; across processes the most.`,
    'max', (s) => s.overdueJobs);
  perQueue('laurel_worker_queue_overdue_seconds', 'How long ago the queue\'s earliest overdue job was due, s; across processes the most.',
    'max', (s) => s.overdueMs / 1000);
  metrics.counter('laurel_worker_queue_restarts_total', 'Workers of the queue made again because they stood still.', 'queue',
    () => Object.fromEntries(holder.current.status().map((s) => [s.queue, s.restarts])));
}
