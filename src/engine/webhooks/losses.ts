/**
 * `streak.lost` (docs/webhooks.md): when a user's period ends without an extension. While an
 * endpoint subscribes to it, the log drain notes each extension's expiry in the tenant's due index
 * (src/redis/keys.ts streakLosses; a later extension moves it), and a pass of the webhooks worker
 * takes what is due on the service's clock: a user whose streak is indeed lost then (the user's
 * state read again: freezes or an extension not drained yet keep it) records one event, its id
 * naming the user and the expiry, so it is recorded once. While a socket wants a live topic, the
 * live publisher notes the extensions of the users whose topic is wanted, and each user whose
 * topic becomes wanted from their stored streak (src/engine/webhooks/clock-notes.ts), so the event
 * is made for them too (src/engine/live/clock.ts). An expiry only moves later (ZADD GT): two
 * noters, each in the log's order, never take a user back to an earlier expiry than the one noted
 * last.
 */
import type pg from 'pg';
import { isControl } from '../../domain/notifications/rules.js';
import { userTimeOf } from '../../domain/clock.js';
import { currentPeriod } from '../../domain/periods.js';
import { expiresAt, stateFromHash, streakView } from '../../domain/streaks/state.js';
import { userView } from '../../domain/users.js';
import { eventId, type ParsedEntry, type WebhookEvent } from '../../domain/webhooks/events.js';
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { loggedStreak } from '../../domain/streaks/standing.js';
import type { LoggedEvent } from '../../model/log.js';
import { announce } from './record.js';
import type { LiveInterest } from '../live/wanted.js';
import * as dueTake from '../../redis/scripts/dueTake.js';
import { listIn } from '../../lib/lists.js';
import type { StreakSettings } from '../../model/entities.js';

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
  await Promise.all([...byTenant].map(([tenant, pairs]) => deps.redis.zadd(deps.keys.streakLosses(tenant), 'GT', ...pairs)));
}

/** When the streak a user's hash holds is lost if nothing happens (ms), or null for none alive at `now`. */
export function storedExpiry(h: Record<string, string>, rule: StreakSettings, now: number): number | null {
  const t = userTimeOf(h, now);
  const { day, period } = currentPeriod(rule.frequency, t);
  return expiresAt(rule, stateFromHash(h, rule, day, period, t.jumped), period, h.tz ?? '');
}

/** Records the losses due now (and publishes them live: `live`); answers how many deliveries. */
export async function recordLosses(deps: Pick<Context, 'redis' | 'keys' | 'store' | 'clock' | 'settings'>, pool: pg.Pool, live: LiveInterest | null): Promise<number> {
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
    /** Streaks still alive (a freeze bridged the period, a pause covers it): due again when they are lost. */
    const again: (string | number)[] = [];
    for (let i = 0; i < due.length; i += 2) {
      const userId = due[i];
      const expiry = Number(due[i + 1]);
      const h = await redis.hgetall(keys.forUser(tenant, userId).user);
      if (h.id === undefined) continue;
      const t = userTimeOf(h, now);
      const { day, period } = currentPeriod(rule.frequency, t);
      const state = stateFromHash(h, rule, day, period, t.jumped);
      if (state.length === 0) continue;
      if (streakView(rule, state, period).length > 0) {
        const later = storedExpiry(h, rule, now);
        if (later !== null && later > expiry) again.push(later, userId);
        continue;
      }
      const type = 'streak.lost';
      events.push({
        type, id: eventId([settings.prefix, type, tenant, userId, expiry]), tenant, userId, at: expiry, coalesce: false,
        body: JSON.stringify({ type, user: userView(h, isControl(snapshot.notifications, tenant, h)), length: state.length }),
      });
    }
    recorded += await announce(deps, pool, events, live);
    // Taken, each only while its expiry is the one read (a later extension noted meanwhile stays).
    await dueTake.run(redis, key, due);
    if (again.length > 0) await redis.zadd(key, 'GT', ...again);
  }
  return recorded;
}
