/**
 * Recording webhook events that do not come from the log (src/domain/webhooks/clock-events.ts, the
 * windows of points.changed) for the active endpoints that subscribe to them: outside the drain's
 * transaction, each event's id names its occasion, so recording it again records nothing (or, for
 * one that coalesces, replaces its body while it waits).
 */
import type pg from 'pg';
import { clockEvents } from '../../domain/webhooks/clock-events.js';
import type { WebhookEvent } from '../../domain/webhooks/events.js';
import type { WebhookType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { recordDeliveries, type NewDelivery } from '../../postgres/webhooks/deliveries.js';
import type { Context } from '../context.js';

/** The types subscribed to by an active endpoint. */
export function subscribedTypes(snapshot: Snapshot): Set<WebhookType> {
  return new Set([...snapshot.webhooks.values()].filter((w) => w.status === 'active').flatMap((w) => w.events));
}

/** Records the events for every active endpoint that subscribes to their type; answers how many deliveries. */
export async function recordEvents(deps: Pick<Context, 'store' | 'settings' | 'clock'>, pool: pg.Pool, events: WebhookEvent[]): Promise<number> {
  const endpoints = [...deps.store.current.webhooks.values()].filter((w) => w.status === 'active');
  const deliveries: NewDelivery[] = [];
  for (const ev of events) {
    for (const w of endpoints) {
      if (w.events.includes(ev.type)) {
        deliveries.push({ endpointId: w.id, eventId: ev.id, type: ev.type, tenant: ev.tenant, userId: ev.userId, body: ev.body, dueAt: ev.at, coalesce: ev.coalesce });
      }
    }
  }
  if (deliveries.length === 0) return 0;
  const client = await pool.connect();
  try {
    await recordDeliveries(client, deps.settings.prefix, deliveries, deps.clock.now());
  } finally {
    client.release();
  }
  return deliveries.length;
}

/**
 * The clock's events due now (boosts, runs about to start), recorded; `seen` holds the ids this
 * process recorded already (each stays due for a day: they are not written again every pass).
 */
export async function recordClockEvents(deps: Pick<Context, 'store' | 'settings' | 'clock'>, pool: pg.Pool, seen: Set<string>): Promise<number> {
  const snapshot = deps.store.current;
  const wanted = subscribedTypes(snapshot);
  if (wanted.size === 0) return 0;
  const events = clockEvents(deps.settings.prefix, snapshot, deps.clock.now(), wanted).filter((e) => !seen.has(`${snapshot.version}|${e.id}`));
  const n = await recordEvents(deps, pool, events);
  if (seen.size > 10_000) seen.clear();
  // By configuration version too: an endpoint added later records the events again (for itself).
  for (const e of events) seen.add(`${snapshot.version}|${e.id}`);
  return n;
}
