/**
 * The codec of lua/eraseUser-n.lua: a user's keys and memberships in their partition removed at
 * once, and the log's `erased` entry appended.
 */
import type { Result } from 'ioredis';
import type { RedisClient } from '../client.js';
import { ScriptCode } from '../codes.js';
import type { Keys as KeyBuilder, UserKeys } from '../keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    eraseUser(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Result<(string | number)[], Context>;
  }
}

export interface Args {
  tenant: string;
  userId: string;
  /** The points systems whose partition totals may hold the user. */
  systems: string[];
  /** The user's keys to delete besides the user hash (user-metric hashes, streak history, points). */
  own: string[];
  /** The log entry (JSON). */
  entry: string;
}

/** A glob pattern matching `s` literally. */
function globEscaped(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** The log entry's id and the keys deleted, or null for an unknown user (nothing changed). */
export async function run(
  redis: RedisClient, keys: KeyBuilder, u: UserKeys, a: Args,
): Promise<{ entryId: string; deleted: number } | null> {
  const p = u.partition;
  const points = keys.partitionPointsChanged(p);
  const totals = a.systems.map((s) => keys.partitionPointsTotals(p, a.tenant, s));
  const fixed = [
    u.user, u.log, u.users, u.completions, keys.partitionDue(p), keys.partitionAnniversaries(p),
    keys.partitionNotificationsDue(p), points.due, points.latest,
  ];
  const all = [...fixed, ...totals, ...a.own];
  const field = keys.partitionPointsTotal(a.tenant, a.userId, a.systems[0] ?? '').field;
  const r = await redis.eraseUser(
    all.length, ...all, a.tenant, a.userId, field, totals.length, `*${globEscaped(JSON.stringify(a.userId))}*`, a.entry,
  );
  if (r[0] === ScriptCode.NOT_FOUND) return null;
  return { entryId: String(r[0]), deleted: Number(r[1]) };
}
