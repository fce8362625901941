/**
 * The notifications activity calls for (streak reminders, reactivations, recaps) are kept in each
 * partition's due index in Redis (src/domain/notifications/due-members.ts) until they may be due,
 * and made deliveries (rows of `laurel_deliveries`) only then:
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
import { DEFAULT_TIME_ZONE } from '../../domain/notifications/rules.js';
import {
  dueMember, dueMemberText, parseDueMember, reactivationLastDay, reactivationScore, recapIndexed, reminderPeriod, reminderScore,
  type DueMember,
} from '../../domain/notifications/due-members.js';
import { dueIn, reactivationDue, reminderDue } from '../../domain/notifications/timing.js';
import { stateFromHash, streakLast, streakZone } from '../../domain/streaks/state.js';
import { lastOf } from '../../lib/memo.js';
import { sentTogether } from '../../redis/coalesce.js';
import { zaddGt } from '../../redis/packed.js';
import { STREAK_FIELD } from '../../model/fields.js';
import type { EventActivity } from '../../model/log.js';
import type { Snapshot } from '../../model/snapshot.js';
import { scheduleMany, type Occasion } from '../../postgres/notifications/deliveries.js';
import type { Context } from '../context.js';
import { channelsOf } from './schedule.js';
import * as dueTake from '../../redis/scripts/dueTake.js';
import { tenantExists } from '../../redis/users.js';

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

/** A partition's members of a pass as ZADD takes them: score, member, score, member, … */
export type PartitionDue = (number | string)[];

/**
 * The local day of the last event noted of each user: a later event of the same day calls for the
 * same absence and recap again. Up to `max` users, then it starts over (forgetting costs only a
 * write that changes nothing). Looked up by the user id's JSON as read from the entry, per tenant:
 * a key joined from the two cost a copy and its hash per event, twice what the rest of the note
 * costs (docs/performance.md).
 */
export class NotedDays {
  private readonly byTenant = new Map<string, Map<string, string>>();
  private readonly max: number;
  private size = 0;

  constructor(max = Number.MAX_SAFE_INTEGER) {
    this.max = max;
  }

  /** Whether `day` is the day noted of the user. */
  has(tenant: string, userJson: string, day: string): boolean {
    return this.byTenant.get(tenant)?.get(userJson) === day;
  }

  /** Notes `day` as the user's. */
  note(tenant: string, userJson: string, day: string): void {
    let users = this.byTenant.get(tenant);
    if (users === undefined) this.byTenant.set(tenant, (users = new Map()));
    if (!users.has(userJson) && ++this.size > this.max) {
      this.clear();
      this.note(tenant, userJson, day);
      return;
    }
    users.set(userJson, day);
  }

  /** Notes into `into` every day noted here, as copies of their own. */
  addTo(into: NotedDays): void {
    for (const [tenant, users] of this.byTenant) for (const [userJson, day] of users) into.note(tenant, copied(userJson), day);
  }

  clear(): void {
    this.byTenant.clear();
    this.size = 0;
  }
}

/**
 * What a drainer knows it noted: `written`, the days its earlier passes wrote (the index has their
 * members), and `pass`, the days the pass under way noted (its members are in its writes still). A
 * pass joins `pass` to `written` only once its writes are done: a pass that fails before, or
 * beside another, leaves nothing unwritten for the next to skip.
 */
export interface DueNotes {
  written: NotedDays;
  pass: NotedDays;
}

/**
 * A copy of `s` of its own: the id read from an entry is a slice of the entry's body, which a key
 * kept for hours would keep alive (a joined string is made flat by the slice).
 */
const copied = (s: string): string => (' ' + s).slice(1);

/**
 * The members an event calls for, added to `out`: its user's reminder after an extension (`sx`),
 * the absence after its day, the recap of its day's period. The absence and the recap are left out
 * for a user whose event of the same day `noted` holds (written by an earlier pass: the index has
 * them, or the notifier took them once due, which made their deliveries; or noted by this pass: in
 * `out` already). A user's events after the first of a day thus add nothing (nor a reminder: only an
 * extension carries `sx`). Nothing is made per event but the members added: their scores are
 * worked out once per day.
 */
export function noteEntry(snapshot: Snapshot, wanted: DueWanted, a: EventActivity, out: PartitionDue, noted?: DueNotes): void {
  const tenantJson = tenantJsonOf(a.tenant);
  const rule = snapshot.streak;
  if (wanted.reminders && rule !== null && a.sx !== undefined) {
    const last = streakLast(a.sx, rule.frequency);
    if (last !== null) out.push(reminderScore(rule.frequency, last + 1), dueMemberText('s', tenantJson, a.userJson));
  }
  if (!wanted.reactivations && !wanted.recaps) return;
  if (noted !== undefined) {
    if (noted.written.has(a.tenant, a.userJson, a.day) || noted.pass.has(a.tenant, a.userJson, a.day)) return;
    noted.pass.note(a.tenant, a.userJson, a.day);
  }
  if (wanted.reactivations) out.push(reactivationOf(a.day), dueMemberText('r', tenantJson, a.userJson));
  if (wanted.recaps) {
    const { occasion, score } = recapOf[snapshot.notifications?.recap.aggregation ?? 'weekly'](a.day);
    out.push(score, dueMemberText('c', tenantJson, a.userJson, occasion));
  }
}

const tenantJsonOf = lastOf((tenant: string) => JSON.stringify(tenant));

/** Pairs of one ZADD (a restore notes a partition's whole log since a snapshot). */
const ZADD_PAIRS = 8192;

/**
 * Writes a partition's members: ZADD GT (a member only ever moves later; of a member named twice,
 * the later score stays), a command per ZADD_PAIRS pairs, sent together.
 */
export async function noteDue(deps: Pick<Context, 'redis' | 'keys'>, partition: number, out: PartitionDue): Promise<void> {
  const key = deps.keys.partitionNotificationsDue(partition);
  const writes: Promise<number>[] = [];
  for (let i = 0; i < out.length; i += 2 * ZADD_PAIRS) {
    writes.push(zaddGt(deps.redis, key, out.length <= 2 * ZADD_PAIRS ? out : out.slice(i, i + 2 * ZADD_PAIRS)));
  }
  await Promise.all(writes);
}

/** Writes the members of several partitions (partition to members), sent together. */
export async function noteDueTogether(deps: Pick<Context, 'redis' | 'keys'>, due: Map<number, PartitionDue>): Promise<void> {
  await Promise.all(sentTogether(deps.redis, () => [...due].map(([partition, members]) => noteDue(deps, partition, members))));
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
      taken += await dueTake.run(redis, keys.partitionNotificationsDue(partitions[i]), members.flat());
    }
  }
  return taken;
}

/** The deliveries of the members read (none for a member whose type has no template any more, or whose user or tenant is gone). */
async function occasionsOf(deps: Pick<Context, 'redis' | 'keys' | 'store'>, members: [string, string][]): Promise<Occasion[]> {
  const snapshot = deps.store.current;
  const parsed = members.map(([m, score]) => ({ m: parseDueMember(m), score: Number(score) }));
  const users = await Promise.all(parsed.map(({ m }) => (m === null ? null : deps.redis.hgetall(deps.keys.forUser(m.tenant, m.userId).user))));
  const fallback = snapshot.notifications?.defaultTimeZone ?? DEFAULT_TIME_ZONE;
  const aggregation = snapshot.notifications?.recap.aggregation ?? 'weekly';
  const out: Occasion[] = [];
  parsed.forEach(({ m, score }, i) => {
    const h = users[i];
    if (m === null || h === null || h.id === undefined || !tenantExists(snapshot, m.tenant)) return;
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
