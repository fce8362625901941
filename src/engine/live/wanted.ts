/**
 * The topics some socket wants, as a worker process knows them (the live publisher publishes only
 * those, src/engine/live/publisher.ts; the clock's events go only to them, src/engine/live/clock.ts).
 *
 * Each api process (a holder: its process id) adds `<holder>|<scoped topic>` to a sorted set scored
 * by the time until which it holds the topic, says so again every WANT_REFRESH_MS, and rings a
 * pub/sub channel (src/engine/live/fanout.ts, src/engine/live/interest.ts): `+` for a topic it takes
 * up, `-` for one its last socket let go, after taking it out of the set. A topic is wanted while a
 * holder holds it: the last holder's `-` drops it at once (onDropped), and a holder that vanished
 * without one (a process killed) is dropped GRACE_MS past its time, so that a clock a little ahead
 * of the api's never drops a topic before its want marker in Redis expires (a topic taken up again
 * after that starts with a `resync`: lua/liveJoin-3.lua).
 *
 * A ring is heard at once; the set is read whole every RELOAD_MS, and when the channel's connection
 * comes back (the rings missed meanwhile). Rings are numbered per holder: on a Cluster two of one
 * process may arrive out of order, and one older than the last heard of its holder and topic is
 * ignored; a set read that began before a `-` was heard does not bring its holder back.
 * The channel is a shard channel (src/redis/client.ts `subscribe`, `announce`): a ring reaches
 * this subscriber before the api process has SPUBLISH's answer, so before it answers `subscribed`,
 * on a Cluster too.
 */
import { holderOf, parseRing, ringsOf } from './interest.js';
import { subscribe, type RedisClient, type Subscription } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';

const RELOAD_MS = 5000;
const GRACE_MS = 60_000;
/** How long the last ring of a holder and topic is remembered (ms): far longer than two rings may cross. */
const RING_MEMORY_MS = 2 * GRACE_MS;

/** The last ring heard of a holder and topic. */
interface LastRing {
  n: number;
  at: number;
  released: boolean;
}

/** What a worker process knows of the topics wanted. */
export interface LiveInterest {
  /** Whether some topic is wanted now. */
  any(): boolean;
  has(scoped: string): boolean;
}

export interface WantedEvents {
  /**
   * A topic became wanted (not wanted just before), told at once; `takenAt`: when the api process
   * took it up (ms, its clock), when a ring says so (a read of the set does not tell).
   */
  fresh(scoped: string, takenAt?: number): void;
  /** A topic's last holder let it go. */
  dropped(scoped: string): void;
}

export class WantedTopics implements LiveInterest {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly warn: (err: unknown, what: string) => void;
  private readonly watch: (client: object) => void;
  private readonly events: WantedEvents;
  /** Scoped topic -> holder -> until when it holds it (ms, wall clock). */
  private holds = new Map<string, Map<string, number>>();
  /** `<holder>|<scoped>` -> its last ring. */
  private readonly rings = new Map<string, LastRing>();
  private timer: NodeJS.Timeout | null = null;
  private subscription: Subscription | null = null;

  constructor(redis: RedisClient, keys: Keys, warn: (err: unknown, what: string) => void, watch: (client: object) => void, events: WantedEvents) {
    this.redis = redis;
    this.keys = keys;
    this.warn = warn;
    this.watch = watch;
    this.events = events;
  }

  async start(): Promise<void> {
    this.subscription = await subscribe(this.redis, this.keys.live.interest, {
      message: (text) => this.rung(text),
      error: (err) => this.warn(err, 'live: the subscriber of the topics wanted failed'),
      // Rings missed while it was away: read the whole set.
      resubscribed: () => { this.reload().catch((err: unknown) => this.warn(err, 'live: could not read the topics wanted')); },
      connection: (client) => this.watch(client),
    });
    await this.reload();
    this.timer = setInterval(() => { this.reload().catch((err: unknown) => this.warn(err, 'live: could not read the topics wanted')); }, RELOAD_MS);
    this.timer.unref();
  }

  /**
   * A ring: a topic taken up is wanted from now (until the set is read), so that what follows the
   * api's `subscribed` finds it known; one let go loses that holder.
   */
  private rung(text: string): void {
    const now = Date.now();
    for (const line of ringsOf(text)) {
      const ring = parseRing(line);
      if (ring === null) continue;
      const last = this.rings.get(ring.member);
      if (last !== undefined && ring.n <= last.n) continue;
      this.rings.set(ring.member, { n: ring.n, at: now, released: !ring.take });
      if (ring.take) this.hold(ring.scoped, ring.holder, now + GRACE_MS, now, ring.at);
      else this.letGo(ring.scoped, ring.holder, now);
    }
  }

  private hold(scoped: string, holder: string, until: number, now: number, takenAt?: number): void {
    let holders = this.holds.get(scoped);
    if (holders === undefined) this.holds.set(scoped, (holders = new Map()));
    const wasWanted = alive(holders, now);
    if ((holders.get(holder) ?? 0) < until) holders.set(holder, until);
    if (!wasWanted && until > now) this.events.fresh(scoped, takenAt);
  }

  private letGo(scoped: string, holder: string, now: number): void {
    const holders = this.holds.get(scoped);
    if (holders === undefined || !holders.delete(holder)) return;
    if (alive(holders, now)) return;
    this.holds.delete(scoped);
    this.events.dropped(scoped);
  }

  /** Adds the holds read (a read begun at `readAt`). */
  private add(flat: string[], readAt: number): void {
    const now = Date.now();
    for (let i = 0; i < flat.length; i += 2) {
      const score = Number(flat[i + 1]);
      const last = this.rings.get(flat[i]);
      // Let go after the read began: the read may have come before the set lost it.
      if (last !== undefined && last.released && last.at >= readAt) continue;
      const holder = holderOf(flat[i]);
      if (holder === null) continue;
      this.hold(holder.scoped, holder.holder, score + GRACE_MS, now);
    }
  }

  /** Reads the whole set again; forgets the holds past their time, and what expired long ago in the set. */
  async reload(): Promise<void> {
    const readAt = Date.now();
    const key = this.keys.live.wanted;
    const flat = await this.redis.zrangebyscore(key, readAt - GRACE_MS, '+inf', 'WITHSCORES');
    this.add(flat, readAt);
    const now = Date.now();
    for (const [scoped, holders] of this.holds) {
      for (const [holder, until] of holders) if (until <= now) holders.delete(holder);
      if (holders.size === 0) this.holds.delete(scoped);
    }
    for (const [member, last] of this.rings) if (now - last.at > RING_MEMORY_MS) this.rings.delete(member);
    await this.redis.zremrangebyscore(key, '-inf', readAt - 10 * GRACE_MS);
  }

  has(scoped: string): boolean {
    const holders = this.holds.get(scoped);
    return holders !== undefined && alive(holders, Date.now());
  }

  /** Whether some topic is wanted now. */
  any(): boolean {
    const now = Date.now();
    for (const holders of this.holds.values()) if (alive(holders, now)) return true;
    return false;
  }

  /** Whether some topic wanted now starts with `prefix` (a scoped topic's start: a tenant's league's topics). */
  anyStartingWith(prefix: string): boolean {
    const now = Date.now();
    for (const [scoped, holders] of this.holds) if (scoped.startsWith(prefix) && alive(holders, now)) return true;
    return false;
  }

  /** Every topic wanted now. */
  all(): string[] {
    const now = Date.now();
    return [...this.holds].filter(([, holders]) => alive(holders, now)).map(([scoped]) => scoped);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.subscription?.close();
    this.subscription = null;
  }
}

/** Whether a holder holds the topic at `now`. */
function alive(holders: Map<string, number>, now: number): boolean {
  for (const until of holders.values()) if (until > now) return true;
  return false;
}
