/**
 * Sending the webhook deliveries that are due (workers/webhooks.ts): claimed in Postgres
 * (src/postgres/webhook-deliveries.ts), POSTed signed both ways (src/domain/webhook-signing.ts) with
 * a 15 s timeout, at most IN_FLIGHT at a time per endpoint (a slow receiver holds up only its own
 * deliveries), and settled: a 2xx is `delivered`; anything else is tried again after the backoff
 * below, then `failed`; a `410 Gone` fails it and disables the endpoint. Due times follow the
 * service's clock (the manual clock moves retries too).
 */
import { lookup } from 'node:dns/promises';
import { isPrivateAddress } from './addresses.js';
import { signedHeaders } from '../../domain/webhook-signing.js';
import type { Webhook } from '../../model/entities.js';
import { claimDue, settle, type WebhookDelivery } from '../../postgres/webhook-deliveries.js';
import { recordClockEvents, subscribedTypes } from './record.js';
import { recordLosses } from './losses.js';
import type { Context } from '../context.js';
import type pg from 'pg';

/** The wait before each retry (ms): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h; then failed. */
export const BACKOFF_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
export const TIMEOUT_MS = 15_000;
/** Deliveries in flight at once per endpoint. */
export const IN_FLIGHT = 4;
const CLAIM = 200;

export interface SendResult {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings' | 'log'>;

/** The secrets in force for an endpoint at `nowMs`, newest first. */
function secretsOf(w: Webhook, nowMs: number): string[] {
  const previous = w.previousSecret !== null && w.previousUntil !== null && Date.parse(w.previousUntil) > nowMs;
  return previous ? [w.secret, w.previousSecret!] : [w.secret];
}

/** Why the URL's host may not be sent to (it resolves to a private address), or null. */
async function addressProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = await lookup(host, { all: true });
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  return inside === undefined ? null : `${host} resolves to ${inside.address}, a private address (LAUREL_WEBHOOKS_ALLOW_PRIVATE=1 allows it)`;
}

/** One attempt: the receiver's status, or an error (network, timeout, refused address). */
async function attempt(deps: Deps, w: Webhook, d: WebhookDelivery): Promise<{ status: number | null; error: string | null }> {
  try {
    const refused = await addressProblem(w.url, deps.settings.webhooksAllowPrivate);
    if (refused !== null) return { status: null, error: refused };
    // The secrets in force on the service's clock; the timestamp a receiver checks against its own
    // clock (Standard Webhooks allows minutes of skew) is the wall time, whatever the service's clock says.
    const headers = signedHeaders(secretsOf(w, deps.clock.now()), d.eventId, Math.floor(Date.now() / 1000), d.body);
    const res = await fetch(w.url, {
      method: 'POST', body: d.body, headers,
      signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual',
    });
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status, error: res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}` };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return { status: null, error: e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : e.cause?.code ?? e.message };
  }
}

/**
 * The sender of one worker process: each pass claims what is due for the endpoints with a free slot
 * and sends it without waiting for it, so a receiver that takes its 15 s holds up only its own
 * deliveries; `idle()` waits for every send in flight.
 */
export class WebhookSender {
  private readonly deps: Deps;
  private readonly pool: pg.Pool;
  private readonly inFlight = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  readonly totals: SendResult = { claimed: 0, delivered: 0, retried: 0, failed: 0 };

  constructor(deps: Deps, pool: pg.Pool) {
    this.deps = deps;
    this.pool = pool;
  }

  /** The clock's events this process recorded already (src/engine/webhooks/record.ts). */
  private readonly seen = new Set<string>();

  /** Records the clock's events due now, then claims and starts what is due; answers how many were claimed. */
  async pass(): Promise<number> {
    const { clock, settings, store } = this.deps;
    if (store.current.webhooks.size === 0) return 0;
    await recordClockEvents(this.deps, this.pool, this.seen);
    if (subscribedTypes(store.current).has('streak.lost')) await recordLosses(this.deps, this.pool);
    const free: Record<string, number> = {};
    for (const [endpoint, n] of this.inFlight) free[endpoint] = Math.max(0, IN_FLIGHT - n);
    const due = await claimDue(this.pool, settings.prefix, clock.now(), CLAIM, TIMEOUT_MS * 4, free, IN_FLIGHT);
    this.totals.claimed += due.length;
    for (const d of due) {
      this.inFlight.set(d.endpointId, (this.inFlight.get(d.endpointId) ?? 0) + 1);
      const p = this.send(d).catch((err: unknown) => this.deps.log.error({ err, delivery: d.id }, 'webhook delivery not settled'))
        .finally(() => {
          this.inFlight.set(d.endpointId, (this.inFlight.get(d.endpointId) ?? 1) - 1);
          this.sending.delete(p);
        });
      this.sending.add(p);
    }
    return due.length;
  }

  /** Waits until nothing is in flight. */
  async idle(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  private async send(d: WebhookDelivery): Promise<void> {
    const { deps, pool } = this;
    const { store, clock, settings } = deps;
    const result = this.totals;
    const w = store.current.webhooks.get(d.endpointId);
    if (w === undefined || w.status !== 'active') {
      // Deleted or switched off since it was recorded: not sent (a retry sends it once it is active).
      const error = w === undefined ? 'endpoint deleted' : `endpoint ${w.status}`;
      await settle(pool, settings.prefix, d.id, { status: 'failed', lastStatus: null, error, at: clock.now() });
      result.failed++;
      return;
    }
    const { status, error } = await attempt(deps, w, d);
    const at = clock.now();
    if (error === null) {
      await settle(pool, settings.prefix, d.id, { status: 'delivered', lastStatus: status, error: null, at });
      result.delivered++;
    } else if (status === 410) {
      await settle(pool, settings.prefix, d.id, { status: 'failed', lastStatus: status, error: '410 Gone: the endpoint is disabled', at });
      const now = store.current.webhooks.get(w.id);
      if (now !== undefined && now.status === 'active') {
        await store.put('webhooks', 'update', { ...now, status: 'disabled', updated: new Date(at).toISOString() });
        deps.log.warn({ endpoint: w.id, url: w.url }, 'webhook endpoint answered 410 Gone: disabled');
      }
      result.failed++;
    } else if (d.attempts < BACKOFF_MS.length) {
      await settle(pool, settings.prefix, d.id, { status: 'pending', nextAt: at + BACKOFF_MS[d.attempts], lastStatus: status, error, at });
      result.retried++;
    } else {
      await settle(pool, settings.prefix, d.id, { status: 'failed', lastStatus: status, error, at });
      result.failed++;
    }
  }
}
