/**
 * A user's keys in their partition that the erasure's script (src/engine/erasure/erase.ts) did not
 * name: those of metrics and points systems deleted since the user's events wrote them, which no
 * event can write any more. Found by the workers' pass (src/engine/erasure/pass.ts) with a
 * walk of the keyspace (SCAN's MATCH walks every key whatever the pattern): the user's metric
 * hashes (`um:<metric>:<scope>`) and points hashes (`up:<scope>:<system>`), and their field of the
 * tenant's points totals (`ptt:<tenant>:<system>`). Whether a metric or system is deleted is read
 * after the walk: a key found of one missing then is of one deleted. A key of a metric or system
 * still configured is left alone: it may be a new user's of the same id.
 */
import { scanKeys } from '../../redis/client.js';
import { globEscaped } from '../../redis/keys.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

export interface LeftoversResult {
  keys: number;
  members: number;
  touched: Set<string>;
}

/** The user's keys of deleted metrics and systems in their partition, and their deleted systems' totals, removed. */
export async function eraseLeftovers(deps: Deps, tenant: string, userId: string): Promise<LeftoversResult> {
  const { redis, keys } = deps;
  const u = keys.forUser(tenant, userId);
  const metricKey = `${u.slot}um:`;
  const metricScope = `:${u.scope}`;
  const points = u.points;
  const totals = `${u.slot}ptt:${tenant}:`;
  const found: { key: string; metric?: string; system?: string }[] = [];
  for await (const batch of scanKeys(redis, `${globEscaped(u.slot)}*`, 1000)) {
    for (const key of batch) {
      if (key.startsWith(metricKey) && key.endsWith(metricScope) && key.length > metricKey.length + metricScope.length) {
        found.push({ key, metric: key.slice(metricKey.length, key.length - metricScope.length) });
      } else if (key.startsWith(points)) found.push({ key, system: key.slice(points.length) });
      else if (key.startsWith(totals)) found.push({ key, system: key.slice(totals.length) });
    }
  }
  const r: LeftoversResult = { keys: 0, members: 0, touched: new Set() };
  if (found.length === 0) return r;
  const [metrics, systems] = await Promise.all([redis.hkeys(keys.config('metrics')), redis.hkeys(keys.config('points'))]);
  const liveMetrics = new Set(metrics);
  const liveSystems = new Set(systems);
  const field = keys.partitionPointsTotal(tenant, userId, '').field;
  for (const { key, metric, system } of found) {
    if (metric !== undefined ? liveMetrics.has(metric) : liveSystems.has(system!)) continue;
    // A metric's id holds no ':' (a uuid), so the key is this user's and no other's.
    if (metric !== undefined && metric.includes(':')) continue;
    const removed = key.startsWith(totals) ? await redis.hdel(key, field) : await redis.del(key);
    if (removed === 0) continue;
    if (key.startsWith(totals)) r.members += removed; else r.keys += removed;
    r.touched.add(key);
  }
  return r;
}
