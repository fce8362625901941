/**
 * `reactivation` (docs/notifications.md): after 3, 5, 7, 14 and 30 days without an event, at 17:00
 * local. While a template of the type exists, the log drainer notes each user's last active day in
 * the due index (src/engine/notifications/due-index.ts), which makes the first message of the
 * absence a delivery when it may be due; sending one message schedules the next. A message whose
 * absence has ended (a later active day noted, or a later absence on record) is cancelled when
 * due, reason `active`.
 */
import { REACTIVATION_DAYS, reactivationDue } from '../../domain/notifications/timing.js';
import type { Delivery, Occasion } from '../../postgres/notifications/deliveries.js';

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
