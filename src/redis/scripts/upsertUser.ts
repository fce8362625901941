/**
 * The codec of lua/upsertUser-4.lua: an explicit identification (create, upsert or update).
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    upsertUser(
      user: string, users: string, log: string, points: string,
      mode: string, creation: string, needsEmail: string, entry: string, creationPoints: string, ...pairs: string[]
    ): Result<(string | number)[], Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'users' | 'log' | 'points'>;

export interface Args {
  mode: 'create' | 'upsert' | 'update';
  userId: string;
  now: number;
  /** '1' when the request sets subscribeToEmails to true without an email, else ''. */
  needsEmail: string;
  /** The log entry (JSON). */
  entry: string;
  /** The user-creation triggers' points: the day field they count on and the JSON {c, s, b}; null without. */
  creationPoints: { dayField: string; json: string } | null;
  /** User hash field/value pairs, maybe ending with the breakdown marker (lua/includes/writeUser.lua). */
  pairs: string[];
}

export interface Upserted {
  created: boolean;
  /** The awards as accruePoints answers them ('' without). */
  awards: unknown;
  /** The log entry's id. */
  seq: string;
  /** The breakdown attributes this changed, with their old values (JSON), or ''. */
  moved: string;
  /** The user hash after the change, flat (HGETALL). */
  flat: (string | number)[];
}

/** The upsert, or the code it was refused with (src/engine/script-errors.ts answers it). */
export type Answer = Upserted | typeof ScriptCode.SUBSCRIBE_WITHOUT_EMAIL | typeof ScriptCode.EXISTS | typeof ScriptCode.NOT_FOUND;

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const r = await redis.upsertUser(
    k.user, k.users, k.log, k.points, a.mode, new Date(a.now).toISOString() + a.userId, a.needsEmail, a.entry,
    a.creationPoints === null ? '' : `${a.now}|${a.creationPoints.dayField}|${a.creationPoints.json}`, ...a.pairs,
  );
  const code = r[0];
  if (code === ScriptCode.SUBSCRIBE_WITHOUT_EMAIL || code === ScriptCode.EXISTS || code === ScriptCode.NOT_FOUND) return code;
  return { created: r[1] === 1, awards: r[2], seq: String(r[3]), moved: String(r[4]), flat: r.slice(5) };
}
