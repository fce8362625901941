/**
 * The codec of lua/livePublish-2.lua: publishes one message on a live topic.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LiveTopicKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    livePublish(
      seq: string, history: string, channel: string, now: number, keep: number, ttlMs: number, topic: string, type: string, data: string,
    ): Result<number, Context>;
  }
}

export type Keys = Pick<LiveTopicKeys, 'seq' | 'history' | 'channel'>;

export interface Args {
  /** Wall-clock ms. */
  now: number;
  /** Messages the history keeps. */
  keep: number;
  /** ms the sequence and history are kept after the last message. */
  ttlMs: number;
  topic: string;
  type: string;
  /** JSON */
  data: string;
}

/** The message's sequence number. */
export function run(redis: RedisClient, k: Keys, a: Args): Promise<number> {
  return redis.livePublish(k.seq, k.history, k.channel, a.now, a.keep, a.ttlMs, JSON.stringify(a.topic), a.type, a.data);
}
