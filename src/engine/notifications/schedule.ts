/**
 * Scheduling `achievement_completed` emails from the completions the log drainer meets
 * (src/engine/log-drain/notifications.ts): each completion joins the delivery of its user's local day
 * (src/domain/notifications/timing.ts), written in the same transaction that archives the entry,
 * so a completion is scheduled exactly once however many drainers run. Nothing here runs on the
 * event's request path.
 */
import type pg from 'pg';
import type { Channel, NotificationType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { DEFAULT_TIME_ZONE } from '../../domain/notifications/rules.js';
import { achievementDue, nextDay } from '../../domain/notifications/timing.js';
import type { LoggedCompletion } from '../../model/log.js';
import { schedule, type Occasion } from '../../postgres/notifications/deliveries.js';
import { subscribedTypes } from '../webhooks/record.js';
import { EMAIL_DUE } from './email-due.js';
import type { Context } from '../context.js';

/** A delivery to schedule with the zone it is timed in (a later occasion is the next local day). */
export interface Planned {
  occasion: Occasion;
  tz: string;
}

/**
 * The deliveries the completions call for: one per user and local day, on the channels with a
 * template of the type (active or not: one that is inactive at send time suppresses it, and the
 * list shows why). None while no template of the type exists: an installation without
 * notifications writes nothing. Reads each user's zone.
 */
export async function plannedDeliveries(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>, completions: LoggedCompletion[]): Promise<Planned[]> {
  if (completions.length === 0) return [];
  const snapshot = deps.store.current;
  const channels = channelsOf(snapshot, 'achievement_completed');
  if (channels.length === 0) return [];
  // One read per user, sent together (on a Cluster each to its own slot).
  const zones = await Promise.all(completions.map((c) => deps.redis.hget(deps.keys.forUser(c.tenant, c.userId).user, 'tz')));
  const fallback = snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE;
  const now = deps.clock.now();
  return completions.flatMap((c, i) => {
    const tz = zones[i] || fallback;
    const due = achievementDue(tz, c.ts, now);
    const items = Object.fromEntries(c.achievementIds.map((id) => [id, c.ts]));
    return channels.map((channel) => ({
      tz, occasion: { tenant: c.tenant, userId: c.userId, type: 'achievement_completed' as const, channel, occasion: due.day, at: due.at, items },
    }));
  });
}

/**
 * The channels a delivery of the type is scheduled on: those with a template of the type (active or
 * not), and email while an active webhook endpoint subscribes to the type's `emails.*_due` (which
 * fires when the email is due, template or not: src/engine/notifications/email-due.ts).
 */
export function channelsOf(snapshot: Snapshot, type: NotificationType): Channel[] {
  const channels = new Set([...snapshot.templates.values()].filter((t) => t.type === type).map((t) => t.channel));
  if (subscribedTypes(snapshot).has(EMAIL_DUE[type])) channels.add('email');
  return [...channels];
}

/**
 * Schedules the deliveries (inside the archive's transaction): a completion whose day's message
 * has gone already without it joins the next day's.
 */
export async function scheduleAll(client: pg.ClientBase, prefix: string, planned: Planned[], now: number): Promise<void> {
  for (const { occasion, tz } of planned) {
    let o = occasion;
    for (let tries = 0; tries < 7 && !(await schedule(client, prefix, o, now)); tries++) {
      o = { ...o, ...toOccasion(nextDay(tz, o.occasion)) };
    }
  }
}

function toOccasion(due: { day: string; at: number }): Pick<Occasion, 'occasion' | 'at'> {
  return { occasion: due.day, at: due.at };
}
