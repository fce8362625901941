/**
 * What the load test's command (src/loadtest/run.ts) and its generator processes
 * (src/loadtest/generator.ts) tell each other over the fork's IPC channel.
 */
import type { Schedule } from './schedule.js';

/** An operation of the mix and its share (any positive weights; they need not sum to 100). */
export type OperationName = 'event' | 'batch' | 'user' | 'streak' | 'points' | 'leaderboard';

export interface GeneratorConfig {
  /** This process's number, 0 to workers - 1: it sends the requests i with i mod workers = worker. */
  worker: number;
  workers: number;
  schedule: Schedule;
  /** The installation's base URL (a path after the host is kept as a prefix). */
  url: string;
  key: string;
  /** Tenant-ID sent with every request; null for the default tenant. */
  tenant: string | null;
  /** This process's keep-alive connections. */
  connections: number;
  mix: { name: OperationName; weight: number }[];
  metric: string;
  points: string | null;
  leaderboard: string | null;
  users: number;
  /** Users are `<userPrefix><n>`, n below `users`. */
  userPrefix: string;
  /** Items per batch (the `batch` operation). */
  batch: number;
  /** How long a request may take; and how long after the last one is due the process waits. */
  timeoutS: number;
}

/** An operation's figures in one process. */
export interface OperationResult {
  /** Scheduled (due) in this process. */
  scheduled: number;
  sent: number;
  /** Answered, whatever the status. */
  answered: number;
  /** Answers by status, and requests without one by error code. */
  statuses: Record<string, number>;
  /** Sent or due and never answered (refused, reset, timed out, or not sent by the end). */
  unanswered: number;
  /** Latencies of the answers, from each request's scheduled time (encoded histogram). */
  histogram: string;
  /** Events a request carries (1, or the batch's size). */
  items: number;
}

export type WorkerMessage =
  | { type: 'ready' }
  /** Its connections are open: it waits for `go`. */
  | { type: 'warm' }
  /** Second `second` of the run as this process saw it. */
  | { type: 'tick'; second: number; sent: number; answered: number; failed: number; histogram: string }
  | {
    type: 'done'; operations: Record<string, OperationResult>; sendDelay: string;
    /** How late the process's event loop ran, in ms past a 1 ms timer (sampled through the run). */
    loopDelayMs: { p50: number; p90: number; p99: number; max: number };
    waitedForConnection: number; cpuPercent: number; lateBy: number;
  }
  | { type: 'error'; message: string };

export type ParentMessage = { type: 'start'; config: GeneratorConfig } | { type: 'go'; startAtEpochMs: number } | { type: 'stop' };
