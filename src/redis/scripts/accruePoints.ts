/**
 * The codec of lua/accruePoints-4.lua: a user's due time-trigger awards.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    accruePoints(
      user: string, points: string, due: string, log: string, member: string, dues: string, boosts: string, entry: string, ...triggers: string[]
    ): Result<(number | string | unknown[])[], Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'points' | 'due' | 'log'>;

/** A time trigger whose next due time the call writes. */
export interface Trigger {
  id: string;
  systemId: string;
  points: number;
  /** The system's maxPoints, or null. */
  cap: number | null;
  /** Its next due time as read, or null when never counted. */
  read: string | null;
  /** Its next due time after this call. */
  next: number;
  /** Its maxAwards: the count and its period's letter (h, d, w); null without. */
  most: { count: number; letter: string } | null;
}

export interface Args {
  /** '<tenant>|<uid>', the user in the due set. */
  member: string;
  /** The earliest next due time (ms): the member's new score. */
  earliest: number;
  /**
   * The awards due, oldest first: when (ms), the day field it counts on, the trigger's index in
   * `triggers`, and for a trigger with maxAwards the index of the due time's period ('' otherwise).
   */
  dues: [ms: number, dayField: string, trigger: number, period: string][];
  /** The boosts that may apply (JSON) or ''. */
  boosts: string;
  /** The log entry without its closing brace (JSON). */
  entry: string;
  triggers: Trigger[];
}

export type Answer =
  /** awards as lua/includes/points.lua pointsCommit lists them, or '' without; seq the log entry's id, or '' */
  | { awards: unknown[] | ''; seq: string }
  | 'moved' | 'not_found';

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const dues = a.dues.map(([ms, dayField, i, period]) => `${ms}:${dayField}:${i + 1}:${period}`).join(',');
  const triggers = a.triggers.map((t) => `${t.id}|${t.systemId}|${t.points}|${t.cap ?? ''}|${t.read ?? ''}|${t.next}|${t.most === null ? '' : `${t.most.count}:${t.most.letter}`}`);
  const r = await redis.accruePoints(k.user, k.points, k.due, k.log, `${a.member}|${a.earliest}`, dues, a.boosts, a.entry, ...triggers);
  if (r[0] === ScriptCode.NOT_FOUND) return 'not_found';
  if (r[0] === ScriptCode.MOVED) return 'moved';
  return { awards: Array.isArray(r[1]) ? r[1] : '', seq: String(r[2] ?? '') };
}
