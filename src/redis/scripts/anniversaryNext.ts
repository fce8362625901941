/**
 * The codec of lua/anniversaryNext-2.lua: notes a user's next anniversary.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    anniversaryNext(user: string, due: string, member: string, coming: string, anchor: string, look: string, read: string): Result<number, Context>;
  }
}

export type Keys = Pick<UserKeys, 'user' | 'anniversaries'>;

export interface Args {
  /** '<tenant>|<uid>' */
  member: string;
  /** The next anniversary date (YYYY-MM-DD), or '~' when none is left. */
  coming: string;
  /** The local day of the user's creation (YYYY-MM-DD). */
  anchor: string;
  /** When the workers look at the user next (ms), or null for never. */
  look: number | null;
  /** 'an' as the api read it, null when absent. */
  read: string | null;
}

/** 'noted'; 'gone' for a user who does not exist; 'moved' when 'an' changed since the api read it (nothing written). */
export type Answer = 'noted' | 'gone' | 'moved';

export async function run(redis: RedisClient, k: Keys, a: Args): Promise<Answer> {
  const r = await redis.anniversaryNext(k.user, k.anniversaries, a.member, a.coming, a.anchor, a.look === null ? '' : String(a.look), a.read ?? '');
  return r === ScriptCode.MOVED ? 'moved' : r === 0 ? 'gone' : 'noted';
}
