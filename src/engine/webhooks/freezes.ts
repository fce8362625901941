/**
 * `streak.freeze_consumed` and `streak.freeze_earned` (API.md, "Webhooks"), while an endpoint
 * subscribes to either. Freezes are spent and earned by the clock (a period missed, a day of
 * auto-earning passing) as much as by events, so they are checked on each user's clock: the log
 * drain notes every user an extension or an admin's grant concerns in the tenant's check index
 * (checked at once), and a pass of the webhooks worker takes the users due, compares their freezes
 * with what the last check saw (src/domain/streak-freezes.ts), records what changed, and checks
 * again at the end of the user's local day, as long as the streak is alive. One check per user
 * with a streak a day, never a scan of every user. Event ids name the state they report, so a
 * check made again records nothing new.
 */
import type pg from 'pg';
import { isControl } from '../../domain/notifications.js';
import { formatSeen, freezeChanges, freezeStanding, parseSeen } from '../../domain/streak-freezes.js';
import { userView } from '../../domain/users.js';
import { eventId, type ParsedEntry, type WebhookEvent } from '../../domain/webhook-events.js';
import type { WebhookType } from '../../model/entities.js';
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { recordEvents } from './record.js';

/** Users taken from a tenant's index per pass. */
const BATCH = 500;

export function freezesWanted(types: ReadonlySet<WebhookType>): boolean {
  return types.has('streak.freeze_consumed') || types.has('streak.freeze_earned');
}

/** Notes the users of the extensions and grants among the entries, to be checked at once (ZADD LT: an earlier check stays). */
export async function indexFreezes(deps: Pick<Context, 'redis' | 'keys' | 'store'>, entries: ParsedEntry[]): Promise<void> {
  if (!deps.store.current.streak?.freezes) return;
  const byTenant = new Map<string, (string | number)[]>();
  for (const { kind, e } of entries) {
    if (e.t === undefined || e.u === undefined || e.ts === undefined) continue;
    if (!(kind === 'freezes' || (kind === 'event' && typeof e.sx === 'string'))) continue;
    byTenant.set(e.t, [...(byTenant.get(e.t) ?? []), e.ts, e.u]);
  }
  await Promise.all([...byTenant].map(([tenant, pairs]) => deps.redis.zadd(deps.keys.streakFreezes(tenant).due, 'LT', ...pairs)));
}

/** Checks the users due now; answers how many deliveries were recorded. */
export async function recordFreezes(
  deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>, pool: pg.Pool, types: ReadonlySet<WebhookType>,
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
    recorded += await recordEvents(deps, pool, events);
    // Seen once recorded; each user due again at the end of the local day (or no more), unless the
    // drain noted an earlier check meanwhile (taken only while its score is the one read).
    if (seenNow.length > 0) await redis.hset(k.seen, ...seenNow);
    if (gone.length > 0) await redis.hdel(k.seen, ...gone);
    await redis.dueTake(k.due, ...due);
    if (next.length > 0) await redis.zadd(k.due, 'LT', ...next);
  }
  return recorded;
}
