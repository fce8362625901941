/**
 * The codec of lua/liveJoin-3.lua: marks a live topic wanted, answers its sequence and history.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { LiveTopicKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    liveJoin(
      seq: string, history: string, want: string, channel: string, now: number, keep: number, ttlMs: number, wantMs: number, topic: string,
      since: string,
    ): Result<string[], Context>;
  }
}

export type Keys = Pick<LiveTopicKeys, 'seq' | 'history' | 'want' | 'channel'>;

export interface Args {
  /** Wall-clock ms. */
  now: number;
  keep: number;
  ttlMs: number;
  /** ms the topic stays wanted. */
  wantMs: number;
  topic: string;
  /** Answer the history's messages after this sequence number. */
  since: number | undefined;
}

export interface Answer {
  seq: number;
  /** The history's messages after `since`, oldest first. */
  after: string[];
}

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const [seq, ...after] = await redis.liveJoin(
    k.seq, k.history, k.want, k.channel, a.now, a.keep, a.ttlMs, a.wantMs, JSON.stringify(a.topic), a.since === undefined ? '' : String(a.since),
  );
  return { seq: Number(seq), after };
}
