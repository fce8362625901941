/**
 * An api process's side of live updates (docs/live.md; docs/live.md): the topics its
 * sockets hold, each subscribed once on its shard channel (SSUBSCRIBE; on a Cluster on the node of
 * the topic's slot: ioredis's sharded subscribers), counted by the sockets that hold it and
 * unsubscribed when the last lets go. What a channel brings (messages, one per line) is handed to
 * `deliver` a message at a time (uWS's own publish, to every socket of the process that subscribed
 * to it there) and kept a moment (RECENT), for a socket that joins between the history's read and
 * its own subscription.
 *
 * Taking a topic up marks it wanted in Redis (lua/liveJoin-3.lua; the want set, a hold per process:
 * src/engine/live/interest.ts) and rings the interest channel, so that the workers' publisher
 * publishes it (src/engine/live/wanted.ts); every WANT_REFRESH_MS the process says so again for all
 * it holds. When the last socket of the process lets a topic go, the process keeps holding it for
 * `lingerMs` (LAUREL_LIVE_LINGER: a client that reconnects meanwhile resumes without a `resync`),
 * then takes its hold out and rings again (those due within GATHER_MS together), so that a topic
 * nobody holds is not published any more. A process that stops leaves its holds to expire.
 */
import type { Logger } from 'pino';
import { heard, type Heard } from '../../domain/live/topics.js';
import { Cluster } from 'ioredis';
import { sentTogether } from '../../redis/coalesce.js';
import { announce, type RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';
import { holdOf, ringOf, ringsMessage } from './interest.js';
import { join, scopedTopic, WANT_MS, WANT_REFRESH_MS } from './topic-store.js';

/** Messages of a topic kept after they arrived. */
const RECENT = 32;
/** How long the holds due to be let go are gathered before the workers are told (ms). */
const GATHER_MS = 20;

interface Held {
  tenant: string;
  topic: string;
  /** The want set's member (src/engine/live/interest.ts). */
  hold: string;
  refs: number;
  /** Subscribed on the shard channel, and named as wanted. */
  ready: Promise<void>;
  recent: Heard[];
  /** The sequence number of the last message the channel brought (0 before the first). */
  last: number;
  /**
   * Dropped by an erasure of the topic's user (drop): not said to be wanted again, nor kept once
   * its last socket lets it go, until a socket takes it up anew.
   */
  dropped: boolean;
  /**
   * Sockets that joined after reading the topic up to `past` while the channel had brought less:
   * each subscribed just before the first message after `past` is handed on (the ones up to it
   * are in what it was sent on joining, and would reach it twice).
   */
  waiting: { past: number; go: () => void }[];
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
  /** This process's id: its holds in the want set carry it. */
  processId: string;
  /** How long the process keeps holding a topic after its last socket let it go (ms). */
  lingerMs: number;
  /** Where a failure goes (the process's Redis outage account, src/redis/outage.ts). */
  warn(err: unknown, what: string): void;
}

export class LiveFanout {
  private readonly deps: FanoutDeps;
  private readonly subscriber: RedisClient;
  private readonly deliver: (channel: string, message: string) => void;
  private readonly held = new Map<string, Held>();
  /** Channels being unsubscribed: taken up again only after. */
  private readonly leaving = new Map<string, Promise<void>>();
  /** Topics no socket holds, still held until `until` (ms): hold -> topic. */
  private readonly lingering = new Map<string, { tenant: string; topic: string; until: number }>();
  private sweep: NodeJS.Timeout | null = null;
  /** This process's rings so far (each ring numbered: src/engine/live/interest.ts). */
  private rings = 0;
  private closed = false;
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

  /** What a channel brought: messages, one per line (lua/includes/liveAdd.lua), each handed on. */
  private heard(channel: string, text: string): void {
    const h = this.held.get(channel);
    if (h === undefined) return;
    for (let at = 0; at < text.length;) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const message = text.slice(at, end);
      at = end + 1;
      const m = heard(message);
      h.recent.push(m);
      if (h.recent.length > RECENT) h.recent.shift();
      h.last = m.seq;
      if (h.waiting.length > 0) {
        const due = h.waiting.filter((w) => w.past < m.seq);
        if (due.length > 0) {
          h.waiting = h.waiting.filter((w) => w.past >= m.seq);
          for (const w of due) w.go();
        }
      }
      this.delivered++;
      this.deliver(channel, message);
    }
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
      const hold = holdOf(this.deps.processId, scopedTopic(tenant, topic));
      // Still held in the set: no `-` for it (this ring, numbered later, says it is held).
      this.lingering.delete(hold);
      const ring = ringOf(true, ++this.rings, Date.now(), hold);
      const leaving = this.leaving.get(channel);
      const ready = (async () => {
        await leaving;
        await this.subscriber.ssubscribe(channel);
        await redis.zadd(keys.live.wanted, Date.now() + WANT_MS, hold);
        await announce(redis, keys.live.interest, ringsMessage([ring]));
      })();
      h = { tenant, topic, hold, refs: 0, ready, recent: [], last: 0, waiting: [], dropped: false };
      this.held.set(channel, h);
    } else if (h.dropped) {
      // Taken up anew after an erasure dropped it (a new user of the same id): wanted again.
      const { hold } = h;
      h.dropped = false;
      h.ready = h.ready.then(async () => {
        await redis.zadd(keys.live.wanted, Date.now() + WANT_MS, hold);
        await announce(redis, keys.live.interest, ringsMessage([ringOf(true, ++this.rings, Date.now(), hold)]));
      });
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

  /**
   * Runs `go` (a socket's subscription to the channel) once the channel's messages after `seq` are
   * the only ones still to come: at once when it has brought `seq` or later already, else just
   * before it hands on the first message after `seq` (one up to `seq` still on its way is not
   * handed to the socket, which has it from the topic's history).
   */
  subscribeAfter(channel: string, seq: number, go: () => void): void {
    const h = this.held.get(channel);
    if (h === undefined || h.last >= seq) go();
    else h.waiting.push({ past: seq, go });
  }

  /** The messages that arrived on a channel after `seq`, as kept (RECENT). */
  recentAfter(channel: string, seq: number): Heard[] {
    return (this.held.get(channel)?.recent ?? []).filter((m) => m.seq > seq);
  }

  /** One socket lets a topic go; the last one unsubscribes it, and takes the process's hold out. */
  release(channel: string): void {
    const h = this.held.get(channel);
    if (h === undefined) return;
    if (--h.refs > 0) return;
    this.held.delete(channel);
    const leaving = h.ready.then(() => this.subscriber.sunsubscribe(channel)).then(() => undefined, () => undefined);
    this.leaving.set(channel, leaving);
    void leaving.then(() => { if (this.leaving.get(channel) === leaving) this.leaving.delete(channel); });
    if (this.closed || h.dropped) return;
    this.lingering.set(h.hold, { tenant: h.tenant, topic: h.topic, until: Date.now() + this.deps.lingerMs });
    if (this.sweep === null) {
      this.sweep = setTimeout(this.swept, this.deps.lingerMs + GATHER_MS);
      this.sweep.unref();
    }
  }

  /** Lets go the holds whose time is up, and waits for the next. */
  private readonly swept = (): void => {
    this.sweep = null;
    const now = Date.now();
    const due: string[] = [];
    let next = Infinity;
    for (const [hold, l] of this.lingering) {
      if (l.until <= now) due.push(hold);
      else next = Math.min(next, l.until);
    }
    for (const hold of due) this.lingering.delete(hold);
    if (next < Infinity && !this.closed) {
      this.sweep = setTimeout(this.swept, next - now + GATHER_MS);
      this.sweep.unref();
    }
    this.withdraw(due).catch((err: unknown) => this.deps.warn(err, 'live: could not say which topics this process let go'));
  };

  /**
   * Takes holds out of the want set, then rings (numbered now: a topic taken up again after this
   * rings later, with a larger number).
   */
  private async withdraw(holds: string[]): Promise<void> {
    if (holds.length === 0) return;
    const { redis, keys } = this.deps;
    const at = Date.now();
    const rings = holds.map((hold) => ringOf(false, ++this.rings, at, hold));
    // Sent at once: a topic taken up again meanwhile is added after.
    const parts: string[][] = [];
    for (let i = 0; i < holds.length; i += 1000) parts.push(holds.slice(i, i + 1000));
    await Promise.all(parts.map((part) => redis.zrem(keys.live.wanted, ...part)));
    await announce(redis, keys.live.interest, ringsMessage(rings));
  }

  /** Says again that the topics held are wanted (their markers, and the want set). */
  async refresh(): Promise<void> {
    const { redis, keys } = this.deps;
    const topics = [...this.held.values(), ...this.lingering.values()].map((h) => ({ tenant: h.tenant, topic: h.topic, hold: holdOf(this.deps.processId, scopedTopic(h.tenant, h.topic)) }));
    for (let i = 0; i < topics.length; i += 500) {
      // Those still held when the part is sent: a hold let go meanwhile is not added back.
      const part = topics.slice(i, i + 500).filter((h) => this.held.get(this.channelOf(h.tenant, h.topic))?.dropped === false || this.lingering.has(h.hold));
      if (part.length === 0) continue;
      await Promise.all(sentTogether(redis, () => [
        ...part.map((h) => join(this.deps, h.tenant, h.topic, undefined)),
        redis.zadd(keys.live.wanted, ...part.flatMap((h) => [Date.now() + WANT_MS, h.hold])),
      ]));
    }
  }

  /**
   * An erasure's notice (src/engine/erasure/elsewhere.ts): the erased user's topics of a
   * tenant are no longer said to be wanted, and what this process's last say wrote of them goes
   * (its hold, and the topic's wanted mark, sequence and history, which the erasure deleted before
   * a refresh of this process may have written them again). A socket that holds one keeps it
   * (nothing is published on it any more); the topic is not kept once the last lets it go.
   */
  /**
   * A deleted tenant's notice (src/engine/erasure/tenant-pass.ts): every topic of the tenant
   * this process holds or keeps lingering (its users', boards' and leagues') dropped as above.
   */
  async dropTenant(tenant: string): Promise<void> {
    const topics = new Set([...this.held.values(), ...this.lingering.values()].filter((h) => h.tenant === tenant).map((h) => h.topic));
    await this.drop(tenant, [...topics]);
  }

  async drop(tenant: string, topics: string[]): Promise<void> {
    const { redis, keys } = this.deps;
    const holds: string[] = [];
    for (const topic of topics) {
      const hold = holdOf(this.deps.processId, scopedTopic(tenant, topic));
      const h = this.held.get(this.channelOf(tenant, topic));
      if (h !== undefined) h.dropped = true;
      if (h !== undefined || this.lingering.delete(hold)) holds.push(hold);
    }
    if (holds.length === 0) return;
    await redis.zrem(keys.live.wanted, ...holds);
    for (const topic of topics) {
      const k = keys.liveTopic(tenant, topic);
      await redis.del(k.seq, k.history, k.want);
    }
  }

  /**
   * Stops. The holds stay until they expire (WANT_MS): the clients of a process that restarts
   * reconnect to another and resume without a `resync`.
   */
  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.sweep !== null) clearTimeout(this.sweep);
    this.timer = null;
    this.sweep = null;
    this.closed = true;
  }
}
