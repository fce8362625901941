/**
 * Sending the webhook deliveries (workers/webhooks.ts): those of the log claimed from the
 * endpoints' queues in Redis (src/engine/webhooks/queue.ts), those due again or by time claimed
 * from Postgres (src/postgres/webhooks/deliveries.ts); POSTed signed both ways
 * (src/domain/webhooks/signing.ts) with a 15 s timeout, at most IN_FLIGHT at a time per endpoint
 * (a slow receiver holds up only its own deliveries), and settled: a 2xx is `delivered`; anything
 * else is tried again after the backoff below, then `failed`; a `410 Gone` fails it and disables
 * the endpoint. Due times follow the service's clock (the manual clock moves retries too).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AddressRefused, PostAbandoned, PostGroup, postWebhook } from './post.js';
import { signedHeaders } from '../../domain/webhooks/signing.js';
import type { Webhook } from '../../model/entities.js';
import {
  claimDue, releaseClaims, settleMany, webhookDeliveryId, type Settlement, type WebhookDelivery,
} from '../../postgres/webhooks/deliveries.js';
import { pruneSettled } from '../../postgres/webhooks/history.js';
import { inTransaction, recordedIds, recordFirstAttempts, type FirstAttempt } from '../../postgres/webhooks/sent.js';
import { moveWaitingOutbox } from '../../postgres/webhooks/upgrade.js';
import {
  claimExpired, claimNew, dropDeletedQueues, giveBack, holdClaims, takeOut, type ClaimedDelivery,
} from './queue.js';
import { clockWanted, recordClockEvents, subscribedTypes, type ClockWanted } from './record.js';
import type { LiveInterest } from '../live/wanted.js';
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
/**
 * How long a claim holds (wall time): the claimed all sent one after another, IN_FLIGHT at a time,
 * each taking its whole timeout. A process renews its claims from the queues each pass while it
 * holds them (their record waiting for Postgres), so only a process gone lets them run out.
 */
export const LEASE_MS = TIMEOUT_MS * (AHEAD / IN_FLIGHT + 1);
/** Claims of the queues older than this are renewed by the pass. */
const RENEW_MS = LEASE_MS / 3;
/** How long settled deliveries are kept (as Trophy keeps its delivery logs), and how often they are pruned. */
export const RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/** How often the queues of deleted endpoints are dropped and the earlier outbox's waiting rows moved (wall ms). */
const TIDY_EVERY_MS = 60_000;
/** Attempts of an endpoint waiting for their record at most: no more is claimed meanwhile. */
const UNRECORDED = 4 * AHEAD;
/** Outcomes recorded in one transaction: this many, or those of this many ms. */
const SETTLE_BATCH = 500;
const SETTLE_MS = 50;
/** After a record that failed (Postgres away), the wait before the next try (ms). */
const RETRY_RECORD_MS = 1000;

export interface SendResult {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings' | 'log'>;

/** A delivery claimed: from an endpoint's queue (its stream id), or a row of `laurel_webhook_deliveries` (null). */
interface Claimed extends WebhookDelivery {
  streamId: string | null;
}

/** How an attempt ended. */
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

/** A delivery claimed from an endpoint's queue, as sent and recorded: no attempt yet, due since it was made. */
function fromQueue(endpointId: string, q: ClaimedDelivery): Claimed {
  return {
    id: webhookDeliveryId(endpointId, q.eventId), endpointId, eventId: q.eventId, type: q.type, tenant: q.tenant, userId: q.userId,
    body: q.body, status: 'sending', dueAt: q.created, attempts: 0, lastStatus: null, error: null, createdAt: q.created, deliveredAt: null,
    streamId: q.streamId,
  };
}

/**
 * The sender of one worker process. A pass (every second) records the clock's events due and
 * claims what is due: of each endpoint up to AHEAD deliveries, from its queue (and the claims of
 * its queue that expired, whose process died) and from the rows due again; they are sent IN_FLIGHT
 * at a time per endpoint without the pass waiting for them. An endpoint whose claimed deliveries
 * were all started claims from its queue again at once, and so does every endpoint when the
 * process's log drain has queued new ones (`kick`), so a busy endpoint is fed as fast as it
 * answers. Outcomes are recorded together, one transaction per SETTLE_BATCH or SETTLE_MS, and the
 * queue's deliveries taken out of it after: a process that dies before leaves its claims to run
 * out (LEASE_MS), and they are sent again under the same `webhook-id` (unless recorded already).
 * `idle()` waits for every send in flight and records them. `close()` stops: nothing more is
 * claimed or started, the sends in flight get until the stop's deadline to be answered, those
 * still unanswered then are given up, and they and the claimed ones not started are given back
 * (free to claim at once, by this process's successor or another: one given up may reach its
 * receiver twice, under one `webhook-id`); every outcome is recorded.
 */
export class WebhookSender {
  private readonly deps: Deps;
  private readonly pool: pg.Pool;
  /** This process's name in the queues' consumer group. */
  private readonly consumer = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** Per endpoint: claimed deliveries not started yet, and how many are in flight. */
  private readonly queued = new Map<string, Claimed[]>();
  private readonly inFlight = new Map<string, number>();
  /** Per endpoint: the claims of its queue held (stream id -> when claimed or renewed, wall ms), until taken out. */
  private readonly holding = new Map<string, Map<string, number>>();
  private readonly sending = new Set<Promise<void>>();
  /** The POSTs in flight, given up together when a stop's deadline comes. */
  private readonly posts = new PostGroup();
  /** Sends given up at a stop: given back with the claimed ones not started. */
  private abandoned: Claimed[] = [];
  /** Per endpoint: the deliveries claimed here and not recorded yet (given back, or their outcome recorded). */
  private readonly open = new Map<string, number>();
  /** Whether an endpoint got nothing claimed for its attempts waiting for their record (claimed again once they are). */
  private heldBack = false;
  /** Outcomes not recorded yet. */
  private outcomes: { delivery: Claimed; outcome: Outcome }[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  /** A pass running, and whether another was asked for meanwhile. */
  private running: Promise<number> | null = null;
  private again = false;
  private againRecords = false;
  private closed = false;
  readonly totals: SendResult = { claimed: 0, delivered: 0, retried: 0, failed: 0 };

  private readonly interest: LiveInterest;

  /** `interest`: the live topics wanted, as this process's live publisher knows them (the clock's events go to them). */
  constructor(deps: Deps, pool: pg.Pool, interest: LiveInterest) {
    this.deps = deps;
    this.pool = pool;
    this.interest = interest;
  }

  /** The clock's events this process recorded already (src/engine/webhooks/record.ts). */
  private readonly seen = new Set<string>();
  /** The window whose ranking changes this process recorded (src/engine/webhooks/rankings.ts). */
  private rankingsWindow = -1;
  /** When this process last pruned the deliveries settled long ago (service clock). */
  private prunedAt = -Infinity;
  /** When this process last tidied (wall ms). */
  private tidiedAt = -Infinity;

  /**
   * Records the clock's events due now (unless `record` is false), then claims and starts what is
   * due; answers how many were claimed. The workers' pass each second records; an endpoint whose
   * claimed deliveries ran out, or new ones in the queues, claim again at once without recording
   * (under load that is many times a second, and the records' reads, 256 partitions' windows among
   * them, are a second's work) and from the queues only.
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

  /** New deliveries are in the queues (this process's drain put them there): claims them now. */
  kick(): void {
    if (this.closed || this.deps.store.current.webhooks.size === 0) return;
    void this.pass(false).catch((err: unknown) => this.deps.log.error({ err }, 'webhooks pass failed'));
  }

  private async claim(record: boolean): Promise<number> {
    const { store } = this.deps;
    if (this.closed) return 0;
    const hooks = store.current.webhooks.size > 0;
    if (!hooks) {
      // No endpoint: the clock's events only for the live topics, while a socket wants one.
      if (record) await this.recordClock(clockWanted(this.deps, this.interest));
      return 0;
    }
    if (record) await this.record();
    return this.claimAndStart(record);
  }

  /** The clock's events due now (boosts, runs, losses, freezes), recorded and published live (src/engine/live/clock.ts). */
  private async recordClock(wanted: ClockWanted): Promise<void> {
    const { types, live } = wanted;
    if (types.size === 0) return;
    await recordClockEvents(this.deps, this.pool, this.seen, wanted);
    if (types.has('streak.lost')) await recordLosses(this.deps, this.pool, live);
    if (freezesWanted(types)) await recordFreezes(this.deps, this.pool, types, live);
  }

  /** The events of the clock due now (boosts, runs, losses, freezes, points.changed windows, rankings), recorded; old deliveries pruned. */
  private async record(): Promise<void> {
    const { clock, settings, store } = this.deps;
    const wanted = clockWanted(this.deps, this.interest);
    await this.recordClock(wanted);
    const types = subscribedTypes(store.current);
    if (types.has('points.changed')) await recordPointsChanged(this.deps, this.pool);
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
    if (Date.now() - this.tidiedAt >= TIDY_EVERY_MS) {
      this.tidiedAt = Date.now();
      await dropDeletedQueues(this.deps, new Set(store.current.webhooks.keys()));
      const moved = await moveWaitingOutbox(this.pool, settings.prefix, clock.now());
      if (moved > 0) this.deps.log.info({ moved }, 'webhook deliveries of the earlier outbox moved to their own rows, to be sent');
    }
    await this.renewClaims();
  }

  /** Renews the claims of the queues this process holds for longer than RENEW_MS (their record waits for Postgres). */
  private async renewClaims(): Promise<void> {
    const now = Date.now();
    for (const [endpoint, held] of this.holding) {
      const old = [...held].filter(([, at]) => now - at >= RENEW_MS).map(([id]) => id);
      if (old.length === 0) continue;
      await holdClaims(this.deps, this.consumer, endpoint, old);
      for (const id of old) held.set(id, now);
    }
  }

  /**
   * Claims what is due, up to what each endpoint may hold here, and starts sending it; answers how
   * many were claimed. `all`: the claims that expired and the rows due too, not only the queues'
   * new deliveries.
   */
  private async claimAndStart(all: boolean): Promise<number> {
    const { clock, settings, store } = this.deps;
    // Per endpoint (every one configured, whatever its status: a delivery of one not active fails,
    // a deleted one's queue is dropped): how many more it may have claimed here.
    const free = new Map<string, number>();
    for (const endpoint of store.current.webhooks.keys()) free.set(endpoint, this.free(endpoint));
    const due: Claimed[] = [];
    if (all) {
      for (const [endpoint, n] of free) {
        if (n === 0) continue;
        const expired = await claimExpired(this.deps, this.consumer, endpoint, LEASE_MS, n);
        if (expired.length === 0) continue;
        const claimed = await this.unrecorded(endpoint, expired);
        due.push(...claimed);
        free.set(endpoint, n - claimed.length);
      }
    }
    const fresh = await claimNew(this.deps, this.consumer, free);
    for (const [endpoint, list] of fresh) {
      for (const q of list) due.push(fromQueue(endpoint, q));
      free.set(endpoint, (free.get(endpoint) ?? 0) - list.length);
    }
    if (all) {
      // Rows due again or by time (and those of endpoints deleted since, which fail).
      const rows = await claimDue(this.pool, settings.prefix, clock.now(), LEASE_MS, Object.fromEntries(free), AHEAD);
      for (const r of rows) due.push({ ...r, streamId: null });
    }
    const now = Date.now();
    for (const d of due) {
      if (d.streamId !== null) {
        let held = this.holding.get(d.endpointId);
        if (held === undefined) this.holding.set(d.endpointId, held = new Map());
        held.set(d.streamId, now);
      }
      listIn(this.queued, d.endpointId).push(d);
      this.opened(d.endpointId, 1);
    }
    this.totals.claimed += due.length;
    for (const endpoint of new Set(due.map((d) => d.endpointId))) this.pump(endpoint);
    return due.length;
  }

  /**
   * Of deliveries claimed again after their claim ran out, those to send: the ones whose first
   * attempt is recorded already (their process died between its record and taking them out) are
   * taken out of the queue without a POST.
   */
  private async unrecorded(endpoint: string, expired: ClaimedDelivery[]): Promise<Claimed[]> {
    const claimed = expired.map((q) => fromQueue(endpoint, q));
    const recorded = await recordedIds(this.pool, this.deps.settings.prefix, endpoint, claimed.map((d) => d.id));
    if (recorded.size > 0) {
      await takeOut(this.deps, new Map([[endpoint, claimed.filter((d) => recorded.has(d.id)).map((d) => d.streamId!)]]));
    }
    return claimed.filter((d) => !recorded.has(d.id));
  }

  /**
   * How many more deliveries an endpoint may have claimed here: AHEAD not attempted yet (each must
   * be sent within its lease), and no more while UNRECORDED of its attempts wait for their record
   * (Postgres away: nothing more is claimed until they are recorded).
   */
  private free(endpoint: string): number {
    const open = this.open.get(endpoint) ?? 0;
    const started = (this.queued.get(endpoint)?.length ?? 0) + (this.inFlight.get(endpoint) ?? 0);
    if (open - started >= UNRECORDED) {
      this.heldBack = true;
      return 0;
    }
    return Math.max(0, AHEAD - started);
  }

  /** `n` deliveries of an endpoint claimed (positive) or done with (negative). */
  private opened(endpoint: string, n: number): void {
    const left = (this.open.get(endpoint) ?? 0) + n;
    if (left > 0) this.open.set(endpoint, left);
    else this.open.delete(endpoint);
  }

  /** Forgets a claim of a queue (taken out, or given back). */
  private release(d: Claimed): void {
    this.opened(d.endpointId, -1);
    if (d.streamId === null) return;
    const held = this.holding.get(d.endpointId);
    held?.delete(d.streamId);
    if (held?.size === 0) this.holding.delete(d.endpointId);
  }

  /** Starts an endpoint's queued deliveries up to IN_FLIGHT; once all are started, claims from its queue again. */
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
      // More may be waiting: claim again without waiting for the next second.
      if (!this.closed) void this.pass(false).catch((err: unknown) => this.deps.log.error({ err }, 'webhooks pass failed'));
    }
  }

  /** Waits until nothing is in flight, and records what was sent. */
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
   * the rest, records every outcome and gives back what was not attempted.
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
    // left to their lease (a queue's: its claim marked run out; a row: pending again).
    const unstarted = [...this.queued.values()].flat().concat(this.abandoned);
    this.queued.clear();
    this.abandoned = [];
    const rows: string[] = [];
    const back = new Map<string, string[]>();
    for (const d of unstarted) {
      if (d.streamId === null) rows.push(d.id);
      else listIn(back, d.endpointId).push(d.streamId);
    }
    await releaseClaims(this.pool, this.deps.settings.prefix, rows);
    for (const [endpoint, ids] of back) await giveBack(this.deps, this.consumer, endpoint, ids, LEASE_MS);
    for (const d of unstarted) this.release(d);
  }

  /** Keeps how an attempt ended, to be recorded with others. */
  private settle(delivery: Claimed, outcome: Outcome): void {
    this.outcomes.push({ delivery, outcome });
    if (this.outcomes.length >= SETTLE_BATCH) void this.flush();
    else this.flushTimer ??= setTimeout(() => { void this.flush(); }, SETTLE_MS);
  }

  /**
   * Records the outcomes gathered (one transaction), after any record still under way, then takes
   * the queues' deliveries recorded out of their queues. A record that fails (Postgres away) is
   * tried again a second later; the claims are held meanwhile.
   */
  private flush(): Promise<void> {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.outcomes;
    this.outcomes = [];
    if (batch.length === 0) return this.flushing;
    const { prefix } = this.deps.settings;
    this.flushing = this.flushing.then(async () => {
      const rows: Settlement[] = [];
      const attempts: FirstAttempt[] = [];
      const taken = new Map<string, string[]>();
      for (const { delivery: d, outcome: o } of batch) {
        if (d.streamId === null) {
          rows.push({ id: d.id, ...o });
        } else {
          attempts.push({ delivery: d, ...o });
          listIn(taken, d.endpointId).push(d.streamId);
        }
      }
      await inTransaction(this.pool, async (client) => {
        await recordFirstAttempts(client, prefix, attempts);
        await settleMany(client, prefix, rows);
      });
      await takeOut(this.deps, taken);
      for (const { delivery } of batch) this.release(delivery);
      // An endpoint held back by its attempts waiting for their record may claim again.
      if (this.heldBack && !this.closed) {
        this.heldBack = false;
        this.kick();
      }
    }).catch((err: unknown) => {
      // Kept, to be recorded again (the claims held meanwhile, renewed by the passes); a process
      // that dies first leaves them to run out, and they are sent again under the same ids.
      this.deps.log.error({ err, deliveries: batch.length }, 'webhook deliveries not recorded: tried again in a second');
      this.outcomes.unshift(...batch);
      if (!this.closed) this.flushTimer ??= setTimeout(() => { void this.flush(); }, RETRY_RECORD_MS);
    });
    return this.flushing;
  }

  private async send(d: Claimed): Promise<void> {
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
