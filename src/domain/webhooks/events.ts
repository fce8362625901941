/**
 * The webhook events one entry of the event log calls for (docs/webhooks.md; payloads in Trophy's
 * shapes, reference/notifications.md), each with its `webhook-id`: a hash of what names the event,
 * so the same entry gives the same id in every worker process and after any restart.
 *
 * - `achievement.completed`: an event's or an API completion's achievements (`ac`); a backfill's
 *   completions are silent (its entry carries none);
 * - `streak.started` (length 1) or `streak.extended`: an event that extended the streak (`sx`);
 * - `points.changed`: the awards of a system (`pa`), gathered over fixed 15-minute windows of the
 *   service's clock into one delivery per user and system, sent when its window ends with the
 *   latest state (at most one per 15 minutes): each entry only notes its awards
 *   (`pointsChangedNotes`), the event is made when the window ends (`pointsChangedEvent`,
 *   src/engine/webhooks/points-changed.ts);
 * - `points.level_changed`: an award that moved the user's level in its system;
 * - `event.voided`: a `voided` entry (src/engine/fairplay/void.ts): the event, what was taken off,
 *   the reason (its awards of the opposite sign make `points.changed` as any);
 * - `achievement.revoked`: a `revoked` entry (src/engine/fairplay/revoke.ts);
 * - `user.excluded`, `user.included`: an `excluded` or `included` entry (src/engine/fairplay/exclude.ts).
 * `user` is the user as the worker reads them (its `GET /users/{id}` shape).
 */
import { createHash } from 'node:crypto';
import { userAchievementView } from '../achievements.js';
import { dayIndexOf } from '../periods.js';
import { levelOf, levelView, pointsChanges } from '../points/rules.js';
import { stateFromHash, streakView } from '../streaks/state.js';
import type { UserView } from '../users.js';
import type { WebhookType } from '../../model/entities.js';
import { PAUSES_FIELD, STREAK_FIELD } from '../../model/fields.js';
import type { EventAward, LogBody } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';

/** How long `points.changed` gathers a user's awards of one system (ms). */
export const POINTS_WINDOW_MS = 15 * 60_000;

export interface WebhookEvent {
  type: WebhookType;
  /** The `webhook-id`: `msg_` and 32 hex digits. */
  id: string;
  tenant: string;
  userId: string;
  /** The JSON body: `{ "type": ..., ...payload }`. */
  body: string;
  /** When it is due (ms, the service's clock). */
  at: number;
  /** A later event with the same id replaces this one's body while it is not sent (points.changed). */
  coalesce: boolean;
}

/** An entry as the drainer parsed it. */
export interface ParsedEntry {
  id: string;
  kind: string;
  e: LogBody;
}

export function eventId(parts: (string | number)[]): string {
  return 'msg_' + createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** Whether an entry may call for a webhook event, judged without parsing it. */
export function mayNotify(kind: string, fields: string[]): boolean {
  // An event's script adds fields after the body (sx, sp, pa, ac) only when it extended, awarded or
  // completed.
  if (kind === 'event') return fields.length > 2;
  return kind === 'achievement' || kind === 'points' || kind === 'freezes' || kind === 'voided' || kind === 'revoked'
    || kind === 'excluded' || kind === 'included';
}

/**
 * The events of `wanted` types one entry calls for. `user` null: the user is gone (nothing is
 * sent). `prefix` names the installation (ids differ between installations sharing a receiver).
 */
export function eventsOfEntry(
  prefix: string, entry: ParsedEntry, snapshot: Snapshot, user: UserView | null, wanted: ReadonlySet<WebhookType>,
): WebhookEvent[] {
  const { e } = entry;
  if (user === null || e.t === undefined || e.u === undefined || e.ts === undefined) return [];
  const tenant = e.t;
  const userId = e.u;
  const ts = e.ts;
  const out: WebhookEvent[] = [];
  const add = (type: WebhookType, idParts: (string | number)[], payload: Record<string, unknown>, at = ts, coalesce = false) => {
    if (!wanted.has(type)) return;
    out.push({ type, id: eventId([prefix, type, ...idParts]), tenant, userId, body: JSON.stringify({ type, ...payload }), at, coalesce });
  };
  if (entry.kind === 'voided') {
    const metric = snapshot.metrics.get(e.m ?? '');
    add('event.voided', [entry.id], {
      user, event: { id: e.e, metric: metric?.key ?? e.m, date: e.d, value: e.v, occurredAt: new Date(e.at ?? ts).toISOString() },
      reason: e.why ?? '', voidedAt: new Date(ts).toISOString(),
    });
  } else if (entry.kind === 'revoked') {
    const a = snapshot.achievements.get(String(e.f?.achievement));
    if (a !== undefined) {
      add('achievement.revoked', [entry.id], { user, achievement: userAchievementView(a, snapshot, null), revokedAt: new Date(ts).toISOString() });
    }
  } else if (entry.kind === 'excluded') {
    add('user.excluded', [entry.id], { user, reason: e.why ?? '', excludedAt: new Date(ts).toISOString() });
  } else if (entry.kind === 'included') {
    add('user.included', [entry.id], { user, includedAt: new Date(ts).toISOString() });
  }
  if (Array.isArray(e.ac)) {
    const achievedAt = new Date(ts).toISOString();
    for (const achievementId of e.ac) {
      const a = snapshot.achievements.get(achievementId);
      if (a !== undefined) add('achievement.completed', [entry.id, achievementId], { user, achievement: userAchievementView(a, snapshot, achievedAt) });
    }
  }
  const rule = snapshot.streak;
  if (typeof e.sx === 'string' && rule !== null && e.d !== undefined) {
    const h: Record<string, string> = e.sp ? { [STREAK_FIELD]: e.sx, [PAUSES_FIELD]: e.sp } : { [STREAK_FIELD]: e.sx };
    const state = stateFromHash(h, rule, dayIndexOf(e.d), 0);
    if (state.last !== null && state.length > 0) {
      const streak = streakView(rule, state, state.last);
      add(state.length === 1 ? 'streak.started' : 'streak.extended', [entry.id], { user, streak });
    }
  }
  if (Array.isArray(e.pa) && e.pa.length > 0 && wanted.has('points.level_changed')) {
    let changes: Record<string, unknown> | null = null;
    for (const [systemId, , awarded, total] of e.pa) {
      const system = snapshot.pointsSystems.get(systemId);
      if (system === undefined) continue;
      const after = levelOf(snapshot, systemId, total);
      const before = levelOf(snapshot, systemId, total - awarded);
      if ((before?.id ?? null) === (after?.id ?? null)) continue;
      changes ??= pointsChanges(snapshot, e.pa, tenant, userId, ts);
      add('points.level_changed', [entry.id, systemId], {
        user, points: pointsOf(changes, system.key, after), previousLevel: before === null ? null : levelView(before), newLevel: after === null ? null : levelView(after),
      });
    }
  }
  return out;
}

/** The event response's system (total, added, awards), with the user's level whether it moved or not. */
function pointsOf(changes: Record<string, unknown>, key: string, level: ReturnType<typeof levelOf>): Record<string, unknown> {
  return { ...(changes[key] as Record<string, unknown>), level: level === null ? null : levelView(level) };
}

/** The 15-minute window of the service's clock an instant falls in, and when it ends (ms). */
export function pointsWindow(ms: number): { window: number; end: number } {
  const window = Math.floor(ms / POINTS_WINDOW_MS);
  return { window, end: (window + 1) * POINTS_WINDOW_MS };
}

/** An entry's awards of one system, noted for the `points.changed` of its window. */
export interface PointsChangedNote {
  tenant: string;
  userId: string;
  systemId: string;
  /** The entry's stream id: a later entry's note replaces an earlier one's, never the other way. */
  entryId: string;
  /** The entry's time (ms, the service's clock). */
  ts: number;
  /** The entry's awards (all its systems': the event response's points are built from them). */
  awards: EventAward[];
}

/** The notes of one entry's awards, a system each (none for an entry without awards). */
export function pointsChangedNotes(entry: ParsedEntry): PointsChangedNote[] {
  const { e } = entry;
  if (!Array.isArray(e.pa) || e.pa.length === 0 || e.t === undefined || e.u === undefined || e.ts === undefined) return [];
  const systems = new Set(e.pa.map(([systemId]) => systemId));
  return [...systems].map((systemId) => ({ tenant: e.t!, userId: e.u!, systemId, entryId: entry.id, ts: e.ts!, awards: e.pa! }));
}

/**
 * The `points.changed` of a user's system for the window ending at `windowEnd`, from the latest
 * note of that window: its id names the user, the system and the window (one delivery, whatever
 * the retries or worker processes); null for a system since deleted.
 */
export function pointsChangedEvent(
  prefix: string, snapshot: Snapshot, user: UserView, note: Pick<PointsChangedNote, 'tenant' | 'userId' | 'systemId' | 'ts' | 'awards'>, windowEnd: number,
): WebhookEvent | null {
  const { tenant, userId, systemId, ts, awards } = note;
  const system = snapshot.pointsSystems.get(systemId);
  const award = awards.find(([id]) => id === systemId);
  if (system === undefined || award === undefined) return null;
  const points = pointsOf(pointsChanges(snapshot, awards, tenant, userId, ts), system.key, levelOf(snapshot, systemId, award[3]));
  const type = 'points.changed';
  const window = windowEnd / POINTS_WINDOW_MS - 1;
  return {
    type, id: eventId([prefix, type, tenant, userId, systemId, window]), tenant, userId, at: windowEnd, coalesce: true,
    body: JSON.stringify({ type, user, points }),
  };
}
