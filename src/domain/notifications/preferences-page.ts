/**
 * The preferences page behind the links of emails (`GET /preferences/{token}`): a plain HTML form
 * that works without JavaScript, one checkbox per type and channel, posted back to the same
 * address as application/x-www-form-urlencoded (`<type>=<channel>` pairs); and the reading of
 * that form into the preferences `PATCH /users/{id}/preferences` takes.
 */
import { CHANNELS, NOTIFICATION_TYPES, type Channel, type NotificationType } from '../../model/entities.js';

const LABELS: Record<NotificationType, string> = {
  achievement_completed: 'Achievements you unlock',
  recap: 'Your weekly or monthly recap',
  reactivation: 'Reminders when you have been away',
  streak_reminder: 'Reminders to keep your streak',
};

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageState {
  /** The channels of each type (a type never set: both). */
  channels: Record<NotificationType, Channel[]>;
  subscribed: boolean;
  /** A line above the form ('' for none). */
  notice: string;
}

export function preferencesPage(action: string, state: PageState): string {
  const rows = NOTIFICATION_TYPES.map((type) => {
    const boxes = CHANNELS.map((channel) => {
      const checked = state.channels[type].includes(channel) ? ' checked' : '';
      return `<label><input type="checkbox" name="${type}" value="${channel}"${checked}> ${channel}</label>`;
    }).join(' ');
    return `<tr><td>${escape(LABELS[type])}</td><td>${boxes}</td></tr>`;
  }).join('\n');
  const unsubscribed = state.subscribed ? '' : '<p>You are unsubscribed from all emails.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Notification preferences</title></head>
<body>
<h1>Notification preferences</h1>
${state.notice === '' ? '' : `<p><strong>${escape(state.notice)}</strong></p>`}
${unsubscribed}
<form method="post" action="${escape(action)}">
<table>
${rows}
</table>
<p><button type="submit">Save</button></p>
</form>
</body></html>
`;
}

/** The preferences a posted form sets: every type, unchecked ones off (an empty list); null when a pair names no type or channel. */
export function preferencesOfForm(body: string): Record<NotificationType, Channel[]> | null {
  const out = Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, [] as Channel[]])) as Record<NotificationType, Channel[]>;
  for (const [type, channel] of new URLSearchParams(body)) {
    if (!(NOTIFICATION_TYPES as readonly string[]).includes(type) || !(CHANNELS as readonly string[]).includes(channel)) return null;
    const list = out[type as NotificationType];
    if (!list.includes(channel as Channel)) list.push(channel as Channel);
  }
  return out;
}
