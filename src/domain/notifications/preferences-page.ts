/**
 * The preferences page behind the links of emails (`GET /unsubscribe/{token}`, `GET
 * /preferences/{token}`): a plain HTML page that works without JavaScript. First one button,
 * "Unsubscribe from all emails" (or, once unsubscribed with the address kept, "Subscribe again");
 * then one checkbox per type and channel the user can receive, ticked as the user gets it today.
 * Both post back to the same address as application/x-www-form-urlencoded: `choice=unsubscribe` or
 * `choice=subscribe`, or the types' `<type>=<channel>` pairs with `shown=<channel>` for each
 * channel the form showed (a channel not shown keeps what is stored). And the reading of that form.
 */
import { CHANNELS, NOTIFICATION_TYPES, type Channel, type NotificationType } from '../../model/entities.js';

const TYPE_LABELS: Record<NotificationType, string> = {
  achievement_completed: 'Achievements you unlock',
  recap: 'Your weekly or monthly recap',
  reactivation: 'Reminders when you have been away',
  streak_reminder: 'Reminders to keep your streak',
};

const CHANNEL_LABELS: Record<Channel, string> = { email: 'By email', push: 'On your phone' };

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageState {
  /** The channels of each type the user has chosen (a type never set: both). */
  channels: Record<NotificationType, Channel[]>;
  subscribed: boolean;
  /** Whether laurel still has the user's address (a resubscribe needs one). */
  hasEmail: boolean;
  /** Whether the user has a device to push to (the push boxes are shown only then). */
  hasDevice: boolean;
  /** A line above the form ('' for none). */
  notice: string;
}

export function preferencesPage(action: string, state: PageState): string {
  const shown = CHANNELS.filter((c) => c === 'email' || state.hasDevice);
  const form = (body: string) => `<form method="post" action="${escape(action)}">\n${body}\n</form>`;
  let main: string;
  if (!state.subscribed) {
    main = '<p>You are unsubscribed from all emails.</p>\n'
      + (state.hasEmail ? form('<p><button type="submit" name="choice" value="subscribe">Subscribe again</button></p>') : '');
  } else {
    const rows = NOTIFICATION_TYPES.map((type) => {
      const boxes = shown.map((channel) => {
        const checked = state.channels[type].includes(channel) ? ' checked' : '';
        return `<label><input type="checkbox" name="${type}" value="${channel}"${checked}> ${CHANNEL_LABELS[channel]}</label>`;
      }).join(' ');
      return `<tr><td>${escape(TYPE_LABELS[type])}</td><td>${boxes}</td></tr>`;
    }).join('\n');
    main = form('<p><button type="submit" name="choice" value="unsubscribe">Unsubscribe from all emails</button></p>')
      + '\n<h2>Or choose what you hear about</h2>\n'
      + form(`${shown.map((c) => `<input type="hidden" name="shown" value="${c}">`).join('\n')}
<table>
${rows}
</table>
<p><button type="submit">Save my choices</button></p>`);
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Email preferences</title></head>
<body>
<h1>Email preferences</h1>
${state.notice === '' ? '' : `<p><strong>${escape(state.notice)}</strong></p>`}
${main}
</body></html>
`;
}

/** What a posted form asks: to unsubscribe from all, to subscribe again, or the types' channels. */
export type FormChoice =
  | { choice: 'unsubscribe' | 'subscribe' }
  | { choice: 'types'; notifications: Record<NotificationType, Channel[]> };

/**
 * The choice a posted form makes. For the types: every type, each the channels ticked plus, of
 * `current`, those the form did not show (no `shown` field: every channel shown); null when a
 * pair names no type, channel or choice.
 */
export function preferencesOfForm(body: string, current: Record<NotificationType, Channel[]>): FormChoice | null {
  const params = new URLSearchParams(body);
  const choice = params.get('choice');
  if (choice === 'unsubscribe' || choice === 'subscribe') return { choice };
  if (choice !== null) return null;
  const isChannel = (c: string): c is Channel => (CHANNELS as readonly string[]).includes(c);
  const shownList = params.getAll('shown');
  if (!shownList.every(isChannel)) return null;
  const shown = new Set<Channel>(shownList.length === 0 ? CHANNELS : shownList as Channel[]);
  const out = Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, current[t].filter((c) => !shown.has(c))])) as Record<NotificationType, Channel[]>;
  for (const [type, channel] of params) {
    if (type === 'shown') continue;
    if (!(NOTIFICATION_TYPES as readonly string[]).includes(type) || !isChannel(channel)) return null;
    const list = out[type as NotificationType];
    if (!list.includes(channel)) list.push(channel);
  }
  for (const t of NOTIFICATION_TYPES) out[t] = CHANNELS.filter((c) => out[t].includes(c));
  return { choice: 'types', notifications: out };
}
