/**
 * `points.changed` (docs/webhooks.md): at most one delivery per user and system every 15 minutes
 * of the service's clock, sent when the window ends with the latest state. While an endpoint
 * subscribes, the log drain notes each entry's awards in its partition's index (lua/pointsNote-2.lua:
 * each (tenant, user, system)'s latest entry, and the end of its window), before the entries are
 * archived, so a pass made again changes nothing; nothing is written to Postgres per event (a row
 * per event, upserted until its window ended, was half of Postgres's work under the bench's load).
 * A pass of the webhooks worker takes what is due: each member's delivery, its id naming the user,
 * the system and the window, is recorded as a row (its body replaced while it waits, so a later
 * entry of the window noted meanwhile is sent instead), then the member is taken
 * (lua/pointsTake-2.lua) unless the drain noted a later entry or window since it was read. A window
 * noted after its delivery was sent (the drain far behind) changes nothing: the delivery is not
 * sent twice. A window is taken only once the drain has gone past its end: each drain that read
 * every partition's log to its end says where the service's clock stood when it began (less the
 * time an event may take from its clock reading to its log entry, `SETTLE_MS`), so an award in the
 * window's last second, drained a moment after the end, is in the delivery. The index is in the
 * snapshots, and a restore notes again the entries after the snapshot
 * (src/engine/durability/restore.ts).
 */
import type pg from 'pg';
import { isControl } from '../../domain/notifications/rules.js';
import { userView } from '../../domain/users.js';
import { pointsChangedEvent, pointsWindow, type PointsChangedNote, type WebhookEvent } from '../../domain/webhooks/events.js';
import { listIn } from '../../lib/lists.js';
import type { EventAward } from '../../model/log.js';
import { sentTogether } from '../../redis/coalesce.js';
import type { Context } from '../context.js';
import { recordEvents } from './record.js';
import * as pointsNote from '../../redis/scripts/pointsNote.js';
import * as pointsTake from '../../redis/scripts/pointsTake.js';
import { tenantExists } from '../../redis/users.js';

/** Members taken from a partition per pass. */
const TAKE = 500;
/** Partitions read together. */
const GROUP = 32;
/** A window that ended longer ago than this when taken (the workers were down) is dropped, not sent. */
const STALE_MS = 24 * 3_600_000;
/** Members a note or a take writes per command. */
const PER_COMMAND = 3000;
/**
 * How long (ms) an event may take from reading the clock to its log entry (src/engine/event/record.ts):
 * a drain that began at T has seen every event before T less this. None on the manual clock, which
 * stands still between the requests that set it.
 */
const SETTLE_MS = 2000;

/**
 * Says that a drain which began at `clockAtStart` (the service's clock) has read every partition's
 * log to its end and noted what it read. Another drainer's older figure may overwrite a newer one:
 * a window then waits for the next drain.
 */
export async function noteDrained(deps: Pick<Context, 'redis' | 'keys' | 'clock'>, clockAtStart: number): Promise<void> {
  const settle = deps.clock.mode === 'manual' ? 0 : SETTLE_MS;
  await deps.redis.set(deps.keys.drainedClock, String(clockAtStart - settle));
}

/** An entry's stream id written so that comparing the strings compares the entries. */
function sortable(id: string): string {
  const dash = id.indexOf('-');
  return id.slice(0, dash).padStart(16, '0') + id.slice(dash + 1).padStart(20, '0');
}

const memberOf = (n: Pick<PointsChangedNote, 'tenant' | 'userId' | 'systemId'>): string => JSON.stringify([n.tenant, n.userId, n.systemId]);

/** Writes the notes (each partition's in commands of its own, all sent together); before the entries are archived. */
export async function notePointsChanged(deps: Pick<Context, 'redis' | 'keys'>, notes: PointsChangedNote[]): Promise<void> {
  if (notes.length === 0) return;
  const { redis, keys } = deps;
  const byPartition = new Map<number, string[]>();
  for (const n of notes) {
    listIn(byPartition, keys.partitionOf(n.tenant, n.userId))
      .push(memberOf(n), `${sortable(n.entryId)}\t${n.ts}\t${JSON.stringify(n.awards)}`, String(pointsWindow(n.ts).end));
  }
  await Promise.all(sentTogether(redis, () => [...byPartition].flatMap(([partition, args]) => {
    const k = keys.partitionPointsChanged(partition);
    const writes: Promise<number>[] = [];
    for (let i = 0; i < args.length; i += 3 * PER_COMMAND) writes.push(pointsNote.run(redis, k, args.slice(i, i + 3 * PER_COMMAND)));
    return writes;
  })));
}

/** A member read as due: what it names, its window's end as read, and its latest entry as read. */
interface Due {
  member: string;
  score: string;
  value: string | null;
}

/**
 * Records the deliveries of the windows that have ended, then takes their members; answers how
 * many events were recorded.
 */
export async function recordPointsChanged(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>, pool: pg.Pool): Promise<number> {
  const { redis, keys } = deps;
  const drained = await redis.get(keys.drainedClock);
  // No drain has read the logs to their end yet: no window is known complete.
  if (drained === null) return 0;
  let recorded = 0;
  for (let g = 0; g < keys.partitions; g += GROUP) {
    const partitions = Array.from({ length: Math.min(GROUP, keys.partitions - g) }, (_, i) => g + i);
    const now = deps.clock.now();
    const ended = Math.min(now, Number(drained));
    const read = await Promise.all(sentTogether(redis, () => partitions.map((p) =>
      redis.zrangebyscore(keys.partitionPointsChanged(p).due, '-inf', ended, 'WITHSCORES', 'LIMIT', 0, TAKE))));
    const due = new Map<number, Due[]>();
    read.forEach((flat, i) => {
      const members: Due[] = [];
      for (let j = 0; j < flat.length; j += 2) members.push({ member: flat[j], score: flat[j + 1], value: null });
      if (members.length > 0) due.set(partitions[i], members);
    });
    if (due.size === 0) continue;
    const values = await Promise.all(sentTogether(redis, () => [...due].map(([p, members]) =>
      redis.hmget(keys.partitionPointsChanged(p).latest, ...members.map((m) => m.member)))));
    [...due.values()].forEach((members, i) => members.forEach((m, j) => { m.value = values[i][j]; }));
    const events = await eventsOf(deps, [...due.values()].flat(), now);
    recorded += await recordEvents(deps, pool, events);
    await Promise.all(sentTogether(redis, () => [...due].flatMap(([p, members]) => {
      const k = keys.partitionPointsChanged(p);
      // A member without an entry (taken meanwhile by another process) is taken as read: nothing is left of it.
      const args = members.flatMap((m) => [m.member, m.score, m.value ?? '']);
      const takes: Promise<number>[] = [];
      for (let i = 0; i < args.length; i += 3 * PER_COMMAND) takes.push(pointsTake.run(redis, k, args.slice(i, i + 3 * PER_COMMAND)));
      return takes;
    })));
  }
  return recorded;
}

/** The events of the members read: none for a window long gone, a user, tenant or system deleted, or an entry no longer there. */
async function eventsOf(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'settings'>, due: Due[], now: number): Promise<WebhookEvent[]> {
  const snapshot = deps.store.current;
  const notes: { note: Parameters<typeof pointsChangedEvent>[3]; end: number }[] = [];
  for (const { member, score, value } of due) {
    const end = Number(score);
    if (value === null || now - end > STALE_MS) continue;
    const [tenant, userId, systemId] = JSON.parse(member) as [string, string, string];
    const [, ts, awards] = value.split('\t');
    notes.push({ note: { tenant, userId, systemId, ts: Number(ts), awards: JSON.parse(awards) as EventAward[] }, end });
  }
  const users = await Promise.all(sentTogether(deps.redis, () =>
    notes.map(({ note }) => deps.redis.hgetall(deps.keys.forUser(note.tenant, note.userId).user))));
  const events: WebhookEvent[] = [];
  notes.forEach(({ note, end }, i) => {
    const h = users[i];
    if (h.id === undefined || !tenantExists(snapshot, note.tenant)) return;
    const event = pointsChangedEvent(deps.settings.prefix, snapshot, userView(h, isControl(snapshot.notifications, note.tenant, h)), note, end);
    if (event !== null) events.push(event);
  });
  return events;
}
