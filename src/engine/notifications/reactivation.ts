/**
 * `reactivation` (API.md, "Notifications"): after 3, 5, 7, 14 and 30 days without an event, at 17:00
 * local. While a template of the type exists, the log drainer notes each user's last active day of
 * a pass (workers/log-drain.ts) and schedules the first message of that absence, dropping the one
 * of an earlier absence still scheduled; sending one message schedules the next. A message whose
 * absence has ended (a later one is on record) is cancelled when due, reason `active`.
 */
import type pg from 'pg';
import { DEFAULT_TIME_ZONE } from '../../domain/notifications.js';
import { REACTIVATION_DAYS, reactivationDue } from '../../domain/notification-timing.js';
import type { LogBody } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import { dropEarlierMany, scheduleMany, type Delivery, type Occasion } from '../../postgres/deliveries.js';
import { channelsOf } from './schedule.js';

export function reactivationWanted(snapshot: Snapshot): boolean {
  return channelsOf(snapshot, 'reactivation').length > 0;
}

/** The occasions of message 1 for each user's last active day among the events of a pass. */
export function plannedReactivations(snapshot: Snapshot, events: LogBody[], zones: (string | null)[], now: number): Occasion[] {
  const fallback = snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE;
  const last = new Map<string, { tenant: string; userId: string; day: string; tz: string }>();
  events.forEach((e, i) => {
    if (e.t === undefined || e.u === undefined || e.d === undefined) return;
    const key = `${e.t}\u0000${e.u}`;
    const held = last.get(key);
    if (held === undefined || held.day < e.d) last.set(key, { tenant: e.t, userId: e.u, day: e.d, tz: zones[i] || fallback });
  });
  const channels = channelsOf(snapshot, 'reactivation');
  const out: Occasion[] = [];
  for (const { tenant, userId, day, tz } of last.values()) {
    const due = reactivationDue(tz, day, 1);
    if (due.at <= now) continue;
    for (const channel of channels) {
      out.push({ tenant, userId, type: 'reactivation', channel, occasion: due.day, at: due.at, items: { n: 1 } });
    }
  }
  return out;
}

/** Schedules them (in the archive's transaction), each dropping its user's earlier absence still scheduled. */
export async function scheduleReactivations(client: pg.ClientBase, prefix: string, occasions: Occasion[], now: number): Promise<void> {
  // (A recap's occasion is one per period: nothing earlier to drop.)
  await dropEarlierMany(client, prefix, occasions.filter((o) => o.type === 'reactivation'));
  await scheduleMany(client, prefix, occasions, now);
}

/** The absence a reactivation delivery speaks of: its last active day and message number. */
export function absenceOf(d: Pick<Delivery, 'occasion'>): { lastDay: string; n: number } {
  const [, lastDay, n] = d.occasion.split(':');
  return { lastDay, n: Number(n) };
}

/** The next message of a sent one's absence, or null after the fifth. */
export function nextReactivation(d: Delivery, tz: string): Occasion | null {
  const { lastDay, n } = absenceOf(d);
  if (n >= REACTIVATION_DAYS.length) return null;
  const due = reactivationDue(tz, lastDay, n + 1);
  return { tenant: d.tenant, userId: d.userId, type: 'reactivation', channel: d.channel, occasion: due.day, at: due.at, items: { n: n + 1 } };
}
