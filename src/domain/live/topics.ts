/**
 * Live updates' topics and the messages a client sends (docs/live.md): `user:<id>` (a key scoped
 * to one user: its own user only), `leaderboard:<key>`, and a league's cohort, `league:<key>` (a
 * key scoped to a user: the cohort it holds) or `league:<key>:<userId>` (that user's cohort: any
 * account key, or the user's own key), and the `{ "subscribe": [...], "since": {...} }` and
 * `{ "unsubscribe": [...] }` messages, checked here.
 *
 * A topic is stored and published under its id (src/engine/live/topic-store.ts): its name, but for
 * `league:<key>` of a user-scoped key, which is a topic per user: `league:<key>` NUL `<userId>`
 * (leagueTopicId). Its messages name it as the client wrote it (topicName); a client cannot
 * write a NUL, so no client names another user's id.
 */
import { USER_ID_MAX } from '../users.js';

/** Topics one socket may hold at once. */
export const MAX_TOPICS = 100;
/** The longest board key (the Admin API's `key`: 1 to 100 of `[a-zA-Z0-9_-]`). */
const BOARD_KEY_MAX = 100;
/**
 * The longest topic taken, in characters as a user id counts them (code points): the longest
 * form, `league:<key>:<userId>`, of the longest key and user id.
 */
const MAX_TOPIC_LENGTH = 'league:'.length + BOARD_KEY_MAX + 1 + USER_ID_MAX;

/** Whether a topic's name is past the longest (a code point is one or two UTF-16 units). */
function tooLong(name: string): boolean {
  return name.length > MAX_TOPIC_LENGTH && (name.length > 2 * MAX_TOPIC_LENGTH || [...name].length > MAX_TOPIC_LENGTH);
}

export type Topic =
  | { kind: 'user'; id: string; name: string }
  | { kind: 'leaderboard'; key: string; name: string }
  /** `user` null: `league:<key>`, the cohort of the key's own user. */
  | { kind: 'league'; key: string; user: string | null; name: string };

/** A topic's name as a client writes it. */
export const userTopic = (userId: string): string => `user:${userId}`;
export const boardTopic = (key: string): string => `leaderboard:${key}`;
/** `league:<key>:<userId>`: the cohort of a user named. */
export const leagueUserTopic = (key: string, userId: string): string => `league:${key}:${userId}`;
/** The id of `league:<key>` as a key scoped to `userId` holds it: a topic of its own per user. */
export const leagueTopicId = (key: string, userId: string): string => `league:${key}\u0000${userId}`;
/** The name a topic's messages carry: its id up to a NUL (leagueTopicId). */
export function topicName(id: string): string {
  const nul = id.indexOf('\u0000');
  return nul < 0 ? id : id.slice(0, nul);
}
/** Whether a topic is a user's own (every other topic is shared by the tenant's keys). */
export const isUserTopic = (name: string): boolean => name.startsWith('user:');

/** The topic a name says, or null for none. */
export function parseTopic(name: unknown): Topic | null {
  if (typeof name !== 'string' || tooLong(name) || name.includes('\u0000')) return null;
  if (name.startsWith('user:') && name.length > 5) return { kind: 'user', id: name.slice(5), name };
  if (name.startsWith('leaderboard:') && name.length > 12) return { kind: 'leaderboard', key: name.slice(12), name };
  if (name.startsWith('league:') && name.length > 7) {
    // A board's key holds no ':' (`^[a-zA-Z0-9_-]+$`): what follows the first is a user's id.
    const colon = name.indexOf(':', 7);
    if (colon < 0) return { kind: 'league', key: name.slice(7), user: null, name };
    if (colon === 7 || colon === name.length - 1) return null;
    return { kind: 'league', key: name.slice(7, colon), user: name.slice(colon + 1), name };
  }
  return null;
}

/** A client's message, checked. */
export type ClientMessage =
  | { op: 'subscribe'; topics: string[]; since: Map<string, number> }
  | { op: 'unsubscribe'; topics: string[] };

/** Why a client's message is refused: the message of an `invalid_body` error. */
export class BadMessage extends Error {}

/**
 * Reads a client's message (the text of a WebSocket message); throws BadMessage. Fields other than
 * `subscribe`, `unsubscribe` and `since` are ignored, as the Application API drops them.
 */
export function parseClientMessage(text: string): ClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadMessage('the message is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadMessage('the message must be a JSON object');
  const m = value as { subscribe?: unknown; unsubscribe?: unknown; since?: unknown };
  if ((m.subscribe === undefined) === (m.unsubscribe === undefined)) {
    throw new BadMessage('the message must hold one of "subscribe" and "unsubscribe"');
  }
  const list = m.subscribe ?? m.unsubscribe;
  const field = m.subscribe !== undefined ? 'subscribe' : 'unsubscribe';
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_TOPICS) {
    throw new BadMessage(`"${field}" must be an array of 1 to ${MAX_TOPICS} topics`);
  }
  for (const t of list) {
    if (parseTopic(t) === null) throw new BadMessage(`${JSON.stringify(t)} is not a topic ("user:<id>", "leaderboard:<key>", "league:<key>" or "league:<key>:<userId>")`);
  }
  const topics = [...new Set(list as string[])];
  if (m.subscribe === undefined) {
    if (m.since !== undefined) throw new BadMessage('"since" goes with "subscribe"');
    return { op: 'unsubscribe', topics };
  }
  const since = new Map<string, number>();
  if (m.since !== undefined) {
    if (typeof m.since !== 'object' || m.since === null || Array.isArray(m.since)) throw new BadMessage('"since" must be an object of topic -> sequence number');
    for (const [topic, seq] of Object.entries(m.since)) {
      if (!topics.includes(topic)) throw new BadMessage(`"since" names ${JSON.stringify(topic)}, which "subscribe" does not`);
      if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw new BadMessage(`"since" of ${JSON.stringify(topic)} must be a whole number of 0 or more`);
      since.set(topic, seq);
    }
  }
  return { op: 'subscribe', topics, since };
}

/** A message of the topic's history or channel, as much of it as the api reads: its sequence number and type. */
export interface Heard {
  seq: number;
  type: string;
  text: string;
}

/** Reads the sequence number and type of a message the publisher wrote (lua/includes/liveAdd.lua). */
export function heard(text: string): Heard {
  const s = text.indexOf('"seq":');
  const t = text.indexOf(',"type":"', s);
  return { seq: Number(text.slice(s + 6, t)), type: text.slice(t + 9, text.indexOf('"', t + 9)), text };
}

/**
 * What a client resuming a topic from `since` is sent (docs/live.md: "receives what it missed while the
 * log still holds it, else a resync"): the messages after it, when the history holds every one of
 * them up to `current` and none is a `resync`; else null (send a resync).
 */
export function resumeFrom(since: number, current: number, after: Heard[]): Heard[] | null {
  if (since === current) return [];
  if (since > current) return null;
  if (after.length !== current - since) return null;
  for (let i = 0; i < after.length; i++) {
    if (after[i].seq !== since + 1 + i || after[i].type === 'resync') return null;
  }
  return after;
}
