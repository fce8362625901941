/**
 * What a file of workers/ declares: one BullMQ queue, its processor and its schedules. The entry
 * point (workers/index.ts) makes each queue and its worker (workers/queue-factory.ts) from the
 * declarations listed in workers/queues.ts, in that order, and knows none of them by name.
 */
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Services } from '../src/engine/deps.js';
import type { Settings } from '../src/lib/settings.js';
import type { LivePublisher } from '../src/engine/live/publisher.js';
import type { WebhookSender } from '../src/engine/webhooks/send.js';
import type { LogDrainer } from '../src/engine/log-drain/drain.js';

/** What the workers process shares with each queue's processor. */
export interface Runtime {
  svc: Services;
  pool: pg.Pool;
  settings: Settings;
  log: Logger;
  /** The live publisher: the clock's passes ask it which topics are wanted. */
  live: LivePublisher;
  /** This process's webhook sender: the drain tells it when it queued deliveries. */
  webhooks: WebhookSender;
  /** This process's log drainer (its figures are on the health endpoint). */
  drainer: LogDrainer;
}

/** A repeating job of a queue (its scheduler's id stays the same from one start to the next while its interval does). */
export interface Schedule {
  id: string;
  every: number;
  job: string;
  opts?: JobsOptions;
}

/** A queue as the entry point made it, for what tests ask of it. */
export interface StartedQueue {
  queue: Queue;
  /** Resolves once the queue has no job waiting or running; rejects after `timeoutMs`. */
  idle(timeoutMs: number): Promise<void>;
}

/** A queue's processor and what else runs with it in one process. */
export interface QueueRun<T> {
  process(job: Job): Promise<unknown>;
  /** Once the queue and its worker are made: first jobs, listeners. */
  started?(queue: Queue): Promise<void>;
  /** What tests and tools may call beside the schedule (the handle's `testing`). */
  testing?(q: StartedQueue): T;
  /** The process stops: the pass running finishes what it is doing and gives back the rest. */
  stop?(): void;
  /** Once every worker has closed. */
  close?(): void;
}

export interface QueueSpec<T extends object = object> {
  name: string;
  /** The log line of a job that failed (not on Redis's or Postgres's connection). */
  failure: string;
  /** Its repeating jobs, made again after a restore rebuilt Redis. */
  schedules?(settings: Settings): Schedule[];
  /** Whether this installation runs it (default: always); one that does not has its schedules removed. */
  runs?(settings: Settings): boolean;
  start(rt: Runtime): QueueRun<T>;
}

/** A queue's one schedule of `every` ms, named as the workers have always named it. */
export function every(name: string, ms: number, job: string): Schedule {
  return { id: `${name}-every-${ms}ms`, every: ms, job, opts: { removeOnComplete: 10, removeOnFail: 100 } };
}

/**
 * A pass that its schedule and tests (a queue's `...Now()`) both run, never two at once in a
 * process: a run asked for while one is under way starts once that one is done. So a test's run
 * sees everything the scheduled one did: a scheduled pass that had taken the work (a delivery
 * claimed, log entries read) would otherwise leave the test's run nothing to do, and the test
 * reading before the work was done. BullMQ runs one job of a queue at a time in a process, so the
 * scheduled runs alone never wait.
 */
export class OnePass<R> {
  protected passing: Promise<unknown> = Promise.resolve();
  private readonly pass: () => Promise<R>;

  constructor(pass: () => Promise<R>) {
    this.pass = pass;
  }

  /** Runs the pass once the one under way (if any) is done. */
  run(): Promise<R> {
    const run = this.passing.then(() => this.pass());
    this.passing = run.catch(() => undefined);
    return run;
  }
}

/**
 * A OnePass whose scheduled runs tests may pause by hand: while paused they do nothing, and
 * pausing waits for the run under way. Not BullMQ's Worker.pause, which can wait forever for a
 * job it fetched as it paused.
 */
export class PausablePass<R> extends OnePass<R> {
  private paused = false;
  private readonly nothing: R;

  /** `nothing`: what a scheduled run answers while paused. */
  constructor(pass: () => Promise<R>, nothing: R) {
    super(pass);
    this.nothing = nothing;
  }

  /** The schedule's run: nothing while paused. */
  scheduled(): Promise<R> {
    return this.paused ? Promise.resolve(this.nothing) : this.run();
  }

  async pause(): Promise<void> {
    this.paused = true;
    await this.passing;
  }
}
