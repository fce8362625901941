/**
 * What a file of workers/ declares: one BullMQ queue, its processor and its schedules. The entry
 * point (workers/index.ts) makes each queue and its worker from the declarations listed in
 * workers/queues.ts, in that order, and knows none of them by name.
 */
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Services } from '../src/engine/deps.js';
import type { Settings } from '../src/lib/settings.js';
import type { LivePublisher } from '../src/engine/live/publisher.js';
import type { WebhookSender } from '../src/engine/webhooks/send.js';
import type { LogDrainer } from './log-drain.js';

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

/** A repeating job of a queue (its scheduler's id stays the same from one start to the next). */
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
 * A scheduled pass that tests may pause by hand: while paused the scheduled runs do nothing, and
 * pausing waits for the run under way. Not BullMQ's Worker.pause, which can wait forever for a
 * job it fetched as it paused.
 */
export class PausablePass<R> {
  private paused = false;
  private passing: Promise<unknown> = Promise.resolve();
  private readonly pass: () => Promise<R>;
  private readonly nothing: R;

  /** `nothing`: what a run answers while paused. */
  constructor(pass: () => Promise<R>, nothing: R) {
    this.pass = pass;
    this.nothing = nothing;
  }

  run(): Promise<R> {
    if (this.paused) return Promise.resolve(this.nothing);
    const run = this.pass();
    this.passing = run.catch(() => undefined);
    return run;
  }

  async pause(): Promise<void> {
    this.paused = true;
    await this.passing;
  }
}
