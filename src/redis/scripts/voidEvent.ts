/**
 * The codec of lua/voidEvent-4.lua: a logged event's counted value, run sums and points taken back
 * on the user's partition, the event marked voided, and the log's `voided` entry appended.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    voidEvent(
      user: string, userMetric: string, points: string, log: string, eventId: string, totalField: string, value: string, isInteger: string,
      dayField: string, runs: string, now: string, today: string, takeBack: string, entry: string, limitPeriod: string,
    ): Result<(string | number)[], Context>;
  }
}

export interface Keys extends Pick<UserKeys, 'user' | 'points' | 'log'> {
  userMetric: string;
}

export interface Args {
  eventId: string;
  totalField: string;
  /** What the event counted, negated. */
  value: number;
  /** 'd:<the event's local day>'. */
  dayField: string;
  /** The run sums the event may have added to ('r:<board id>:<run>'). */
  runs: string[];
  now: number;
  /** 'd:<today on the user's clock>'. */
  today: string;
  /** Points to take back, by system id (positive: taken off). */
  takeBack: Map<string, number>;
  /** The log entry (JSON). */
  entry: string;
  /** The event's period of the metric's limit ('<letter><index>'), whose sum the value leaves; '' none. */
  limitPeriod: string;
}

/** What a void did: its log entry, the metric's total after, the awards it made (the log's JSON, '' without). */
export interface Voided {
  entryId: string;
  total: string;
  awards: string;
}

/** The void, or 'voided' when the event was voided already, 'unknown_user' when the user is gone (nothing changed either way). */
export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Voided | 'voided' | 'unknown_user'> {
  const takeBack = [...a.takeBack].filter(([, n]) => n !== 0).map(([s, n]) => `${s}|${n}`).join(',');
  const r = await redis.voidEvent(
    k.user, k.userMetric, k.points, k.log, a.eventId, a.totalField, String(a.value), Number.isSafeInteger(a.value) ? '1' : '0',
    a.dayField, a.runs.join(','), String(a.now), a.today, takeBack, a.entry, a.limitPeriod,
  );
  if (r[0] === ScriptCode.NOT_FOUND) return 'unknown_user';
  if (r[0] === 0) return 'voided';
  return { entryId: String(r[0]), total: String(r[1]), awards: String(r[2] ?? '') };
}
