/**
 * A user's stored profile as the reads need it: the whole hash, or some of its fields. A user that
 * does not exist reads as null.
 */
import type { UserHash } from '../../domain/users.js';
import { userAndHash } from '../../redis/users.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

/** The user's hash, or null when there is no such user. */
export async function userHash(deps: Deps, tenant: string, userId: string): Promise<UserHash | null> {
  const h: UserHash = await deps.redis.hgetall(deps.keys.forUser(tenant, userId).user);
  return h.id === undefined ? null : h;
}

/** Some fields of the user's hash, in order (null for a field not set), or null when there is no such user. */
export async function userFields(deps: Deps, tenant: string, userId: string, fields: string[]): Promise<(string | null)[] | null> {
  const [id, ...values] = await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, 'id', ...fields);
  return id === null ? null : values;
}

/** The user's hash of one metric (`d:<day>` changes, idempotency keys, filtered sums), or null when there is no such user. */
export function userMetricHash(deps: Deps, tenant: string, userId: string, metricId: string): Promise<Record<string, string> | null> {
  return userAndHash(deps, tenant, userId, (u) => deps.keys.userMetric(u, metricId));
}

/** One field of the user's hash of one metric (a filtered sum), or null. */
export function userMetricField(deps: Deps, tenant: string, userId: string, metricId: string, field: string): Promise<string | null> {
  return deps.redis.hget(deps.keys.userMetric(deps.keys.forUser(tenant, userId), metricId), field);
}
