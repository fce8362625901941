/**
 * The batch queues while a batch variant is measured (`laurel-batch`, bench/variants.ts): the items
 * accepted and not yet applied and how long the oldest has waited (what `/metrics` reports,
 * src/engine/batches/status.ts), read from Redis every `everyMs` during the load, then until the
 * workers have applied everything (at most `capS` after the load). How long the oldest item waited
 * is the batches' own latency, from acceptance to applied, as the load saw it.
 */
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchBacklog } from '../src/engine/batches/status.js';
import { Keys } from '../src/redis/keys.js';

/**
 * How long a batch variant's closed-loop load waits for the workers to apply what it accepted: the
 * api accepts batches several times faster than the workers apply them, so a load of
 * BENCH_DURATION leaves a backlog of some tens of seconds, all of which its figure counts.
 */
export const BATCH_CAP_S = 120;

export interface BatchTurn {
  /** The most items waiting, and the longest the oldest had waited, at any sample during the load. */
  maxWaiting: number;
  maxLagS: number;
  /** Items waiting when the load ended. */
  waitingAtLoadEnd: number;
  /** Seconds after the load's end until nothing waited; null when still waiting `capS` after it. */
  emptiedAfterS: number | null;
  /** Items waiting at the last read (0 once all were applied). */
  waitingAtEnd: number;
  samples: number;
}

/** The worst of each figure over a variant's turns. */
export function mergeBatchTurns(turns: BatchTurn[]): BatchTurn | null {
  if (turns.length === 0) return null;
  const tails = turns.map((t) => t.emptiedAfterS);
  return {
    maxWaiting: Math.max(...turns.map((t) => t.maxWaiting)),
    maxLagS: Math.max(...turns.map((t) => t.maxLagS)),
    waitingAtLoadEnd: Math.max(...turns.map((t) => t.waitingAtLoadEnd)),
    emptiedAfterS: tails.some((t) => t === null) ? null : Math.max(...(tails as number[])),
    waitingAtEnd: Math.max(...turns.map((t) => t.waitingAtEnd)),
    samples: turns.reduce((n, t) => n + t.samples, 0),
  };
}

export function batchLine(b: BatchTurn, capS: number): string {
  const tail = b.emptiedAfterS === null ? `NOT applied ${capS} s after the load` : `all applied ${b.emptiedAfterS.toFixed(2)} s after the load`;
  return `batches: at most ${b.maxLagS.toFixed(2)} s behind, ${b.maxWaiting} items waiting; ${b.waitingAtLoadEnd} at the load's end; ${tail}`;
}

export class BatchMonitor {
  private readonly deps: { redis: Redis; keys: Keys };
  private readonly everyMs: number;

  constructor(redis: Redis, prefix: string, partitions: number, everyMs: number) {
    this.deps = { redis, keys: new Keys(prefix, partitions) };
    this.everyMs = everyMs;
  }

  /** Samples while `load` runs, then until nothing waits; answers the load's result and the turn. */
  async watch<T>(load: Promise<T>, capS: number, signal: AbortSignal): Promise<{ result: T; batch: BatchTurn }> {
    let done = false;
    let loadEndMs = 0;
    const turn: BatchTurn = { maxWaiting: 0, maxLagS: 0, waitingAtLoadEnd: 0, emptiedAfterS: null, waitingAtEnd: 0, samples: 0 };
    const settled = load.then(
      (v) => { done = true; loadEndMs = Date.now(); return v; },
      (err: unknown) => { done = true; loadEndMs = Date.now(); throw err; },
    );
    const sampling = (async () => {
      while (!done) {
        const b = await batchBacklog(this.deps);
        turn.samples++;
        turn.maxWaiting = Math.max(turn.maxWaiting, b.waiting);
        turn.maxLagS = Math.max(turn.maxLagS, b.lagSeconds);
        if (!done) await Promise.race([sleep(this.everyMs), settled.catch(() => undefined)]);
      }
    })();
    const [loaded, sampled] = await Promise.allSettled([settled, sampling]);
    if (loaded.status === 'rejected') throw loaded.reason;
    if (sampled.status === 'rejected') throw sampled.reason;
    for (let first = true; ; first = false) {
      signal.throwIfAborted();
      const b = await batchBacklog(this.deps);
      turn.samples++;
      if (first) turn.waitingAtLoadEnd = b.waiting;
      turn.waitingAtEnd = b.waiting;
      turn.maxLagS = Math.max(turn.maxLagS, b.lagSeconds);
      if (b.waiting === 0) {
        turn.emptiedAfterS = (Date.now() - loadEndMs) / 1000;
        break;
      }
      if (Date.now() >= loadEndMs + capS * 1000) break;
      await sleep(this.everyMs, undefined, { signal });
    }
    return { result: loaded.value, batch: turn };
  }
}
