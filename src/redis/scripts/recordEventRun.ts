/**
 * The codec of lua/recordEventRun-4.lua: a run of events of one user on one metric (a batch's
 * items) in one call, each applied by the body of its own event function, with that function's
 * keys and its arguments as its codec makes them (`argsOf` of ./recordEventPlan.ts and
 * ./recordEvent.ts).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import type { ScriptCode } from '../codes.js';
import type { Reply } from './recordEventPlan.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    recordEventRun(key1: string, key2: string, key3: string, key4: string, ...args: string[]): Result<RunReply, Context>;
  }
}

/** The events' answers in order, up to the first hand-back other than a replay (the rest were not run). */
export interface RunAnswer {
  answers: Reply[];
  /** The event after `answers` raised an error of Redis in its body (what it wrote before stays); the rest were not run. */
  failed: boolean;
}

type RunReply = Reply[] | [typeof ScriptCode.RUN_FAILED, Reply[]];

/** Which event function's body runs the events: recordEventPlan's ('p') or recordEvent's ('e'). */
export type RunKind = 'p' | 'e';

/** `keys`: the event function's four keys (the same for every event of the run); `events`: each one's arguments. */
export async function run(redis: RedisClient, keys: readonly [string, string, string, string], kind: RunKind, events: readonly string[][]): Promise<RunAnswer> {
  const args: string[] = [kind + events.map((e) => e.length).join(',')];
  for (const e of events) for (const a of e) args.push(a);
  const reply = await redis.recordEventRun(keys[0], keys[1], keys[2], keys[3], ...args);
  // A run's answers start with an event's (a string or a list), never a number.
  if (typeof reply[0] === 'number') return { answers: reply[1] as Reply[], failed: true };
  return { answers: reply as Reply[], failed: false };
}
