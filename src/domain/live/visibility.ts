/**
 * What a client key may see of other users on a shared topic (docs/live.md, "What a client key
 * may see"). A key scoped to one user is handed to that user's device; a shared topic
 * (`leaderboard:<key>`, `league:<key>`, any topic but `user:<id>`) is open to every such key of the tenant, so its
 * messages carry of any user only what the public rankings show (`GET /v1/leaderboards/{key}`):
 * the id, the name, the rank and the value. Never an email, a device token, an attribute, the
 * control flag, a time zone or a preference. A user's own topic may carry the user's own profile.
 *
 * This is the one place the rule is written: every message of a shared topic is made by
 * `sharedMessage`, which keeps a field only where this file names it, and the topic store refuses
 * any other (src/engine/live/topic-store.ts). A new type of message on a shared topic is refused
 * until it is named here.
 */

/** Another user as a shared topic shows them. */
export interface PublicUser {
  id: string;
  name: string | null;
}

/** A place in a ranking as a shared topic shows it. */
export interface PublicRanked {
  userId: string;
  userName?: string | null;
  rank: number;
  value: number;
}

/** A message of a live topic: its type, and its data as JSON. */
export interface TopicMessage {
  type: string;
  data: string;
}

/** A message made by `sharedMessage`: its data holds public fields only. */
export type SharedMessage = TopicMessage & { readonly shared: true };

const made = new WeakSet<object>();

/** Whether a message was made by `sharedMessage` (the topic store's check). */
export function isShared(m: TopicMessage): m is SharedMessage {
  return made.has(m);
}

/** The public fields of a user. */
export function publicUser(user: { id: string; name?: string | null }): PublicUser {
  return { id: user.id, name: user.name ?? null };
}

/** The public fields of a place in a ranking. */
export function publicRanked(r: PublicRanked): PublicRanked {
  return r.userName === undefined ? { userId: r.userId, rank: r.rank, value: r.value } : { userId: r.userId, userName: r.userName, rank: r.rank, value: r.value };
}

/** A board as a shared message carries it: its configuration and run, its rankings' public fields. */
function publicBoard(board: Record<string, unknown>): Record<string, unknown> {
  const rankings = board.rankings;
  return Array.isArray(rankings) ? { ...board, rankings: (rankings as PublicRanked[]).map(publicRanked) } : { ...board };
}

function shared(type: string, data: unknown): SharedMessage {
  const m = { type, data: JSON.stringify(data), shared: true as const };
  made.add(m);
  return m;
}

/** The `resync` of any topic: it names nobody. */
export function resyncMessage(): SharedMessage {
  return shared('resync', null);
}

/**
 * A message for a shared topic, its data cut to the public fields. `data` is the payload a
 * webhook of the type carries (or the user's own topic); a type not named here throws.
 */
export function sharedMessage(type: string, data: object): SharedMessage {
  const d = data as { user?: PublicUser; leaderboard?: Record<string, unknown> };
  switch (type) {
    case 'leaderboard.rank_changed':
      if (d.user === undefined || d.leaderboard === undefined) throw new Error(`live: a ${type} without its user or board`);
      return shared(type, { user: publicUser(d.user), leaderboard: publicBoard(d.leaderboard) });
    case 'leaderboard.changed':
    case 'leaderboard.started':
    case 'leaderboard.finished':
      if (d.leaderboard === undefined) throw new Error(`live: a ${type} without its board`);
      return shared(type, { leaderboard: publicBoard(d.leaderboard) });
    default:
      throw new Error(`live: "${type}" is not a message of a shared topic (src/domain/live/visibility.ts)`);
  }
}
