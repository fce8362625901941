/**
 * The notifications activity calls for (streak reminders, reactivations, recaps) are kept in each
 * partition's due index in Redis (src/domain/notification-due.ts) until they may be due, and made
 * deliveries (rows of `laurel_deliveries`) only then:
 * - the log drainer notes a pass's extensions and active users with one ZADD GT per partition,
 *   reading nothing (noteDue);
 * - the notifier, every second, takes what may be due by now, reads those users' zones and
 *   streaks, schedules their deliveries at the exact local time in one statement, and only then
 *   takes the members out (promoteDue). A member the drainer raised meanwhile stays.
 * A user active every day thus costs one index member, never a row; a delivery exists from the
 * earliest instant it can be due (its local time in UTC+14) on, so the deliveries list shows each
 * from then, and a zone change moves it as any other.
 */
import type pg from 'pg';
import { DEFAULT_TIME_ZONE } from '../../domain/notifications.js';
import {
  dueMember, dueMemberText, parseDueMember, reactivationLastDay, reactivationScore, recapIndexed, reminderPeriod, reminderScore,
  type DueMember,
} from '../../domain/notification-due.js';
import { dueIn, reactivationDue, reminderDue } from '../../domain/notification-timing.js';
import { stateFromHash, streakLast, streakZone } from '../../domain/streaks.js';
import { BoundedMap, lastOf } from '../../lib/memo.js';
import { sentTogether } from '../../redis/coalesce.js';
import { zaddGt } from '../../redis/packed.js';
import { STREAK_FIELD } from '../../model/fields.js';
import type { EventActivity } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import { scheduleMany, type Occasion } from '../../postgres/deliveries.js';
import type { Context } from '../context.js';
import { channelsOf } from './schedule.js';

/** What a drain pass looks for: which kinds are indexed while templates of their type exist. */
export interface DueWanted {
  reminders: boolean;
  reactivations: boolean;
  recaps: boolean;
}

export function dueWanted(snapshot: Snapshot): DueWanted {
  return {
    reminders: snapshot.streak !== null && channelsOf(snapshot, 'streak_reminder').length > 0,
    reactivations: channelsOf(snapshot, 'reactivation').length > 0,
    recaps: channelsOf(snapshot, 'recap').length > 0,
  };
}

/** Whether a pass parses events for the index at all. */
export const anyDue = (w: DueWanted): boolean => w.reminders || w.reactivations || w.recaps;

/** The scores of a local day's absence and recap, worked out again only when the day changes (a pass's events share a few days). */
const reactivationOf = lastOf(reactivationScore);
const recapOf = { weekly: lastOf((day: string) => recapIndexed('weekly', day)), monthly: lastOf((day: string) => recapIndexed('monthly', day)) };

const NONE = -Infinity;

/**
 * What a pass notes of one user in a partition: the latest score of each kind of member its
 * events call for (NONE: no member of the kind), the recap's occasion with it, and any earlier
 * period's recap the same pass met (a drainer catching up spans periods).
 */
export interface UserDue {
  tenantJson: string;
  userJson: string;
  s: number;
  r: number;
  c: number;
  occasion: string;
  earlier?: [occasion: string, score: number][];
}

/** A partition's notes of a pass, by user (the JSON of the tenant, then of the user id). */
export type PartitionDue = Map<string, UserDue>;

/** The scores of the members a drainer wrote for a user: the latest of each kind. */
export interface WrittenDue {
  s: number;
  r: number;
  c: number;
}

/**
 * The members an event calls for, noted in `out` under its user: its user's reminder after an
 * extension (`sx`), the absence after its day, the recap of its day's period. A member `written`
 * holds already is left out (a reminder or an absence at that score or a later one, the recap of
 * that period): the index has it (ZADD GT would change nothing), or the notifier took it once due,
 * which made its delivery. A user's events after the first of a day thus note nothing.
 */
export function noteEntry(
  snapshot: Snapshot, wanted: DueWanted, a: EventActivity, out: PartitionDue, written?: BoundedMap<string, WrittenDue>,
): void {
  let s = NONE;
  let r = NONE;
  let c = NONE;
  let occasion = '';
  const rule = snapshot.streak;
  if (wanted.reminders && rule !== null && a.sx !== undefined) {
    const last = streakLast(a.sx, rule.frequency);
    if (last !== null) s = reminderScore(rule.frequency, last + 1);
  }
  if (wanted.reactivations) r = reactivationOf(a.day);
  if (wanted.recaps) ({ occasion, score: c } = recapOf[snapshot.notifications?.recap.aggregation ?? 'weekly'](a.day));
  const tenantJson = tenantJsonOf(a.tenant);
  const key = tenantJson + a.userJson;
  const w = written?.get(key);
  if (w !== undefined) {
    if (w.s >= s) s = NONE;
    if (w.r >= r) r = NONE;
    if (w.c === c) c = NONE;
  }
  if (s === NONE && r === NONE && c === NONE) return;
  const u = out.get(key);
  if (u === undefined) {
    out.set(key, { tenantJson, userJson: a.userJson, s, r, c, occasion });
    return;
  }
  if (s > u.s) u.s = s;
  if (r > u.r) u.r = r;
  if (c !== NONE && c !== u.c) {
    if (u.c !== NONE) (u.earlier ??= []).push([u.occasion, u.c]);
    u.c = c;
    u.occasion = occasion;
  }
}

const tenantJsonOf = lastOf((tenant: string) => JSON.stringify(tenant));

/**
 * Writes a partition's members (one ZADD GT: a member only ever moves later), then remembers them
 * in `written` (the drainer's, which keeps later passes from writing them again).
 */
export async function noteDue(
  deps: Pick<Context, 'redis' | 'keys'>, partition: number, out: PartitionDue, written?: BoundedMap<string, WrittenDue>,
): Promise<void> {
  if (out.size === 0) return;
  const args: (string | number)[] = [];
  for (const u of out.values()) {
    if (u.s !== NONE) args.push(u.s, dueMemberText('s', u.tenantJson, u.userJson));
    if (u.r !== NONE) args.push(u.r, dueMemberText('r', u.tenantJson, u.userJson));
    if (u.c !== NONE) args.push(u.c, dueMemberText('c', u.tenantJson, u.userJson, u.occasion));
    for (const [occasion, score] of u.earlier ?? []) args.push(score, dueMemberText('c', u.tenantJson, u.userJson, occasion));
  }
  await zaddGt(deps.redis, deps.keys.partitionNotificationsDue(partition), args);
  if (written === undefined) return;
  for (const [key, u] of out) {
    const w = written.get(key);
    if (w === undefined) {
      written.set(key, { s: u.s, r: u.r, c: u.c });
    } else {
      if (u.s > w.s) w.s = u.s;
      if (u.r > w.r) w.r = u.r;
      if (u.c !== NONE) w.c = u.c;
    }
  }
}

/** Members a promotion takes from one partition at a time. */
const TAKE = 500;
/** Partitions read together. */
const GROUP = 32;

/**
 * Makes deliveries of every member that may be due by now, partition by partition; answers how
 * many members were taken.
 */
export async function promoteDue(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>, pool: pg.Pool, prefix: string): Promise<number> {
  const { redis, keys } = deps;
  let taken = 0;
  for (let g = 0; g < keys.partitions; g += GROUP) {
    const partitions = Array.from({ length: Math.min(GROUP, keys.partitions - g) }, (_, i) => g + i);
    const now = deps.clock.now();
    const read = await Promise.all(sentTogether(redis, () => partitions.map((p) =>
      redis.zrangebyscore(keys.partitionNotificationsDue(p), '-inf', now, 'WITHSCORES', 'LIMIT', 0, TAKE))));
    for (const [i, flat] of read.entries()) {
      if (flat.length === 0) continue;
      const members: [string, string][] = [];
      for (let j = 0; j < flat.length; j += 2) members.push([flat[j], flat[j + 1]]);
      const occasions = await occasionsOf(deps, members);
      if (occasions.length > 0) await scheduleMany(pool, prefix, occasions, now);
      taken += await redis.dueTake(keys.partitionNotificationsDue(partitions[i]), ...members.flat());
    }
  }
  return taken;
}

/** The deliveries of the members read (none for a member whose type has no template any more, or whose user is gone). */
async function occasionsOf(deps: Pick<Context, 'redis' | 'keys' | 'store'>, members: [string, string][]): Promise<Occasion[]> {
  const snapshot = deps.store.current;
  const parsed = members.map(([m, score]) => ({ m: parseDueMember(m), score: Number(score) }));
  const users = await Promise.all(parsed.map(({ m }) => (m === null ? null : deps.redis.hgetall(deps.keys.forUser(m.tenant, m.userId).user))));
  const fallback = snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE;
  const aggregation = snapshot.notifications?.recap.aggregation ?? 'weekly';
  const out: Occasion[] = [];
  parsed.forEach(({ m, score }, i) => {
    const h = users[i];
    if (m === null || h === null || h.id === undefined) return;
    const tz = h.tz || fallback;
    const made = occasionOf(snapshot, m, score, h, tz, aggregation);
    if (made === null) return;
    for (const channel of channelsOf(snapshot, made.type)) {
      out.push({ tenant: m.tenant, userId: m.userId, channel, ...made });
    }
  });
  return out;
}

function occasionOf(
  snapshot: Snapshot, m: DueMember, score: number, h: Record<string, string>, tz: string, aggregation: 'weekly' | 'monthly',
): Pick<Occasion, 'type' | 'occasion' | 'at' | 'items'> | null {
  if (m.kind === 'r') {
    const due = reactivationDue(tz, reactivationLastDay(score), 1);
    return { type: 'reactivation', occasion: due.day, at: due.at, items: { n: 1 } };
  }
  if (m.kind === 'c') {
    const at = dueIn('recap', m.occasion, tz, null, aggregation);
    return at === null ? null : { type: 'recap', occasion: m.occasion, at, items: {} };
  }
  const rule = snapshot.streak;
  if (rule === null) return null;
  const period = reminderPeriod(rule.frequency, score);
  // The streak is judged in its own zone (as the extension that called for the reminder was).
  const due = reminderDue(rule.frequency, streakZone(h[STREAK_FIELD] ?? '') || tz, period);
  return { type: 'streak_reminder', occasion: due.day, at: due.at, items: { length: stateFromHash(h, rule, 0, 0).length } };
}

/**
 * Whether the user was active after the absence a reactivation delivery speaks of: the index holds
 * a later absence (its first message not made yet).
 */
export async function activeSince(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string, lastDay: string): Promise<boolean> {
  const partition = deps.keys.partitionOf(tenant, userId);
  const score = await deps.redis.zscore(deps.keys.partitionNotificationsDue(partition), dueMember({ kind: 'r', tenant, userId, occasion: '' }));
  return score !== null && Number(score) > reactivationScore(lastDay);
}
