/**
 * A live topic in Redis (lua/livePublish-2.lua, lua/liveJoin-3.lua): its sequence, its bounded
 * history and its shard channel, under one hash tag per topic, so a Cluster spreads the topics over
 * its shards (Keys.liveTopic). How long each part lasts is set here.
 */
import type { Context } from '../context.js';
import * as liveJoin from '../../redis/scripts/liveJoin.js';
import * as livePublish from '../../redis/scripts/livePublish.js';
import { isUserTopic, topicName } from '../../domain/live/topics.js';
import { isShared } from '../../domain/live/visibility.js';

/** Messages a topic's history keeps for a client that resumes with `since`. */
export const HISTORY_KEEP = 100;
/** How long a topic's sequence and history outlive its last message (ms). */
export const HISTORY_TTL_MS = 15 * 60_000;
/** How long a topic stays wanted after an api process last said its sockets want it (ms). */
export const WANT_MS = 120_000;
/** Messages one publish script takes at most (a user with a burst of events in one batch of the log takes several). */
const PUBLISH_AT_ONCE = 100;
/** How often an api process says again that its sockets want their topics (ms). */
export const WANT_REFRESH_MS = 30_000;

type Deps = Pick<Context, 'redis' | 'keys'>;

/** The topic as the shard channel, the api processes and the want set name it: tenant and topic. */
export const scopedTopic = (tenant: string, topic: string): string => `${tenant}|${topic}`;

/** Splits a scoped topic (scopedTopic) back into tenant and topic. */
export function unscope(scoped: string): { tenant: string; topic: string } {
  const bar = scoped.indexOf('|');
  return { tenant: scoped.slice(0, bar), topic: scoped.slice(bar + 1) };
}

/**
 * Publishes messages on a topic, in order (one script, one SPUBLISH): numbered, kept, sent; answers
 * the last one's sequence number. A topic other than a user's own is shared: it takes only messages
 * cut to what every client key may see (src/domain/live/visibility.ts `sharedMessage`), and throws
 * on any other. A topic's first number is the wall clock's ms times 1000
 * (lua/includes/liveAdd.lua): the wall clock, not the service's, which a test or a demonstration
 * may set back.
 */
export function publish(deps: Deps, tenant: string, topic: string, messages: livePublish.Message[]): Promise<number> {
  if (!isUserTopic(topic)) {
    const open = messages.find((m) => !isShared(m));
    if (open !== undefined) throw new Error(`live: a "${open.type}" on the shared topic ${topic} not cut to its public fields`);
  }
  const k = deps.keys.liveTopic(tenant, topic);
  // A call at most PUBLISH_AT_ONCE messages, sent one after another (in order: one connection).
  const calls: Promise<number>[] = [];
  for (let i = 0; i < messages.length; i += PUBLISH_AT_ONCE) {
    calls.push(livePublish.run(deps.redis, k, { now: Date.now(), keep: HISTORY_KEEP, ttlMs: HISTORY_TTL_MS, topic: topicName(topic), messages: messages.slice(i, i + PUBLISH_AT_ONCE) }));
  }
  return Promise.all(calls).then((seqs) => seqs[seqs.length - 1]);
}

/** What joining a topic answers: its last sequence number, and the history after `since` (oldest first). */
export interface Joined {
  seq: number;
  after: string[];
}

/**
 * Marks a topic (its id) wanted (a `resync` first when nobody wanted it: lua/liveJoin-3.lua) and reads its
 * sequence, and with `since` the history after it.
 */
export async function join(deps: Deps, tenant: string, topic: string, since: number | undefined): Promise<Joined> {
  const k = deps.keys.liveTopic(tenant, topic);
  return liveJoin.run(deps.redis, k, { now: Date.now(), keep: HISTORY_KEEP, ttlMs: HISTORY_TTL_MS, wantMs: WANT_MS, topic: topicName(topic), since });
}
