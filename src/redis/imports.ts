/**
 * The history imports noted until their runs are finalised again (`<prefix>:{imports}`, import id ->
 * '<tenant>|<earliest occurredAt, ms>': src/engine/batches/import-runs.ts): written before an
 * import is accepted, forgotten once the tenant's imports are applied. While a tenant has one, the
 * rankings' webhooks leave its runs alone (src/engine/webhooks/rankings.ts).
 */
import type { RedisClient } from './client.js';
import type { Keys } from './keys.js';

export interface NotedImport {
  importId: string;
  tenant: string;
  /** Its earliest event's time (ms; NaN when unreadable). */
  earliest: number;
}

/** Notes an import (before it is accepted). */
export async function noteImport(redis: RedisClient, keys: Keys, importId: string, tenant: string, earliest: number): Promise<void> {
  await redis.hset(keys.importsToFinalise, importId, `${tenant}|${earliest}`);
}

/** The imports noted. */
export async function notedImports(redis: RedisClient, keys: Keys): Promise<NotedImport[]> {
  return Object.entries(await redis.hgetall(keys.importsToFinalise)).map(([importId, value]) => {
    const bar = value.lastIndexOf('|');
    return { importId, tenant: value.slice(0, bar), earliest: Number(value.slice(bar + 1)) };
  });
}

/** Forgets imports. */
export async function forgetImports(redis: RedisClient, keys: Keys, importIds: string[]): Promise<void> {
  if (importIds.length > 0) await redis.hdel(keys.importsToFinalise, ...importIds);
}
