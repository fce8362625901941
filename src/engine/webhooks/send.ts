/**
 * Sending the webhook deliveries that are due (workers/webhooks.ts): claimed in Postgres
 * (src/postgres/webhooks/deliveries.ts), POSTed signed both ways (src/domain/webhooks/signing.ts) with
 * a 15 s timeout, at most IN_FLIGHT at a time per endpoint (a slow receiver holds up only its own
 * deliveries), and settled: a 2xx is `delivered`; anything else is tried again after the backoff
 * below, then `failed`; a `410 Gone` fails it and disables the endpoint. Due times follow the
 * service's clock (the manual clock moves retries too).
 */
import { AddressRefused, PostAbandoned, PostGroup, postWebhook } from './post.js';
import { signedHeaders } from '../../domain/webhooks/signing.js';
import type { Webhook } from '../../model/entities.js';
import { claimDue, releaseClaims, settleMany, type Settlement, type WebhookDelivery } from '../../postgres/webhooks/deliveries.js';
import { pruneSettled } from '../../postgres/webhooks/history.js';
import { claimOutbox, completeOutbox, OUTBOX_ROW, releaseOutbox, type FirstAttempt } from '../../postgres/webhooks/outbox.js';
import { recordClockEvents, subscribedTypes } from './record.js';
import { recordLosses } from './losses.js';
import { recordPointsChanged } from './points-changed.js';
import { freezesWanted, recordFreezes } from './freezes.js';
import { rankingsWanted, recordRankingChanges, windowOf } from './rankings.js';
import type { Context } from '../context.js';
import type pg from 'pg';
import { listIn } from '../../lib/lists.js';
import { settleWithin } from '../../redis/client.js';

/** The wait before each retry (ms): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h; then failed. */
export const BACKOFF_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
export const TIMEOUT_MS = 15_000;
/** Deliveries in flight at once per endpoint. */
export const IN_FLIGHT = 16;
/** Deliveries claimed ahead per endpoint, sent IN_FLIGHT at a time. */
const AHEAD = 128;
/** How long a claim holds (wall time): the claimed all sent one after another, IN_FLIGHT at a time, each taking its whole timeout. */
const LEASE_MS = TIMEOUT_MS * (AHEAD / IN_FLIGHT + 1);
/** How long settled deliveries are kept (as Trophy keeps its delivery logs), and how often they are pruned. */
export const RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Outcomes settled in one statement: this many, or those of this many ms. */
const SETTLE_BATCH = 200;
const SETTLE_MS = 50;

export interface SendResult {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings' | 'log'>;

/** A claimed outbox row: its deliveries in order, how many are not attempted yet, and the first attempts of the others. */
interface OutboxClaim {
  id: string;
  deliveries: WebhookDelivery[];
  remaining: number;
  attempts: FirstAttempt[];
}

/** How an attempt ended, for the delivery's row or its outbox row. */
type Outcome = Omit<Settlement, 'id'>;

/** The secrets in force for an endpoint at `nowMs`, newest first. */
function secretsOf(w: Webhook, nowMs: number): string[] {
  const previous = w.previousSecret !== null && w.previousUntil !== null && Date.parse(w.previousUntil) > nowMs;
  return previous ? [w.secret, w.previousSecret!] : [w.secret];
}

/** One attempt: the receiver's status, or an error (network, timeout, refused address); throws PostAbandoned when given up. */
async function attempt(deps: Deps, w: Webhook, d: WebhookDelivery, group: PostGroup): Promise<{ status: number | null; error: string | null }> {
  try {
    // The secrets in force on the service's clock; the timestamp a receiver checks against its own
    // clock (Standard Webhooks allows minutes of skew) is the wall time, whatever the service's clock says.
    const headers = signedHeaders(secretsOf(w, deps.clock.now()), d.eventId, Math.floor(Date.now() / 1000), d.body);
    const { status } = await postWebhook(w.url, d.body, headers, TIMEOUT_MS, deps.settings.webhooksAllowPrivate, group);
    return { status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` };
  } catch (err) {
    if (err instanceof PostAbandoned) throw err;
    const e = err as Error & { code?: string };
    return { status: null, error: e instanceof AddressRefused ? e.message : e.code ?? e.message };
  }
}

/**
 * The sender of one worker process. A pass (every second, and again as soon as an endpoint's
 * deliveries claimed are sent while more are due) claims up to AHEAD deliveries per endpoint,
 * which are sent IN_FLIGHT at a time per endpoint without the pass waiting for them: a receiver
 * that takes its 15 s holds up only its own deliveries. Outcomes are settled together, one
 * statement per SETTLE_BATCH or SETTLE_MS; a process that dies before it settles leaves them
 * `sending` until their lease ends, and they are sent again under the same `webhook-id`.
 * `idle()` waits for every send in flight and settles them. `close()` stops: nothing more is
 * claimed or started, the sends in flight get until the stop's deadline to be answered, those
 * still unanswered then are given up, and they and the claimed ones not started are given back
 * (free to claim at once, by this process's successor or another: one given up may reach its
 * receiver twice, under one `webhook-id`); every outcome is settled.
 */
export class WebhookSender {
  private readonly deps: Deps;
  private readonly pool: pg.Pool;
  /** Per endpoint: claimed deliveries not started yet, and how many are in flight. */
  private readonly queued = new Map<string, WebhookDelivery[]>();
  private readonly inFlight = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  /** The POSTs in flight, given up together when a stop's deadline comes. */
  private readonly posts = new PostGroup();
  /** Sends given up at a stop: given back with the claimed ones not started. */
  private abandoned: WebhookDelivery[] = [];
  private settled: Settlement[] = [];
  /** The outbox row each delivery claimed from the outbox came in, and the rows all attempted. */
  private readonly outboxOf = new WeakMap<WebhookDelivery, OutboxClaim>();
  private finished: OutboxClaim[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  /** A pass running, and whether another was asked for meanwhile. */
  private running: Promise<number> | null = null;
  private again = false;
  private againRecords = false;
  private closed = false;
  readonly totals: SendResult = { claimed: 0, delivered: 0, retried: 0, failed: 0 };

  constructor(deps: Deps, pool: pg.Pool) {
    this.deps = deps;
    this.pool = pool;
  }

  /** The clock's events this process recorded already (src/engine/webhooks/record.ts). */
  private readonly seen = new Set<string>();
  /** The window whose ranking changes this process recorded (src/engine/webhooks/rankings.ts). */
  private rankingsWindow = -1;
  /** When this process last pruned the deliveries settled long ago (service clock). */
  private prunedAt = -Infinity;

  /**
   * Records the clock's events due now (unless `record` is false), then claims and starts what is
   * due; answers how many were claimed. The workers' pass each second records; an endpoint whose
   * queue ran dry claims again at once without recording (under load that is many times a second,
   * and the records' reads, 256 partitions' windows among them, are a second's work).
   */
  async pass(record = true): Promise<number> {
    if (this.running !== null) {
      this.again = true;
      this.againRecords ||= record;
      return this.running;
    }
    this.running = this.claim(record);
    try {
      return await this.running;
    } finally {
      this.running = null;
      if (this.again && !this.closed) {
        const records = this.againRecords;
        this.again = false;
        this.againRecords = false;
        void this.pass(records).catch((err: unknown) => this.deps.log.error({ err }, 'webhooks pass failed'));
      }
    }
  }

  private async claim(record: boolean): Promise<number> {
    const { store } = this.deps;
    if (this.closed || store.current.webhooks.size === 0) return 0;
    if (record) await this.record();
    return this.claimAndStart();
  }

  /** The events of the clock due now (boosts, runs, losses, freezes, points.changed windows, rankings), recorded; old deliveries pruned. */
  private async record(): Promise<void> {
    const { clock, settings, store } = this.deps;
    await recordClockEvents(this.deps, this.pool, this.seen);
    const types = subscribedTypes(store.current);
    if (types.has('streak.lost')) await recordLosses(this.deps, this.pool);
    if (types.has('points.changed')) await recordPointsChanged(this.deps, this.pool);
    if (freezesWanted(types)) await recordFreezes(this.deps, this.pool, types);
    // The rankings once per window (the first pass of each).
    const window = windowOf(clock.now());
    if (rankingsWanted(types) && window !== this.rankingsWindow) {
      await recordRankingChanges(this.deps, this.pool, types);
      this.rankingsWindow = window;
    }
    if (clock.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = clock.now();
      await pruneSettled(this.pool, settings.prefix, clock.now() - RETENTION_MS);
    }
  }

  /** Claims what is due, up to what each endpoint may hold here, and starts sending it; answers how many were claimed. */
  private async claimAndStart(): Promise<number> {
    const { clock, settings, store } = this.deps;
    // Per endpoint (every one configured, whatever its status: a deliveries' endpoint not named was
    // deleted): how many more it may have claimed here. The log's deliveries first (the outbox,
    // whole rows), then those due again or by time with what is left.
    const free: Record<string, number> = {};
    for (const endpoint of store.current.webhooks.keys()) free[endpoint] = Math.max(0, AHEAD - this.held(endpoint));
    const rowsFree = Object.fromEntries(Object.entries(free).map(([e, n]) => [e, Math.floor(n / OUTBOX_ROW)]));
    const rows = await claimOutbox(this.pool, settings.prefix, LEASE_MS, rowsFree, AHEAD / OUTBOX_ROW);
    const fromOutbox: WebhookDelivery[] = [];
    for (const row of rows) {
      const claim: OutboxClaim = { id: row.id, deliveries: row.deliveries, remaining: row.deliveries.length, attempts: [] };
      for (const d of row.deliveries) this.outboxOf.set(d, claim);
      fromOutbox.push(...row.deliveries);
      if (row.endpointId in free) free[row.endpointId] -= row.deliveries.length;
    }
    const due = [...fromOutbox, ...await claimDue(this.pool, settings.prefix, clock.now(), LEASE_MS, free, AHEAD)];
    this.totals.claimed += due.length;
    for (const d of due) listIn(this.queued, d.endpointId).push(d);
    for (const endpoint of new Set(due.map((d) => d.endpointId))) this.pump(endpoint);
    return due.length;
  }

  /** The deliveries of an endpoint claimed and not settled yet. */
  private held(endpoint: string): number {
    return (this.queued.get(endpoint)?.length ?? 0) + (this.inFlight.get(endpoint) ?? 0);
  }

  /** Starts an endpoint's queued deliveries up to IN_FLIGHT; once its queue runs dry, claims again. */
  private pump(endpoint: string): void {
    const list = this.queued.get(endpoint) ?? [];
    while (!this.closed && list.length > 0 && (this.inFlight.get(endpoint) ?? 0) < IN_FLIGHT) {
      const d = list.shift()!;
      this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 0) + 1);
      const p = this.send(d).catch((err: unknown) => this.deps.log.error({ err, delivery: d.id }, 'webhook delivery not sent'))
        .finally(() => {
          this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 1) - 1);
          this.sending.delete(p);
          this.pump(endpoint);
        });
      this.sending.add(p);
    }
    if (list.length === 0) {
      this.queued.delete(endpoint);
      // More may be due: claim again without waiting for the next second.
      if ((this.inFlight.get(endpoint) ?? 0) === 0 && !this.closed) {
        void this.pass(false).catch((err: unknown) => this.deps.log.error({ err }, 'webhooks pass failed'));
      }
    }
  }

  /** Waits until nothing is in flight, and settles what was sent. */
  async idle(): Promise<void> {
    while (this.sending.size > 0 || this.running !== null) {
      await Promise.all([...this.sending]);
      await this.running;
    }
    await this.flush();
  }

  /** Stops claiming and starting sends (close() finishes the stop). */
  stop(): void {
    this.closed = true;
  }

  /**
   * Stops; lets the sends in flight be answered until `finishBy` (ms since the epoch), gives up on
   * the rest, settles every outcome and gives back what was not attempted.
   */
  async close(finishBy = Infinity): Promise<void> {
    this.closed = true;
    const inTime = finishBy === Infinity ? await this.idle().then(() => true) : await settleWithin(this.idle(), finishBy - Date.now());
    if (!inTime) {
      this.deps.log.warn({ abandoned: this.posts.exchanges.size }, 'webhook deliveries unanswered at the stop: given back, to be sent again under the same webhook-id');
      this.posts.abandon();
      await this.idle();
    }
    // Claimed and not started (nothing starts once closed), or given up: given back now rather than
    // left to their lease, an outbox row with the first attempts of those that were made (so none
    // is sent twice).
    const unstarted = [...this.queued.values()].flat().concat(this.abandoned);
    this.queued.clear();
    this.abandoned = [];
    const claims = new Map<OutboxClaim, WebhookDelivery[]>();
    const rows: string[] = [];
    for (const d of unstarted) {
      const claim = this.outboxOf.get(d);
      if (claim === undefined) rows.push(d.id);
      else listIn(claims, claim).push(d);
    }
    const { prefix } = this.deps.settings;
    await releaseClaims(this.pool, prefix, rows);
    for (const [claim, left] of claims) await releaseOutbox(this.pool, prefix, claim.id, claim.attempts, left);
  }

  /** Keeps how an attempt ended, for its row or, once all of its outbox row's are, for that row. */
  private settle(d: WebhookDelivery, o: Outcome): void {
    const claim = this.outboxOf.get(d);
    if (claim === undefined) {
      this.settled.push({ id: d.id, ...o });
    } else {
      claim.attempts.push({ delivery: d, ...o });
      if (--claim.remaining === 0) this.finished.push(claim);
    }
    if (this.settled.length + this.finished.length * OUTBOX_ROW >= SETTLE_BATCH) void this.flush();
    else this.flushTimer ??= setTimeout(() => { void this.flush(); }, SETTLE_MS);
  }

  /** Writes the outcomes gathered (one statement), after any write still under way. */
  private flush(): Promise<void> {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.settled;
    const finished = this.finished;
    this.settled = [];
    this.finished = [];
    const { prefix } = this.deps.settings;
    this.flushing = this.flushing.then(async () => {
      await settleMany(this.pool, prefix, batch);
      await completeOutbox(this.pool, prefix, finished);
    }).catch((err: unknown) => {
      // Left `sending`, or in the outbox: sent again under the same ids once their lease ends.
      this.deps.log.error({ err, deliveries: batch.length, outboxRows: finished.length }, 'webhook deliveries not settled');
    });
    return this.flushing;
  }

  private async send(d: WebhookDelivery): Promise<void> {
    const { deps } = this;
    const { store, clock } = deps;
    const result = this.totals;
    const w = store.current.webhooks.get(d.endpointId);
    if (w === undefined || w.status !== 'active') {
      // Deleted or switched off since it was recorded: not sent (a retry sends it once it is active).
      const error = w === undefined ? 'endpoint deleted' : `endpoint ${w.status}`;
      this.settle(d, { status: 'failed', lastStatus: null, error, at: clock.now() });
      result.failed++;
      return;
    }
    let answer: Awaited<ReturnType<typeof attempt>>;
    try {
      answer = await attempt(deps, w, d, this.posts);
    } catch (err) {
      if (!(err instanceof PostAbandoned)) throw err;
      this.abandoned.push(d);
      return;
    }
    const { status, error } = answer;
    const at = clock.now();
    if (error === null) {
      this.settle(d, { status: 'delivered', lastStatus: status, error: null, at });
      result.delivered++;
    } else if (status === 410) {
      this.settle(d, { status: 'failed', lastStatus: status, error: '410 Gone: the endpoint is disabled', at });
      const now = store.current.webhooks.get(w.id);
      if (now !== undefined && now.status === 'active') {
        await store.put('webhooks', 'update', { ...now, status: 'disabled', updated: new Date(at).toISOString() });
        deps.log.warn({ endpoint: w.id, url: w.url }, 'webhook endpoint answered 410 Gone: disabled');
      }
      result.failed++;
    } else if (d.attempts < BACKOFF_MS.length) {
      this.settle(d, { status: 'pending', nextAt: at + BACKOFF_MS[d.attempts], lastStatus: status, error, at });
      result.retried++;
    } else {
      this.settle(d, { status: 'failed', lastStatus: status, error, at });
      result.failed++;
    }
  }
}
