/**
 * The codec of lua/setExclusion-2.lua: a user's exclusion from the rankings started or ended on
 * their partition, and the log's `excluded` or `included` entry appended.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    setExclusion(user: string, log: string, exclude: string, entry: string, held: string, seq: string): Result<(string | number)[], Context>;
  }
}

/** An exclusion as the user hash's 'x' keeps it. */
export interface HeldExclusion {
  /** The log entry id the user's placements are ordered against (the `excluded` entry's). */
  seq: string;
  /** When (ms, the service's clock). */
  at: number;
  reason: string;
}

/** The user hash's 'x' ('<entry id>|<ms>|<reason>'), or null when it is not set. */
export function heldExclusion(field: string | null | undefined): HeldExclusion | null {
  if (field === null || field === undefined || field === '') return null;
  const a = field.indexOf('|');
  const b = field.indexOf('|', a + 1);
  return { seq: field.slice(0, a), at: Number(field.slice(a + 1, b)), reason: field.slice(b + 1) };
}

/** What the script did: `entryId` null when the user already was in that state (nothing changed). */
export interface ExclusionSet {
  entryId: string | null;
  /** The exclusion as it stands after the call (null: not excluded). */
  held: HeldExclusion | null;
}

/**
 * Excludes the user (`exclusion` given: when and why; `seq` the entry id to order by, '' for the
 * new entry's own), or ends their exclusion (`exclusion` null). Null for an unknown user (nothing changed).
 */
export async function run(
  redis: RedisClient, k: Pick<UserKeys, 'user' | 'log'>, entry: string, exclusion: { at: number; reason: string } | null, seq = '',
): Promise<ExclusionSet | null> {
  const r = await redis.setExclusion(
    k.user, k.log, exclusion === null ? '0' : '1', entry, exclusion === null ? '' : `${exclusion.at}|${exclusion.reason}`, seq,
  );
  if (r[0] === ScriptCode.NOT_FOUND) return null;
  return { entryId: r[0] === 0 ? null : String(r[0]), held: heldExclusion(String(r[1])) };
}
