/**
 * The clock's events on the live topics (docs/live.md; docs/live.md): `streak.lost`, the
 * freezes' events (src/engine/webhooks/losses.ts, freezes.ts) and a league's outcomes
 * (src/engine/leaderboards/league-final.ts) on the user's topic, and `leaderboard.started` and
 * `leaderboard.finished` (src/domain/webhooks/clock-events.ts, src/engine/leaderboards/finalise.ts)
 * on the board's. The passes that make them for the webhooks make them for the live topics too while some socket wants a topic (LiveInterest, as the worker process's
 * publisher knows them: src/engine/live/wanted.ts); each is published on the topics wanted now, once: a marker per topic and event id (the id names the occasion) keeps a pass made
 * again, or by another worker process, from publishing it twice. An event more than LATE_MS old
 * (the workers were down, or no socket wanted anything while it came due) is left to the REST API.
 */
import { dataOf } from '../../domain/live/changes.js';
import { boardTopic, isUserTopic, userTopic } from '../../domain/live/topics.js';
import { sharedMessage } from '../../domain/live/visibility.js';
import type { WebhookEvent } from '../../domain/webhooks/events.js';
import type { WebhookType } from '../../model/entities.js';
import { sentTogether } from '../../redis/coalesce.js';
import { liveTenants } from '../../redis/users.js';
import type { Context } from '../context.js';
import { publish, scopedTopic, unscope } from './topic-store.js';
import type { LiveInterest } from './wanted.js';

/** The clock's event types sent live. */
export const LIVE_CLOCK_TYPES: ReadonlySet<WebhookType> = new Set([
  'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned', 'leaderboard.started', 'leaderboard.finished',
  'league.promoted', 'league.demoted', 'league.stayed',
]);

/** How late a clock event may still be published (ms, the service's clock). */
const LATE_MS = 15 * 60_000;
/** How long a published event's marker is kept (ms): longer than any event stays due. */
const ONCE_MS = 2 * 86_400_000;

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** The scoped topics an event goes to: its user's, or its board's in its tenant (every tenant for a run about to start). */
function topicsOf(ev: WebhookEvent, tenants: () => string[]): string[] {
  if (!LIVE_CLOCK_TYPES.has(ev.type)) return [];
  if (ev.type.startsWith('leaderboard.')) {
    const { leaderboard } = JSON.parse(ev.body) as { leaderboard?: { key?: string } };
    if (typeof leaderboard?.key !== 'string') return [];
    const topic = boardTopic(leaderboard.key);
    return (ev.tenant === '' ? tenants() : [ev.tenant]).map((t) => scopedTopic(t, topic));
  }
  return ev.tenant === '' || ev.userId === '' ? [] : [scopedTopic(ev.tenant, userTopic(ev.userId))];
}

/** Publishes the events on the topics some socket wants, each once; answers how many messages. */
export async function publishClockEvents(deps: Deps, interest: LiveInterest, events: WebhookEvent[]): Promise<number> {
  const now = deps.clock.now();
  let tenantList: string[] | null = null;
  const tenants = () => (tenantList ??= liveTenants(deps.store.current));
  const sends: { ev: WebhookEvent; scoped: string }[] = [];
  for (const ev of events) {
    if (now - ev.at > LATE_MS) continue;
    for (const scoped of topicsOf(ev, tenants)) sends.push({ ev, scoped });
  }
  if (sends.length === 0) return 0;
  const { redis, keys } = deps;
  const wanted = sends.filter((x) => interest.has(x.scoped));
  const marked = await Promise.all(sentTogether(redis, () => wanted.map(({ ev, scoped }) => {
    const { tenant, topic } = unscope(scoped);
    return redis.set(keys.liveOnce(tenant, topic, ev.id), '1', 'PX', ONCE_MS, 'NX');
  })));
  const first = wanted.filter((_, i) => marked[i] === 'OK');
  await Promise.all(sentTogether(redis, () => first.map(({ ev, scoped }) => {
    const { tenant, topic } = unscope(scoped);
    const data = dataOf(ev.type, ev.body);
    const message = isUserTopic(topic) ? { type: ev.type, data } : sharedMessage(ev.type, JSON.parse(data) as object);
    return publish(deps, tenant, topic, [message]).catch(async (err: unknown) => {
      // Not published: the next pass may publish it.
      await redis.del(keys.liveOnce(tenant, topic, ev.id)).catch(() => undefined);
      throw err;
    });
  })));
  return first.length;
}
