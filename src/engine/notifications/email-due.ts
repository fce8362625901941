/**
 * The `emails.*_due` webhooks (docs/webhooks.md): when an email of the notifications is due, an
 * endpoint subscribed to its type hears of it, whether or not a template would send it and laurel
 * has a transport, so a customer may send its own; not for the control group, a user unsubscribed
 * from all emails, nor one whose preferences for the type leave email out, as none of them gets the
 * email (src/domain/notifications/rules.ts emailRefusal). Recorded at send time by the notifications worker (src/engine/notifications/send.ts), its id named after the delivery: a
 * retried attempt records nothing more.
 */
import type pg from 'pg';
import { emailRefusal } from '../../domain/notifications/rules.js';
import { userView } from '../../domain/users.js';
import { eventId } from '../../domain/webhooks/events.js';
import type { NotificationType, WebhookType } from '../../model/entities.js';
import type { Delivery } from '../../postgres/notifications/deliveries.js';
import type { Context } from '../context.js';
import { recordEvents, subscribedTypes } from '../webhooks/record.js';

/** The `emails.*_due` webhook of each notification type. */
export const EMAIL_DUE: Record<NotificationType, WebhookType> = {
  achievement_completed: 'emails.achievement_due', streak_reminder: 'emails.streak_reminder_due',
  reactivation: 'emails.reactivation_due', recap: 'emails.recap_due',
};

export async function recordEmailDue(
  deps: Pick<Context, 'store' | 'settings' | 'clock'>, pool: pg.Pool, d: Delivery, h: Record<string, string>, content: Record<string, unknown>,
): Promise<void> {
  const type = EMAIL_DUE[d.type];
  const snapshot = deps.store.current;
  if (type === undefined || !subscribedTypes(snapshot).has(type)) return;
  if (emailRefusal(snapshot, d.tenant, h, d.type) !== null) return;
  const now = deps.clock.now();
  const payload = d.type === 'achievement_completed' ? { achievement: content.achievement } : content;
  await recordEvents(deps, pool, [{
    type, id: eventId([deps.settings.prefix, type, d.id]), tenant: d.tenant, userId: d.userId, at: now, coalesce: false,
    body: JSON.stringify({ type, timestamp: new Date(now).toISOString(), user: userView(h, false), ...payload }),
  }]);
}
