/**
 * Application API keys scoped to one user (`/admin/v1/application-api-keys`, trophy-admin 1.21.1):
 * each acts for one user of one tenant (src/http/auth.ts says what that allows). The account's keys
 * are configuration, held in every process's memory; these are as many as the users, so each lives
 * in Redis on its own (`<prefix>:{k:<id>}`, src/redis/keys.ts), is read on every request made with
 * it (one script call, which takes its rate limit too), and is refused by every api process from
 * the moment it is deleted. Only the sha256 of a key is stored; the key is answered once.
 */
import type { RateLimiter } from './rate-limit.js';
import type { Context } from '../context.js';
import { scanKeys } from '../../redis/client.js';
import * as userKey from '../../redis/scripts/userKey.js';

export interface UserKey {
  id: string;
  /** The whole key's sha256, hex. */
  hash: string;
  userId: string;
  /** The tenant's storage id (src/redis/keys.ts DEFAULT_TENANT or the tenant's uuid). */
  tenant: string;
  created: string;
}

type Deps = Pick<Context, 'redis' | 'keys' | 'clock'>;

/** Stores the keys, all at once (each on its own slot). */
export async function storeUserKeys(deps: Deps, records: UserKey[]): Promise<void> {
  const { redis, keys } = deps;
  await Promise.all(records.map((k) =>
    redis.hset(keys.apiKey(k.id).record, 'h', k.hash, 'u', k.userId, 't', k.tenant, 'c', k.created)));
}

/** A key scoped to a user, as their export lists it and their erasure deletes it: its record's name, id and when it was made. */
export interface HeldUserKey {
  record: string;
  id: string;
  created: string;
}

/**
 * Every key scoped to the user (a walk of the keys' records: a user's export and erasure read
 * them, not the request path).
 */
export async function* userKeysOf(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string): AsyncGenerator<HeldUserKey> {
  const { redis, keys } = deps;
  for await (const batch of scanKeys(redis, keys.userKeyRecords, 1000)) {
    for (const record of batch) {
      const id = keys.userKeyIdOf(record);
      if (id === null) continue;
      const [t, u, c] = await redis.hmget(record, 't', 'u', 'c');
      if (t === tenant && u === userId) yield { record, id, created: c ?? '' };
    }
  }
}

/** Deletes a key of the tenant, and its rate-limit bucket; false when the tenant has no key with this id. */
export async function deleteUserKey(deps: Deps, tenant: string, id: string): Promise<boolean> {
  const { redis, keys } = deps;
  const { record, bucket } = keys.apiKey(id);
  if ((await redis.hget(record, 't')) !== tenant) return false;
  const [removed] = await Promise.all([redis.del(record), redis.del(bucket)]);
  return removed === 1;
}

/**
 * The user and tenant of the key with this id and hash, null when there is none (never was, deleted,
 * or another secret); with a limiter, takes a request of the key's that counts as `weight`
 * requests, and rejects with a 429 when it is over its limit.
 */
export async function userOfKey(
  deps: Deps, limiter: RateLimiter | null, id: string, hash: string, weight = 1,
): Promise<{ userId: string; tenant: string } | null> {
  const cost = limiter?.costOf(weight) ?? { interval: 0, tolerance: 0 };
  const r = await userKey.run(deps.redis, deps.keys.apiKey(id), { hash, now: deps.clock.now(), ...cost });
  if (r !== null && 'wait' in r) throw limiter!.refusal(r.wait);
  return r;
}
