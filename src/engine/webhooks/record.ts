/**
 * Recording webhook events that do not come from the log (src/domain/webhooks/clock-events.ts, the
 * windows of points.changed) for the active endpoints that subscribe to them: outside the drain's
 * transaction, each event's id names its occasion, so recording it again records nothing (or, for
 * one that coalesces, replaces its body while it waits). The clock's events a live topic takes are
 * published there too while some socket wants a topic (src/engine/live/clock.ts).
 */
import type pg from 'pg';
import { clockEvents } from '../../domain/webhooks/clock-events.js';
import type { WebhookEvent } from '../../domain/webhooks/events.js';
import type { WebhookType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { recordDeliveries, type NewDelivery } from '../../postgres/webhooks/deliveries.js';
import type { Context } from '../context.js';
import { LIVE_CLOCK_TYPES, publishClockEvents } from '../live/clock.js';
import type { LiveInterest } from '../live/wanted.js';

/** The types subscribed to by an active endpoint. */
export function subscribedTypes(snapshot: Snapshot): Set<WebhookType> {
  return new Set([...snapshot.webhooks.values()].filter((w) => w.status === 'active').flatMap((w) => w.events));
}

/**
 * The types the clock's passes make: those an active endpoint subscribes to, and the live ones
 * while a socket wants a topic (`live`: the topics wanted; null while none is).
 */
export interface ClockWanted {
  types: Set<WebhookType>;
  live: LiveInterest | null;
}

export function clockWanted(deps: Pick<Context, 'store'>, interest: LiveInterest): ClockWanted {
  const types = subscribedTypes(deps.store.current);
  const live = interest.any() ? interest : null;
  if (live !== null) for (const t of LIVE_CLOCK_TYPES) types.add(t);
  return { types, live };
}

/** Records the clock's events for the endpoints, and publishes them on the live topics wanted; answers how many deliveries. */
export async function announce(
  deps: Pick<Context, 'store' | 'settings' | 'clock' | 'redis' | 'keys'>, pool: pg.Pool, events: WebhookEvent[], live: LiveInterest | null,
): Promise<number> {
  const recorded = await recordEvents(deps, pool, events);
  if (live !== null) await publishClockEvents(deps, live, events);
  return recorded;
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
 * process recorded already (each stays due for a day: they are not written again every pass). The
 * live topics are offered every due event each pass (each topic takes it once: src/engine/live/clock.ts),
 * so a topic wanted just after the event came due still gets it while it is news.
 */
export async function recordClockEvents(
  deps: Pick<Context, 'store' | 'settings' | 'clock' | 'redis' | 'keys'>, pool: pg.Pool, seen: Set<string>, wanted: ClockWanted,
): Promise<number> {
  const snapshot = deps.store.current;
  if (wanted.types.size === 0) return 0;
  const due = clockEvents(deps.settings.prefix, snapshot, deps.clock.now(), wanted.types);
  const events = due.filter((e) => !seen.has(`${snapshot.version}|${e.id}`));
  const n = await recordEvents(deps, pool, events);
  if (wanted.live !== null) await publishClockEvents(deps, wanted.live, due);
  if (seen.size > 10_000) seen.clear();
  // By configuration version too: an endpoint added later records the events again (for itself).
  for (const e of events) seen.add(`${snapshot.version}|${e.id}`);
  return n;
}
