/**
 * The webhook deliveries a stretch of the event log calls for (src/engine/log-drain/webhooks.ts): for each
 * active endpoint, the events of the types it subscribes to (src/domain/webhooks/events.ts), for its
 * queue (src/engine/webhooks/queue.ts), and the notes of the events made later (losses, freezes,
 * points.changed, rank changes below an uncapped board's first 1,000). Reads each concerned user once (the `user` of the payloads), only for the
 * events made now. Nothing is parsed or read while no active endpoint subscribes to a type the log
 * gives: an installation without webhooks pays nothing.
 */
import { isControl } from '../../domain/notifications/rules.js';
import { sentTogether } from '../../redis/coalesce.js';
import { userView, type UserView } from '../../domain/users.js';
import { eventsOfEntry, pointsChangedNotes, type ParsedEntry } from '../../domain/webhooks/events.js';
import type { Webhook, WebhookType } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import type { QueuedDelivery } from './queue.js';
import type { Context } from '../context.js';
import { indexLosses } from './losses.js';
import { freezesWanted, indexFreezes } from './freezes.js';
import { notePointsChanged } from './points-changed.js';
import { noteRankMoves } from './rank-notes.js';

/** The types the log gives (the rest come from the clock or the notifications' scheduler). */
const LOG_TYPES: ReadonlySet<WebhookType> = new Set([
  'achievement.completed', 'streak.started', 'streak.extended', 'points.changed', 'points.level_changed',
  // The corrections an operator makes (src/engine/fairplay/).
  'event.voided', 'achievement.revoked', 'user.excluded', 'user.included',
  // Not sent from the log: each extension says when the streak is lost (src/engine/webhooks/losses.ts),
  // and which users' freezes to check (src/engine/webhooks/freezes.ts).
  'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned',
  // Not sent from the log: its users' moves below an uncapped board's first 1,000 are read by the
  // window's pass (src/engine/webhooks/rank-notes.ts).
  'leaderboard.rank_changed',
]);

/**
 * The log types whose events a worker's pass makes later, the drain only noting the users or their
 * awards (no read): losses and freezes from the clock, points.changed and rank changes when their
 * window ends.
 */
const NOTED: ReadonlySet<WebhookType> = new Set([
  'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned', 'points.changed', 'leaderboard.rank_changed',
]);

/** The active endpoints that subscribe to a type the log gives, and those types. */
export function logSubscribers(snapshot: Snapshot): { endpoints: Webhook[]; types: Set<WebhookType> } {
  const endpoints = [...snapshot.webhooks.values()].filter((w) => w.status === 'active' && w.events.some((t) => LOG_TYPES.has(t)));
  return { endpoints, types: new Set(endpoints.flatMap((w) => w.events.filter((t) => LOG_TYPES.has(t)))) };
}

/**
 * Notes what the entries call for later, in Redis (losses, freeze checks, points.changed windows,
 * the users an uncapped board's rank changes look at):
 * written again, a note changes nothing (a restore notes again the entries after its snapshot).
 */
export async function noteLater(
  deps: Pick<Context, 'redis' | 'keys' | 'store'>, entries: ParsedEntry[], types = logSubscribers(deps.store.current).types,
): Promise<void> {
  if (types.has('streak.lost')) await indexLosses(deps, entries);
  if (freezesWanted(types)) await indexFreezes(deps, entries);
  if (types.has('points.changed')) await notePointsChanged(deps, entries.flatMap(pointsChangedNotes));
  if (types.has('leaderboard.rank_changed')) await noteRankMoves(deps, entries);
}

/**
 * The deliveries the entries call for now, for the endpoints' queues (each with its entry, in the
 * entries' order), after the notes for later are written. `nowMs`: when they are made.
 */
export async function plannedWebhooks(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'settings'>, entries: ParsedEntry[], nowMs: number,
): Promise<QueuedDelivery[]> {
  const snapshot = deps.store.current;
  const { endpoints, types } = logSubscribers(snapshot);
  const out: QueuedDelivery[] = [];
  if (endpoints.length === 0 || entries.length === 0) return out;
  const users = new Map<string, Promise<UserView | null>>();
  const userOf = (tenant: string, userId: string) => {
    const key = `${tenant}\u0000${userId}`;
    let u = users.get(key);
    if (u === undefined) {
      u = deps.redis.hgetall(deps.keys.forUser(tenant, userId).user)
        .then((h) => (h.id === undefined ? null : userView(h, isControl(snapshot.notifications, tenant, h))));
      users.set(key, u);
    }
    return u;
  };
  await noteLater(deps, entries, types);
  // The types whose events an entry makes now, with its user (the rest are noted, or come from the clock).
  const now = new Set([...types].filter((t) => !NOTED.has(t)));
  if (now.size === 0) return out;
  // Every user's read sent at once, in one write per connection (on a Cluster each to its own
  // slot's): a write each cost a system call apiece, 3% of the workers' process under the bench's load.
  sentTogether(deps.redis, () => {
    for (const { e } of entries) if (e.t !== undefined && e.u !== undefined) void userOf(e.t, e.u);
  });
  for (const entry of entries) {
    const { t, u } = entry.e;
    if (t === undefined || u === undefined) continue;
    const events = eventsOfEntry(deps.settings.prefix, entry, snapshot, await userOf(t, u), now);
    if (events.length === 0) continue;
    const partition = deps.keys.partitionOf(t, u);
    for (const ev of events) {
      for (const w of endpoints) {
        if (!w.events.includes(ev.type)) continue;
        out.push({
          endpointId: w.id, partition, entryId: entry.id, eventId: ev.id, type: ev.type, tenant: ev.tenant, userId: ev.userId,
          created: nowMs, body: ev.body,
        });
      }
    }
  }
  return out;
}
