/**
 * The topics some socket wants, as the live publisher knows them (src/engine/live/publisher.ts): it
 * publishes only those. The api processes add each topic they take up to a sorted set with the
 * time until which it is wanted, say it again every WANT_REFRESH_MS, and name a topic new to them on
 * a pub/sub channel (src/engine/live/fanout.ts); the publisher hears the channel and reads the set
 * again every RELOAD_MS. It keeps a topic GRACE_MS past its time, so that a clock a little ahead of
 * the api's never drops a topic before its want marker in Redis expires (a topic taken up again
 * after that starts with a `resync`: lua/liveJoin-3.lua).
 */
import type { Logger } from 'pino';
import type { RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';

const RELOAD_MS = 5000;
const GRACE_MS = 60_000;

export class WantedTopics {
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly keys: Keys;
  private readonly log: Logger;
  /** Scoped topic -> until when it is wanted (ms, wall clock). */
  private until = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(redis: RedisClient, subscriber: RedisClient, keys: Keys, log: Logger) {
    this.redis = redis;
    this.subscriber = subscriber;
    this.keys = keys;
    this.log = log;
  }

  async start(): Promise<void> {
    const channel = this.keys.live.interest;
    this.subscriber.on('message', (ch: string, message: string) => {
      if (ch !== channel) return;
      const until = Date.now() + GRACE_MS * 2;
      for (const topic of message.split('\n')) if (topic !== '') this.until.set(topic, Math.max(this.until.get(topic) ?? 0, until));
    });
    await this.subscriber.subscribe(channel);
    await this.reload();
    this.timer = setInterval(() => { this.reload().catch((err: unknown) => this.log.warn({ err }, 'live: could not read the topics wanted')); }, RELOAD_MS);
    this.timer.unref();
  }

  /** Reads the set again (and forgets what expired long ago there). */
  async reload(): Promise<void> {
    const now = Date.now();
    const key = this.keys.live.wanted;
    const flat = await this.redis.zrangebyscore(key, now - GRACE_MS, '+inf', 'WITHSCORES');
    const next = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) next.set(flat[i], Number(flat[i + 1]) + GRACE_MS);
    // What the channel said since the read began stays.
    for (const [topic, until] of this.until) if (until > now && !next.has(topic)) next.set(topic, until);
    this.until = next;
    await this.redis.zremrangebyscore(key, '-inf', now - 10 * GRACE_MS);
  }

  has(scoped: string): boolean {
    const until = this.until.get(scoped);
    return until !== undefined && until > Date.now();
  }

  /** Every topic wanted now. */
  all(): string[] {
    const now = Date.now();
    return [...this.until].filter(([, until]) => until > now).map(([t]) => t);
  }

  get size(): number {
    return this.until.size;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
