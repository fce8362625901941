/**
 * The live messages one entry of the event log calls for on its user's topic (docs/live.md):
 * the webhook events the log gives (src/domain/webhooks/events.ts), sent as they happen
 * rather than gathered (`points.changed` for each entry's awards, not once per 15-minute window).
 * The leaderboards' messages come from their rankings (src/engine/live/boards.ts).
 */
import type { UserView } from '../users.js';
import { eventsOfEntry, mayNotify, pointsChangedEvent, pointsChangedNotes, type ParsedEntry } from '../webhooks/events.js';
import type { WebhookType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';

/** The types an entry gives at once (eventsOfEntry), beside `points.changed`. */
const ENTRY_TYPES: ReadonlySet<WebhookType> = new Set([
  'achievement.completed', 'streak.started', 'streak.extended', 'points.level_changed', 'event.voided', 'achievement.revoked',
  'user.excluded', 'user.included',
]);

/** One message before the publisher numbers it: its type, and its data as JSON. */
export interface LiveChange {
  type: WebhookType;
  data: string;
}

/** Whether an entry may call for a live message, judged without parsing it (the webhooks' test). */
export const mayChange = mayNotify;

/** A webhook body (`{"type":"<type>",...payload}`) as a live message's data: the payload alone. */
export function dataOf(type: string, body: string): string {
  const head = `{"type":${JSON.stringify(type)}`;
  if (!body.startsWith(head)) throw new Error(`live: a webhook body that does not start with its type: ${body.slice(0, 40)}`);
  return body.length === head.length + 1 ? '{}' : `{${body.slice(head.length + 1)}`;
}

/**
 * The messages of one entry for its user's topic, in the order they happened: achievements,
 * the streak, each system's points and level. `user` null: the user is gone (nothing).
 */
export function changesOfEntry(prefix: string, entry: ParsedEntry, snapshot: Snapshot, user: UserView | null): LiveChange[] {
  if (user === null) return [];
  const out: LiveChange[] = [];
  const events = eventsOfEntry(prefix, entry, snapshot, user, ENTRY_TYPES);
  for (const ev of events) if (ev.type !== 'points.level_changed') out.push({ type: ev.type, data: dataOf(ev.type, ev.body) });
  for (const note of pointsChangedNotes(entry)) {
    const ev = pointsChangedEvent(prefix, snapshot, user, note, note.ts);
    if (ev !== null) out.push({ type: ev.type, data: dataOf(ev.type, ev.body) });
  }
  for (const ev of events) if (ev.type === 'points.level_changed') out.push({ type: ev.type, data: dataOf(ev.type, ev.body) });
  return out;
}
