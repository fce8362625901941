/**
 * `streak.lost` (API.md, "Webhooks"): when a user's period ends without an extension. While an
 * endpoint subscribes to it, the log drain notes each extension's expiry in the tenant's due index
 * (src/redis/keys.ts streakLosses; a later extension moves it), and a pass of the webhooks worker
 * takes what is due on the service's clock: a user whose streak is indeed lost then (the user's
 * state read again: freezes or an extension not drained yet keep it) records one event, its id
 * naming the user and the expiry, so it is recorded once.
 */
import type pg from 'pg';
import { isControl } from '../../domain/notifications/rules.js';
import { currentPeriod } from '../../domain/periods.js';
import { stateFromHash, streakView } from '../../domain/streaks/state.js';
import { userView } from '../../domain/users.js';
import { eventId, type ParsedEntry, type WebhookEvent } from '../../domain/webhooks/events.js';
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { loggedStreak } from '../streaks/rankings.js';
import type { LoggedEvent } from '../../model/log.js';
import { recordEvents } from './record.js';
import { listIn } from '../../lib/lists.js';

/** Users taken from a tenant's index per pass. */
const BATCH = 500;

/** Notes the expiry of each extension among the entries in its tenant's due index. */
export async function indexLosses(deps: Pick<Context, 'redis' | 'keys' | 'store'>, entries: ParsedEntry[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (rule === null) return;
  const byTenant = new Map<string, (string | number)[]>();
  for (const { kind, e } of entries) {
    if (kind !== 'event' || typeof e.sx !== 'string' || e.t === undefined || e.u === undefined) continue;
    const streak = loggedStreak(e as LoggedEvent, rule);
    if (streak === null) continue;
    listIn(byTenant, e.t).push(streak.expiry, e.u);
  }
  await Promise.all([...byTenant].map(([tenant, pairs]) => deps.redis.zadd(deps.keys.streakLosses(tenant), ...pairs)));
}

/** Records the losses due now; answers how many events. */
export async function recordLosses(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>, pool: pg.Pool): Promise<number> {
  const { redis, keys, store, clock, settings } = deps;
  const snapshot = store.current;
  const rule = snapshot.streak;
  if (rule === null) return 0;
  const now = clock.now();
  let recorded = 0;
  for (const tenant of liveTenants(snapshot)) {
    const key = keys.streakLosses(tenant);
    const due = await redis.zrangebyscore(key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, BATCH);
    if (due.length === 0) continue;
    const events: WebhookEvent[] = [];
    const taken: string[] = [];
    for (let i = 0; i < due.length; i += 2) {
      const userId = due[i];
      const expiry = Number(due[i + 1]);
      taken.push(userId);
      const h = await redis.hgetall(keys.forUser(tenant, userId).user);
      if (h.id === undefined) continue;
      const { day, period } = currentPeriod(rule.frequency, h.tz ?? '', now);
      const state = stateFromHash(h, rule, day, period);
      if (state.length === 0 || streakView(rule, state, period).length > 0) continue;
      const type = 'streak.lost';
      events.push({
        type, id: eventId([settings.prefix, type, tenant, userId, expiry]), tenant, userId, at: expiry, coalesce: false,
        body: JSON.stringify({ type, user: userView(h, isControl(snapshot.notifications, tenant, h)), length: state.length }),
      });
    }
    recorded += await recordEvents(deps, pool, events);
    // Taken: a later extension the drain notes puts the user back.
    await redis.zrem(key, ...taken);
  }
  return recorded;
}
