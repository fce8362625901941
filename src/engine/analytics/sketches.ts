/**
 * The active users' sketches (src/engine/analytics/active-users.ts) kept through a Redis loss: the
 * log drain notes, beside each PFADD, the day whose sketch it changed (a set per tenant in the
 * sketches' slot); a snapshot copies the sketches of the days noted since the last one (every
 * sketch on a full snapshot) into Postgres with the other keys (src/engine/durability/snapshot.ts);
 * `laurel restore` puts them back and adds to them the users of the entries it replays from the
 * archive, so a range's active users and each day's weekly active users are what they were.
 */
import type { RedisClient } from '../../redis/client.js';
import { scanKeys } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';

/** How long a sketch is kept after it was written last (a range spans at most 366 days, a week before it). */
export const SKETCH_KEEP_S = 400 * 86_400;

const SKETCH = /:\{an:[^}]*\}:active:\d{4}-\d{2}-\d{2}$/;

/** Whether `key` is an active users' sketch. */
export function isSketch(key: string): boolean {
  return SKETCH.test(key);
}

/** Tenants' days, the slot of each tenant's sketches read in one transaction. */
const TENANTS_AT_ONCE = 50;

export interface SketchRead {
  /** The sketches read (DUMP payloads), by key. */
  dumps: Map<string, Buffer>;
  /** Notes the days read as changed again (their copy failed: the next snapshot takes them). */
  putBack(): Promise<void>;
}

async function dumpAll(redis: RedisClient, names: string[]): Promise<Map<string, Buffer>> {
  const dumps = new Map<string, Buffer>();
  if (names.length === 0) return dumps;
  const multi = redis.multi();
  for (const name of names) multi.dumpBuffer(name);
  const results = (await multi.exec()) ?? [];
  results.forEach(([err, dump], i) => {
    if (err) throw err;
    if (dump !== null) dumps.set(names[i], dump as Buffer);
  });
  return dumps;
}

/**
 * The sketches a snapshot copies: every one when `full`, else those of the days noted changed for
 * `tenants`, the notes taken (a day written again meanwhile is noted again: the next snapshot
 * copies it once more).
 */
export async function readSketches(deps: { redis: RedisClient; keys: Keys }, tenants: string[], full: boolean): Promise<SketchRead> {
  const { redis, keys } = deps;
  const dumps = new Map<string, Buffer>();
  const taken = new Map<string, string[]>();
  const take = async (tenant: string) => {
    const changed = keys.activeUsersChanged(tenant);
    const [[err, days]] = ((await redis.multi().smembers(changed).del(changed).exec()) ?? []) as [Error | null, string[]][];
    if (err) throw err;
    if (days.length === 0) return;
    taken.set(tenant, days);
    for (const [k, v] of await dumpAll(redis, days.map((d) => keys.activeUsers(tenant, d)))) dumps.set(k, v);
  };
  try {
    for (let i = 0; i < tenants.length; i += TENANTS_AT_ONCE) await Promise.all(tenants.slice(i, i + TENANTS_AT_ONCE).map(take));
    if (full) {
      for await (const batch of scanKeys(redis, keys.activeUsersPattern)) {
        // One slot per tenant: each key alone (a DUMP needs no transaction of its own).
        const fresh = batch.filter((k) => isSketch(k) && !dumps.has(k));
        for (const [k, v] of await Promise.all(fresh.map(async (k) => [k, await redis.dumpBuffer(k)] as const))) if (v !== null) dumps.set(k, v);
      }
    }
  } catch (err) {
    await putBack(redis, keys, taken);
    throw err;
  }
  return { dumps, putBack: () => putBack(redis, keys, taken) };
}

async function putBack(redis: RedisClient, keys: Keys, taken: Map<string, string[]>): Promise<void> {
  await Promise.all([...taken].map(([tenant, days]) => redis.sadd(keys.activeUsersChanged(tenant), ...days)));
}

/** After a restore put a sketch back (RESTORE, without its expiry): kept as long as one just written. */
export async function keepRestoredSketch(redis: RedisClient, key: string): Promise<void> {
  await redis.expire(key, SKETCH_KEEP_S);
}
