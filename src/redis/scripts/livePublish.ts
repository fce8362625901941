/**
 * The codec of lua/livePublish-2.lua: publishes messages on a live topic, in order.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LiveTopicKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    livePublish(
      seq: string, history: string, channel: string, now: number, keep: number, ttlMs: number, topic: string, ...typesAndData: string[]
    ): Result<number, Context>;
  }
}

export type Keys = Pick<LiveTopicKeys, 'seq' | 'history' | 'channel'>;

/** One message: its type, and its data as JSON. */
export interface Message {
  type: string;
  data: string;
}

export interface Args {
  /** Wall-clock ms. */
  now: number;
  /** Messages the history keeps. */
  keep: number;
  /** ms the sequence and history are kept after the last message. */
  ttlMs: number;
  topic: string;
  /** One at least, in order. */
  messages: Message[];
}

/** The last message's sequence number. */
export function run(redis: RedisClient, k: Keys, a: Args): Promise<number> {
  if (a.messages.length === 0) throw new Error('livePublish: no message');
  return redis.livePublish(k.seq, k.history, k.channel, a.now, a.keep, a.ttlMs, JSON.stringify(a.topic), ...a.messages.flatMap((m) => [m.type, m.data]));
}
