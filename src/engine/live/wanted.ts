/**
 * The topics some socket wants, as the live publisher knows them (src/engine/live/publisher.ts): it
 * publishes only those. The api processes add each topic they take up to a sorted set scored by
 * the time until which it is wanted, say it again every WANT_REFRESH_MS, and ring a pub/sub
 * channel with a topic new to them (src/engine/live/fanout.ts). The publisher takes the topic the
 * ring names at once, then reads (rings gathered over GATHER_MS) the members scored above the
 * highest it has read less a margin (newer ones score higher: a ring costs what it brings, and
 * one missed is made up), and the whole set every RELOAD_MS. It
 * keeps a topic GRACE_MS past its time, so that a clock a little ahead of the api's never drops a
 * topic before its want marker in Redis expires (a topic taken up again after that starts with a
 * `resync`: lua/liveJoin-3.lua). The channel is heard through src/redis/client.ts `subscribe`
 * (on a Cluster, a plain connection to one node, with the backoff of the others).
 */
import { subscribe, type RedisClient, type Subscription } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';

const RELOAD_MS = 5000;
const GRACE_MS = 60_000;
const GATHER_MS = 10;
/** How far below the highest score read a ring reads again (the api processes' clocks differ a little). */
const MARGIN_MS = 5000;

export class WantedTopics {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly warn: (err: unknown, what: string) => void;
  private readonly watch: (client: object) => void;
  /** Scoped topic -> until when it is wanted (ms, wall clock). */
  private until = new Map<string, number>();
  private highest = 0;
  private timer: NodeJS.Timeout | null = null;
  private ring: NodeJS.Timeout | null = null;
  private subscription: Subscription | null = null;

  /** Told of each topic as it becomes wanted (not wanted just before), at once. */
  private readonly onFresh: (scoped: string) => void;

  constructor(
    redis: RedisClient, keys: Keys, warn: (err: unknown, what: string) => void, watch: (client: object) => void,
    onFresh: (scoped: string) => void,
  ) {
    this.onFresh = onFresh;
    this.redis = redis;
    this.keys = keys;
    this.warn = warn;
    this.watch = watch;
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
   * A ring names the topics new to an api process: wanted from now (until the set is read), so that
   * what follows the api's `subscribed` finds them known.
   */
  private rung(text: string): void {
    const now = Date.now();
    const until = now + GRACE_MS;
    for (const topic of text.split('\n')) {
      if (topic === '') continue;
      const before = this.until.get(topic) ?? 0;
      if (before <= now) this.onFresh(topic);
      if (before < until) this.until.set(topic, until);
    }
    if (this.ring !== null) return;
    this.ring = setTimeout(() => {
      this.ring = null;
      this.readNew().catch((err: unknown) => this.warn(err, 'live: could not read the topics wanted'));
    }, GATHER_MS);
  }

  /** Adds the members read; `before`: what was wanted until then (a topic not wanted in it is fresh). */
  private add(flat: string[], before = this.until): void {
    const now = Date.now();
    for (let i = 0; i < flat.length; i += 2) {
      const score = Number(flat[i + 1]);
      if (score > now && (before.get(flat[i]) ?? 0) <= now) this.onFresh(flat[i]);
      this.until.set(flat[i], Math.max(this.until.get(flat[i]) ?? 0, score + GRACE_MS));
      if (score > this.highest) this.highest = score;
    }
  }

  /** The members scored above the highest read (less the margin): what the api processes added since. */
  private async readNew(): Promise<void> {
    const from = Math.max(this.highest - MARGIN_MS, Date.now() - GRACE_MS);
    this.add(await this.redis.zrangebyscore(this.keys.live.wanted, from, '+inf', 'WITHSCORES'));
  }

  /** Reads the whole set again (and forgets what expired long ago there). */
  async reload(): Promise<void> {
    const now = Date.now();
    const key = this.keys.live.wanted;
    const flat = await this.redis.zrangebyscore(key, now - GRACE_MS, '+inf', 'WITHSCORES');
    const before = this.until;
    this.until = new Map();
    this.add(flat, before);
    // What a ring brought since the read began stays.
    for (const [topic, until] of before) if (until > now && !this.until.has(topic)) this.until.set(topic, until);
    await this.redis.zremrangebyscore(key, '-inf', now - 10 * GRACE_MS);
  }

  has(scoped: string): boolean {
    const until = this.until.get(scoped);
    return until !== undefined && until > Date.now();
  }

  /** Whether no topic is wanted now (the publisher then follows no log). */
  none(): boolean {
    const now = Date.now();
    for (const until of this.until.values()) if (until > now) return false;
    return true;
  }

  /** Every topic wanted now. */
  all(): string[] {
    const now = Date.now();
    return [...this.until].filter(([, until]) => until > now).map(([t]) => t);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.ring !== null) clearTimeout(this.ring);
    this.timer = null;
    this.subscription?.close();
    this.subscription = null;
  }
}
