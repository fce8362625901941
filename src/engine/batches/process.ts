/**
 * The workers' side of batch events (docs/api.md, "Batch events"; src/domain/batches.ts): the
 * partitions' batch queues consumed, each item applied as `POST /metrics/{key}/event` applies an
 * event, by the same recorder (src/engine/event/record.ts): its totals, achievements, streak,
 * points and leaderboards, and its log entry, from which the drain derives notifications and
 * webhooks as for any event.
 *
 * A pass: the partitions the work set names, each taken under a lease (lua/batchTake-2.lua, sent
 * together), so one worker at a time applies a partition's chunks, in order; the items of all the
 * chunks taken grouped by user, each user's in order, the users side by side (their scripts leave
 * in the same writes: pipelined), a user's consecutive items of one metric as a run, phase 1 in one
 * call (src/engine/event/record-run.ts); then each batch's progress noted (lua/batchProgress-2.lua) and
 * each partition's chunks acknowledged (lua/batchAck-n.lua). Each item at most once: an item
 * applies with its idempotency key, or one of its own (itemKey) kept until its chunk is
 * acknowledged, so a chunk taken again after a worker died part-way applies only what it had not.
 *
 * An item refused (its metric deleted or archived meanwhile, an attribute no longer set up,
 * subscribeToEmails without an email, points that would go below 0, its user erased after the
 * item was accepted: src/engine/erasure/erase.ts) is noted with its message in the
 * batch's progress; a fault of Redis fails the pass, which is made again (nothing acknowledged).
 * The events carry this worker's id (its own heartbeat, src/engine/durability/liveness.ts), so a
 * worker that dies between an event and its placements has them made by the log drain, as an api
 * process's.
 */
import { randomUUID } from 'node:crypto';
import { itemKey, itemRef, chunkOf, type BatchChunk, type QueuedItem } from '../../domain/batches.js';
import { checkAttributeKeys, identificationJson, prepareIdentification } from '../../domain/users.js';
import { HttpError } from '../../lib/errors.js';
import { sentTogether } from '../../redis/coalesce.js';
import { DEFAULT_TENANT } from '../../redis/keys.js';
import type { Deps } from '../deps.js';
import { Liveness } from '../durability/liveness.js';
import { EventRecorder, type EventInput } from '../event/record.js';
import { recordRun } from '../event/record-run.js';
import type { Services } from '../deps.js';
import * as batchAck from '../../redis/scripts/batchAck.js';
import * as batchProgress from '../../redis/scripts/batchProgress.js';
import * as batchTake from '../../redis/scripts/batchTake.js';

/** How long a worker holds a partition's queue without taking it again. */
export const BATCH_LEASE_MS = 15_000;
/** Chunks taken from one partition per pass, and the items they hold at most (a user's are applied one after another). */
const CHUNKS_PER_TAKE = 32;
const ITEMS_PER_TAKE = 2000;
/**
 * Users whose items are applied at once (each user's in order): enough to keep Redis's connection
 * full, few enough that what the events in flight hold stays young (thousands at once spent a third
 * of the worker's time in the garbage collector).
 */
const LANES = 128;
/** How often an idle worker looks for work. */
const POLL_MS = 20;
/** How often every partition's queue is looked at, not only those the work set names. */
const SWEEP_MS = 30_000;

export interface BatchPassResult {
  /** Chunks taken, items in them, and how those ended. */
  chunks: number;
  items: number;
  processed: number;
  failed: number;
}

interface Taken {
  partition: number;
  ids: string[];
  chunks: BatchChunk[];
}

/** A chunk taken, with its entry's id in the partition's batch queue (an erasure's fence compares it). */
interface QueuedChunk {
  chunk: BatchChunk;
  id: string;
}

/** What became of an item: null applied (or applied before), else why it failed. */
type Outcome = string | null;

export class BatchProcessor {
  /** This worker's id: the lease holder, and the process its events name. */
  readonly id = randomUUID();
  private readonly svc: Services;
  private readonly deps: Deps;
  private readonly recorder: EventRecorder;
  private readonly liveness: Liveness;
  /** Passes run one after another (the loop's, and those asked for by tests and tools). */
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private lastSweep = 0;
  private readonly leaseMs: number;

  /** Whether a user's items of one metric are applied as runs (else each alone: tests compare the two). */
  private readonly gather: boolean;

  constructor(svc: Services, leaseMs = BATCH_LEASE_MS, gather = true) {
    this.gather = gather;
    this.svc = svc;
    this.deps = { ...svc, processId: this.id };
    this.recorder = new EventRecorder(this.deps);
    this.liveness = new Liveness(svc.redis, svc.keys, this.id);
    this.leaseMs = leaseMs;
  }

  /** Starts the heartbeat and the loop: a pass whenever there is work, else a look every POLL_MS. */
  async start(): Promise<void> {
    await this.liveness.start(this.svc.settings.heartbeatMs);
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let busy = false;
      try {
        const sweep = Date.now() - this.lastSweep >= SWEEP_MS;
        if (sweep) this.lastSweep = Date.now();
        busy = (await this.pass(sweep)).chunks > 0;
      } catch (err) {
        this.svc.outage.warn(this.svc.log, err, 'batch events pass failed; made again');
        await this.pause(1000);
        continue;
      }
      if (!busy) await this.pause(POLL_MS);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }

  /** One pass (after any running): every partition's queue when `all`, else those the work set names. */
  pass(all = false): Promise<BatchPassResult> {
    const next = this.chain.then(() => this.round(all));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Passes until the queues are empty (for tests and tools). */
  async drain(): Promise<BatchPassResult> {
    const total: BatchPassResult = { chunks: 0, items: 0, processed: 0, failed: 0 };
    for (let all = true; ; all = false) {
      const r = await this.pass(all);
      if (r.chunks === 0 && !all) return total;
      total.chunks += r.chunks;
      total.items += r.items;
      total.processed += r.processed;
      total.failed += r.failed;
    }
  }

  /** Stops the loop after its pass, gives back the leases held, and says this worker stopped. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.chain;
    const { redis, keys } = this.svc;
    await Promise.all(Array.from({ length: keys.partitions }, (_, p) => {
      const q = keys.partitionBatches(p);
      return batchTake.run(redis, q, this.id, this.leaseMs, 0);
    })).catch(() => undefined);
    await this.liveness.stop();
  }

  private async round(all: boolean): Promise<BatchPassResult> {
    const { redis, keys } = this.svc;
    const result: BatchPassResult = { chunks: 0, items: 0, processed: 0, failed: 0 };
    const partitions = all
      ? Array.from({ length: keys.partitions }, (_, p) => p)
      : (await redis.smembers(keys.batchWork)).map(Number).filter((p) => Number.isInteger(p) && p >= 0 && p < keys.partitions);
    if (partitions.length === 0) return result;
    const answers = await Promise.all(sentTogether(redis, () => partitions.map((p) => {
      const q = keys.partitionBatches(p);
      return batchTake.run(redis, q, this.id, this.leaseMs, CHUNKS_PER_TAKE, ITEMS_PER_TAKE);
    })));
    const taken: Taken[] = [];
    const queuedAs = new Map<BatchChunk, string>();
    const emptied: number[] = [];
    const held: number[] = [];
    answers.forEach((answer, i) => {
      if (answer === 'held') {
        held.push(partitions[i]);
        return;
      }
      if (answer.length === 0) {
        emptied.push(partitions[i]);
        return;
      }
      const t: Taken = { partition: partitions[i], ids: [], chunks: [] };
      for (const [id, fields] of answer) {
        t.ids.push(id);
        const chunk = chunkOf(fields[1] ?? '');
        if (chunk === null) this.svc.log.error({ entry: id, partition: partitions[i] }, 'a batch queue entry that is not a chunk; dropped');
        else {
          t.chunks.push(chunk);
          queuedAs.set(chunk, id);
        }
      }
      taken.push(t);
    });
    if (all) {
      // A sweep: the partitions with chunks are (back) in the work set.
      const busy = [...held, ...taken.map((t) => t.partition)];
      if (busy.length > 0) await redis.sadd(keys.batchWork, ...busy.map(String));
    } else {
      await this.forget(emptied);
    }
    if (taken.length === 0) return result;

    // Each user's items in order (a user's are all in one partition), the users side by side.
    const users = new Map<string, { chunk: QueuedChunk; item: QueuedItem }[]>();
    for (const t of taken) {
      for (const chunk of t.chunks) {
        const queued = { chunk, id: queuedAs.get(chunk)! };
        for (const item of chunk.i) {
          const user = `${chunk.t}\u0000${item.u.id}`;
          let list = users.get(user);
          if (list === undefined) users.set(user, (list = []));
          list.push({ chunk: queued, item });
        }
      }
    }
    const outcomes = new Map<QueuedItem, Outcome>();
    const queue = [...users.values()];
    let next = 0;
    let fault: { err: unknown } | null = null;
    // LANES users at a time; a fault stops the lanes taking more (the pass is made again).
    const lane = async () => {
      while (next < queue.length && fault === null) {
        const list = queue[next++];
        try {
          await this.applyUser(list, outcomes);
        } catch (err) {
          fault ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LANES, queue.length) }, lane));
    if (fault !== null) throw (fault as { err: unknown }).err;

    await this.noteProgress(taken, outcomes, result);
    await Promise.all(sentTogether(redis, () => taken.map((t) => this.acknowledge(t))));
    return result;
  }

  /**
   * A user's items in order: those of one metric that follow one another as a run
   * (src/engine/event/record-run.ts), each as its event would be applied alone. An item refused
   * before it reaches Redis (its metric, its tenant, its identification) changes nothing and
   * stays out of the run.
   */
  private async applyUser(list: { chunk: QueuedChunk; item: QueuedItem }[], outcomes: Map<QueuedItem, Outcome>): Promise<void> {
    for (let i = 0; i < list.length;) {
      const metric = list[i].item.m;
      const inputs: EventInput[] = [];
      const items: QueuedItem[] = [];
      for (; i < list.length && list[i].item.m === metric && (this.gather || inputs.length === 0); i++) {
        const { chunk, item } = list[i];
        const input = this.inputOf(chunk, item);
        if (typeof input === 'string') {
          outcomes.set(item, input);
        } else {
          inputs.push(input);
          items.push(item);
        }
      }
      if (inputs.length === 0) continue;
      const results = await recordRun(this.recorder, this.svc.redis, inputs);
      let fault: { err: unknown } | null = null;
      results.forEach((r, k) => {
        if ('outcome' in r) outcomes.set(items[k], null);
        // A refusal of the item itself; anything else (Redis, a 503) fails the pass, made again.
        else if (r.error instanceof HttpError && r.error.status < 500) outcomes.set(items[k], r.error.message);
        else fault ??= { err: r.error };
      });
      if (fault !== null) throw (fault as { err: unknown }).err;
    }
  }

  /** An item as its event; a string: why it is refused. */
  private inputOf({ chunk, id }: QueuedChunk, item: QueuedItem): EventInput | string {
    const snapshot = this.svc.store.current;
    const metric = snapshot.metrics.get(item.m);
    if (metric === undefined) return `Metric "${item.mk}" no longer exists`;
    if (metric.status !== 'active') return `Metric "${metric.key}" is archived and accepts no events`;
    if (chunk.t !== DEFAULT_TENANT && snapshot.tenants.get(chunk.t)?.status !== 'active') return 'The tenant no longer exists';
    try {
      const ident = prepareIdentification(item.u, snapshot);
      let attributesJson = '';
      if (item.a != null) {
        checkAttributeKeys(item.a, snapshot.eventAttributes);
        attributesJson = JSON.stringify(item.a);
      }
      return {
        tenant: chunk.t, metric, userId: item.u.id, ident, value: item.v, attributes: item.a, attributesJson,
        idempotencyKey: item.k ?? '', itemKey: item.k === undefined ? itemKey(chunk.b, item.i) : undefined,
        batchItem: itemRef(chunk.b, item.i), acceptedIn: id, identificationJson: identificationJson(item.u), occurredAt: item.o,
        imported: chunk.im === 1,
      };
    } catch (err) {
      if (err instanceof HttpError && err.status < 500) return err.message;
      throw err;
    }
  }

  /** Each batch's items processed and failed, noted in the batch's slot. */
  private async noteProgress(taken: Taken[], outcomes: Map<QueuedItem, Outcome>, result: BatchPassResult): Promise<void> {
    const { redis, keys } = this.svc;
    const batches = new Map<string, { chunk: BatchChunk; done: number[]; failed: [number, string][] }>();
    for (const t of taken) {
      result.chunks += t.ids.length;
      for (const chunk of t.chunks) {
        let b = batches.get(chunk.b);
        if (b === undefined) batches.set(chunk.b, (b = { chunk, done: [], failed: [] }));
        for (const item of chunk.i) {
          result.items++;
          const outcome = outcomes.get(item);
          if (outcome === null) {
            b.done.push(item.i);
            result.processed++;
          } else {
            b.failed.push([item.i, outcome ?? 'not applied']);
            result.failed++;
          }
        }
      }
    }
    await Promise.all(sentTogether(redis, () => [...batches].map(([batchId, { chunk, done, failed }]) => {
      const k = keys.batch(batchId);
      return batchProgress.run(redis, k, { items: chunk.n, tenant: chunk.t, accepted: chunk.ts, expires: chunk.x, done, failed });
    })));
  }

  /** A partition's chunks out of its queue, with the keys of their own its items were applied with. */
  private acknowledge(t: Taken): Promise<boolean> {
    const { redis, keys } = this.svc;
    const own: [string, string][] = [];
    let items = 0;
    for (const chunk of t.chunks) {
      items += chunk.i.length;
      for (const item of chunk.i) {
        if (item.k !== undefined) continue;
        own.push([keys.userMetric(keys.forUser(chunk.t, item.u.id), item.m), `i:${itemKey(chunk.b, item.i)}`]);
      }
    }
    return batchAck.run(redis, keys.partitionBatches(t.partition), { worker: this.id, items, ids: t.ids, own });
  }

  /**
   * Partitions whose queue was found empty leave the work set; one that a batch reached meanwhile
   * goes back in (a batch adds its partitions after its chunks). A sweep (every SWEEP_MS) puts
   * back any the set lacks (a batch whose api process died between the two).
   */
  private async forget(emptied: number[]): Promise<void> {
    if (emptied.length === 0) return;
    const { redis, keys } = this.svc;
    await redis.srem(keys.batchWork, ...emptied.map(String));
    const lengths = await Promise.all(sentTogether(redis, () => emptied.map((p) => redis.xlen(keys.partitionBatches(p).queue))));
    const back = emptied.filter((_, i) => lengths[i] > 0);
    if (back.length > 0) await redis.sadd(keys.batchWork, ...back.map(String));
  }
}
