/**
 * Notifications, the rules that need no I/O: the settings' defaults and view, the control group,
 * and who gets a notification (docs/notifications.md: "Who"). When: timing.ts; the
 * texts: templates.ts.
 */
import { createHash } from 'node:crypto';
import type { Channel, NotificationSettings, NotificationTemplate, NotificationType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { NotificationSettingsView } from '../../model/views.js';
import { userFilterOf } from '../filters.js';
import { isSubscribed, type UserHash } from '../users.js';

export const DEFAULT_TIME_ZONE = 'America/New_York';

/** The settings as the Admin API answers them (the defaults until set). */
export function notificationSettingsView(s: NotificationSettings | null): NotificationSettingsView {
  return {
    controlRatio: s?.controlRatio ?? 0,
    defaultTimeZone: s?.defaultTimeZone ?? DEFAULT_TIME_ZONE,
    email: { from: s?.email.from ?? null, replyTo: s?.email.replyTo ?? null },
    recap: { aggregation: s?.recap.aggregation ?? 'weekly' },
    publicUrl: s?.publicUrl ?? null,
    ...(s ? { updated: s.updated } : {}),
  };
}

/** Where a user falls in [0, 1): a stable hash of the tenant and the user id. */
export function controlPoint(tenant: string, userId: string): number {
  const digest = createHash('sha256').update(tenant).update('\n').update(userId).digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

/** The control ratio in force at `created` (ISO-8601): the last one set at or before it. */
export function ratioAt(settings: NotificationSettings | null, created: string): number {
  let ratio = 0;
  for (const [from, r] of settings?.controlRatios ?? []) {
    if (from <= created) ratio = r;
    else break;
  }
  return ratio;
}

/**
 * Whether a user is in the control group: assigned once, when the user was created, by the ratio
 * then in force (a later ratio moves nobody who exists); nothing is written on the event path.
 */
export function isControl(settings: NotificationSettings | null, tenant: string, h: UserHash): boolean {
  if (settings === null || h.created === undefined) return false;
  const ratio = ratioAt(settings, h.created);
  return ratio > 0 && controlPoint(tenant, h.id) < ratio;
}

/** Why a user gets no notification of a type on a channel (the delivery's `reason`). */
export type Suppression =
  | 'control' | 'unsubscribed' | 'no_email' | 'no_device_token' | 'preferences' | 'no_template' | 'no_transport' | 'user_not_found';

/** The channels the user takes a type on: a type never set counts as both. */
export function channelsFor(h: UserHash, type: NotificationType): Channel[] {
  const raw = h['n:' + type];
  return raw === undefined ? ['email', 'push'] : (JSON.parse(raw) as Channel[]);
}

/** The active template of a type and channel whose filters the user matches: the first created wins. */
export function templateFor(snapshot: Snapshot, type: NotificationType, channel: Channel, h: UserHash): NotificationTemplate | null {
  for (const t of snapshot.templates.values()) {
    if (t.status !== 'active' || t.type !== type || t.channel !== channel) continue;
    const flat = userFilterOf(t.userAttributes, snapshot);
    if (flat === null) continue;
    let match = true;
    for (let i = 0; i < flat.length && match; i += 2) match = h[flat[i]] === flat[i + 1];
    if (match) return t;
  }
  return null;
}

/**
 * Why the user's own choices or group keep an email of the type from them: the control group,
 * unsubscribed from all emails, or preferences without the email channel; null when none does.
 * What the `emails.*_due` webhooks respect too (src/engine/notifications/email-due.ts).
 */
export function emailRefusal(snapshot: Snapshot, tenant: string, h: UserHash, type: NotificationType): 'control' | 'unsubscribed' | 'preferences' | null {
  if (isControl(snapshot.notifications, tenant, h)) return 'control';
  if (!isSubscribed(h)) return 'unsubscribed';
  if (!channelsFor(h, type).includes('email')) return 'preferences';
  return null;
}

/** The template to send a user, or why none is sent ("Who", checked at send time). */
export function eligibility(
  snapshot: Snapshot, tenant: string, h: UserHash | null, type: NotificationType, channel: Channel,
): NotificationTemplate | Suppression {
  if (h === null || h.id === undefined) return 'user_not_found';
  if (isControl(snapshot.notifications, tenant, h)) return 'control';
  if (channel === 'email') {
    if (!isSubscribed(h)) return 'unsubscribed';
    if (!h.email) return 'no_email';
  } else if (!h.dt || (JSON.parse(h.dt) as string[]).length === 0) return 'no_device_token';
  if (!channelsFor(h, type).includes(channel)) return 'preferences';
  return templateFor(snapshot, type, channel, h) ?? 'no_template';
}
