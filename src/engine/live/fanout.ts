/**
 * An api process's side of live updates (API.md, "Live updates"; docs/live.md): the topics its
 * sockets hold, each subscribed once on its shard channel (SSUBSCRIBE; on a Cluster on the node of
 * the topic's slot: ioredis's sharded subscribers), counted by the sockets that hold it and
 * unsubscribed when the last lets go. What a channel brings is handed to `deliver` (uWS's own
 * publish, to every socket of the process that subscribed to it there) and kept a moment
 * (RECENT), for a socket that joins between the history's read and its own subscription.
 *
 * Taking a topic up marks it wanted in Redis (lua/liveJoin-3.lua, the want set) and names it on the
 * interest channel, so that the workers' publisher publishes it (src/engine/live/wanted.ts); every
 * WANT_REFRESH_MS the process says so again for all it holds.
 */
import type { Logger } from 'pino';
import { heard, type Heard } from '../../domain/live/topics.js';
import { Cluster } from 'ioredis';
import { sentTogether } from '../../redis/coalesce.js';
import type { RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';
import { join, scopedTopic, WANT_MS, WANT_REFRESH_MS } from './topic-store.js';

/** Messages of a topic kept after they arrived. */
const RECENT = 32;

interface Held {
  tenant: string;
  topic: string;
  refs: number;
  /** Subscribed on the shard channel, and named as wanted. */
  ready: Promise<void>;
  recent: Heard[];
}

export interface Taken {
  /** The topic's channel: the socket subscribes to it (uWS). */
  channel: string;
  /** The topic's last sequence number when it was taken. */
  seq: number;
  /** With `since`: the history's messages after it, oldest first. */
  after: Heard[];
}

export interface FanoutDeps {
  redis: RedisClient;
  keys: Keys;
  log: Logger;
  /** Where a failure goes (the process's Redis outage account, src/redis/outage.ts). */
  warn(err: unknown, what: string): void;
}

export class LiveFanout {
  private readonly deps: FanoutDeps;
  private readonly subscriber: RedisClient;
  private readonly deliver: (channel: string, message: string) => void;
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | null = null;
  /** Messages delivered (for the metrics). */
  delivered = 0;

  /**
   * `subscriber`: a connection of its own (a Cluster's with sharded subscribers); `lost` is called
   * when it drops, since what it missed meanwhile is not known: the sockets are then closed, and
   * their clients resume with `since`.
   */
  constructor(deps: FanoutDeps, subscriber: RedisClient, deliver: (channel: string, message: string) => void, lost: () => void) {
    this.deps = deps;
    this.subscriber = subscriber;
    this.deliver = deliver;
    subscriber.on('smessage', (channel: string, message: string) => this.heard(channel, message));
    if (subscriber instanceof Cluster) {
      subscriber.on('-subscriber', () => { if (this.held.size > 0) lost(); });
    } else {
      let ready = subscriber.status === 'ready';
      subscriber.on('ready', () => { ready = true; });
      subscriber.on('close', () => {
        if (ready && this.held.size > 0) lost();
        ready = false;
      });
    }
    this.timer = setInterval(() => { this.refresh().catch((err: unknown) => deps.warn(err, 'live: could not say which topics this process wants')); }, WANT_REFRESH_MS);
    this.timer.unref();
  }

  get topics(): number {
    return this.held.size;
  }

  /** The channel of a tenant's topic. */
  channelOf(tenant: string, topic: string): string {
    return this.deps.keys.liveTopic(tenant, topic).channel;
  }

  private heard(channel: string, message: string): void {
    const h = this.held.get(channel);
    if (h === undefined) return;
    const m = heard(message);
    h.recent.push(m);
    if (h.recent.length > RECENT) h.recent.shift();
    this.delivered++;
    this.deliver(channel, message);
  }

  /**
   * Takes a topic up for one socket (released with release()): subscribed, wanted, and read (its
   * sequence, and the history after `since`).
   */
  async take(tenant: string, topic: string, since: number | undefined): Promise<Taken> {
    const { keys, redis } = this.deps;
    const channel = keys.liveTopic(tenant, topic).channel;
    let h = this.held.get(channel);
    if (h === undefined) {
      const scoped = scopedTopic(tenant, topic);
      const ready = (async () => {
        await this.subscriber.ssubscribe(channel);
        await redis.zadd(keys.live.wanted, Date.now() + WANT_MS, scoped);
        await redis.publish(keys.live.interest, scoped);
      })();
      h = { tenant, topic, refs: 0, ready, recent: [] };
      this.held.set(channel, h);
    }
    h.refs++;
    try {
      await h.ready;
      const joined = await join(this.deps, tenant, topic, since);
      return { channel, seq: joined.seq, after: joined.after.map(heard) };
    } catch (err) {
      this.release(channel);
      throw err;
    }
  }

  /** The messages that arrived on a channel after `seq`, as kept (RECENT). */
  recentAfter(channel: string, seq: number): Heard[] {
    return (this.held.get(channel)?.recent ?? []).filter((m) => m.seq > seq);
  }

  /** One socket lets a topic go; the last one unsubscribes it. */
  release(channel: string): void {
    const h = this.held.get(channel);
    if (h === undefined) return;
    if (--h.refs > 0) return;
    this.held.delete(channel);
    h.ready.then(() => this.subscriber.sunsubscribe(channel)).catch(() => undefined);
  }

  /** Says again that the topics held are wanted (their markers, and the want set). */
  async refresh(): Promise<void> {
    const { redis, keys } = this.deps;
    const held = [...this.held.values()];
    for (let i = 0; i < held.length; i += 500) {
      const part = held.slice(i, i + 500);
      await Promise.all(sentTogether(redis, () => [
        ...part.map((h) => join(this.deps, h.tenant, h.topic, undefined)),
        redis.zadd(keys.live.wanted, ...part.flatMap((h) => [Date.now() + WANT_MS, scopedTopic(h.tenant, h.topic)])),
      ]));
    }
  }

  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
