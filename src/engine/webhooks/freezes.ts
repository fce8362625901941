/**
 * `streak.freeze_consumed` and `streak.freeze_earned` (docs/webhooks.md), while an endpoint
 * subscribes to either. Freezes are spent and earned by the clock (a period missed, a day of
 * auto-earning passing) as much as by events, so they are checked on each user's clock. The log
 * drain notes, per tenant and pass in one HSET and one ZADD, each extension's freezes (what the
 * entry's streak says: nothing read) with a check at the end of the user's local day, and each
 * admin's grant with a check at once. A pass of the webhooks worker takes the users due, compares
 * their freezes with what was seen last (src/domain/webhooks/freeze-changes.ts), records what
 * changed, and checks again at the end of the user's next day, as long as the streak is alive: one
 * check per user with a streak a day, never a scan of every user. Event ids name the state they
 * report, so a check made again records nothing new. While a socket wants a live topic, the live
 * publisher notes the extensions of the users whose topic is wanted, and what each user whose
 * topic becomes wanted holds (src/engine/webhooks/clock-notes.ts), so the events are made for them
 * too (src/engine/live/clock.ts).
 */
import type pg from 'pg';
import { isControl } from '../../domain/notifications/rules.js';
import { extensionSeen, formatSeen, freezeChanges, freezeStanding, parseSeen } from '../../domain/webhooks/freeze-changes.js';
import { userView } from '../../domain/users.js';
import { eventId, type ParsedEntry, type WebhookEvent } from '../../domain/webhooks/events.js';
import type { WebhookType } from '../../model/entities.js';
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { announce } from './record.js';
import type { LiveInterest } from '../live/wanted.js';
import { listIn } from '../../lib/lists.js';
import * as dueTake from '../../redis/scripts/dueTake.js';

/** Users taken from a tenant's index per pass. */
const BATCH = 500;

export function freezesWanted(types: ReadonlySet<WebhookType>): boolean {
  return types.has('streak.freeze_consumed') || types.has('streak.freeze_earned');
}

/**
 * Notes the extensions' freezes and the grants among the entries: an extension's as seen, checked
 * at the end of its local day; a grant's user checked at once (ZADD LT: an earlier check stays).
 */
export async function indexFreezes(deps: Pick<Context, 'redis' | 'keys' | 'store'>, entries: ParsedEntry[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (!rule?.freezes) return;
  const due = new Map<string, (string | number)[]>();
  const seen = new Map<string, Map<string, string>>();
  for (const { kind, e } of entries) {
    if (e.t === undefined || e.u === undefined || e.ts === undefined) continue;
    let at = e.ts;
    if (kind === 'event' && typeof e.sx === 'string' && e.d !== undefined) {
      const extended = extensionSeen(rule, e.sx, e.sp, e.d);
      if (extended === null) continue;
      at = extended.next;
      seen.set(e.t, (seen.get(e.t) ?? new Map()).set(e.u, formatSeen(extended.seen)));
    } else if (kind !== 'freezes') {
      continue;
    }
    listIn(due, e.t).push(at, e.u);
  }
  await Promise.all([
    ...[...seen].map(([tenant, users]) => deps.redis.hset(deps.keys.streakFreezes(tenant).seen, ...[...users].flat())),
    ...[...due].map(([tenant, pairs]) => deps.redis.zadd(deps.keys.streakFreezes(tenant).due, 'LT', ...pairs)),
  ]);
}

/** Checks the users due now (and publishes what changed live: `live`); answers how many deliveries were recorded. */
export async function recordFreezes(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>, pool: pg.Pool, types: ReadonlySet<WebhookType>, live: LiveInterest | null,
): Promise<number> {
  const { redis, keys, store, clock, settings } = deps;
  const snapshot = store.current;
  const now = clock.now();
  let recorded = 0;
  for (const tenant of liveTenants(snapshot)) {
    const k = keys.streakFreezes(tenant);
    const due = await redis.zrangebyscore(k.due, '-inf', now, 'WITHSCORES', 'LIMIT', 0, BATCH);
    if (due.length === 0) continue;
    const users: string[] = [];
    for (let i = 0; i < due.length; i += 2) users.push(due[i]);
    const [hashes, seen] = await Promise.all([
      Promise.all(users.map((u) => redis.hgetall(keys.forUser(tenant, u).user))), redis.hmget(k.seen, ...users),
    ]);
    const events: WebhookEvent[] = [];
    const next: (string | number)[] = [];
    const seenNow: string[] = [];
    const gone: string[] = [];
    users.forEach((userId, i) => {
      const h = hashes[i];
      const standing = h.id === undefined ? null : freezeStanding(snapshot.streak, h, now);
      if (standing === null) {
        gone.push(userId);
        return;
      }
      const { consumed, earned } = freezeChanges(parseSeen(seen[i]), standing.seen);
      const user = () => userView(h, isControl(snapshot.notifications, tenant, h));
      const state = formatSeen(standing.seen);
      const add = (type: 'streak.freeze_consumed' | 'streak.freeze_earned', payload: Record<string, number>) => {
        if (!types.has(type)) return;
        events.push({
          type, id: eventId([settings.prefix, type, tenant, userId, state]), tenant, userId, at: now, coalesce: false,
          body: JSON.stringify({ type, user: user(), ...payload, freezes: standing.seen.left }),
        });
      };
      if (consumed > 0) add('streak.freeze_consumed', { consumed });
      if (earned > 0) add('streak.freeze_earned', { earned });
      seenNow.push(userId, state);
      next.push(standing.next, userId);
    });
    recorded += await announce(deps, pool, events, live);
    // Seen once recorded; each user due again at the end of the local day (or no more), unless the
    // drain noted an earlier check meanwhile (taken only while its score is the one read).
    if (seenNow.length > 0) await redis.hset(k.seen, ...seenNow);
    if (gone.length > 0) await redis.hdel(k.seen, ...gone);
    await dueTake.run(redis, k.due, due);
    if (next.length > 0) await redis.zadd(k.due, 'LT', ...next);
  }
  return recorded;
}
