/**
 * The points' reads (`GET /v1/users/{id}/points/{key}` and its summary and boosts, `GET
 * /v1/points/{key}/summary` and `level-summary`): a user's total and newest awards, their points
 * per day, and how a tenant's users spread over totals. The routes shape the answers.
 */
import { attributeField, awardField, pointsCountField, pointsTotalField } from '../../model/fields.js';
import { userBatches } from '../../redis/users.js';
import type { Context } from '../context.js';
import { userAndHash } from '../../redis/users.js';
import { pointsTotalsVersion } from './totals-version.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'stats'>;

/** A user's total of a system and their newest `count` awards (`[n, stored award]`, the newest first); null when no such user. */
export async function userPoints(
  deps: Deps, tenant: string, userId: string, systemId: string, count: number,
): Promise<{ total: number; awards: [number, string][] } | null> {
  const { redis, keys } = deps;
  const u = keys.forUser(tenant, userId);
  const [id, total, awarded] = await redis.hmget(u.user, 'id', pointsTotalField(systemId), pointsCountField(systemId));
  if (id === null) return null;
  // The newest awards: a:<n> down to a:<n - count + 1> (the hash keeps the last 100).
  const n = Number(awarded ?? 0);
  const numbers = Array.from({ length: Math.min(count, n) }, (_, i) => n - i);
  const raw = numbers.length === 0 ? [] : await redis.hmget(keys.userPoints(u, systemId).days, ...numbers.map(awardField));
  const awards: [number, string][] = [];
  numbers.forEach((number, i) => { if (raw[i] !== null) awards.push([number, raw[i]!]); });
  return { total: Number(total ?? 0), awards };
}

/** A user's points hash of a system (`d:<day>` totals, awards), or null when there is no such user. */
export function userPointsDays(deps: Deps, tenant: string, userId: string, systemId: string): Promise<Record<string, string> | null> {
  return userAndHash(deps, tenant, userId, (u) => deps.keys.userPoints(u, systemId).days);
}

/** How a tenant's users spread over a system's totals: those above 0, and how many have none. */
export interface Totals {
  positive: number[];
  zero: number;
}

/**
 * The tenant's users' totals of a system. Unfiltered, from the partitions' totals hashes (written
 * with each award by the script that made it: lua/includes/points.lua) and the user count; with a
 * user-attribute filter, by reading every user of the tenant, cached CACHE_MS under the tenant's
 * points totals version (src/engine/points/totals-version.ts), which a void moves: a read after a
 * void's answer reads the users again, on any api process.
 */
export class PointsTotals {
  private static readonly CACHE_MS = 5000;
  private readonly filtered = new Map<string, { at: number; version: string; totals: Promise<Totals> }>();

  constructor(private readonly deps: Deps) {}

  async of(tenant: string, systemId: string, filter: Map<string, string> | null): Promise<Totals> {
    if (filter === null) return this.all(tenant, systemId);
    const cacheKey = `${tenant}\u0000${systemId}\u0000${[...filter].join('\u0000')}`;
    const version = await pointsTotalsVersion(this.deps, tenant);
    const hit = this.filtered.get(cacheKey);
    if (hit && hit.version === version && Date.now() - hit.at < PointsTotals.CACHE_MS) return hit.totals;
    const totals = this.scan(tenant, systemId, filter);
    this.filtered.set(cacheKey, { at: Date.now(), version, totals });
    if (this.filtered.size > 1000) this.filtered.delete(this.filtered.keys().next().value!);
    totals.catch(() => this.filtered.delete(cacheKey));
    return totals;
  }

  private async all(tenant: string, systemId: string): Promise<Totals> {
    const { redis, keys, stats } = this.deps;
    const [partitions, counted] = await Promise.all([
      Promise.all(keys.pointsTotalsOfTenant(tenant, systemId).map((key) => redis.hvals(key))),
      stats.get(tenant),
    ]);
    const positive: number[] = [];
    for (const totals of partitions) {
      for (const text of totals) {
        const total = Number(text);
        if (total > 0) positive.push(total);
      }
    }
    return { positive, zero: Math.max(0, counted.users - positive.length) };
  }

  private async scan(tenant: string, systemId: string, filter: Map<string, string>): Promise<Totals> {
    const { redis, keys } = this.deps;
    const fields = [pointsTotalField(systemId), ...[...filter.keys()].map(attributeField)];
    const wanted = [...filter.values()];
    const positive: number[] = [];
    let zero = 0;
    for await (const { userIds } of userBatches(redis, keys, tenant)) {
      const pipeline = redis.pipeline();
      for (const id of userIds) pipeline.hmget(keys.forUser(tenant, id).user, ...fields);
      for (const [err, values] of (await pipeline.exec()) ?? []) {
        if (err) throw err;
        const v = values as (string | null)[];
        if (!wanted.every((w, i) => v[i + 1] === w)) continue;
        const total = Number(v[0] ?? 0);
        if (total > 0) positive.push(total);
        else zero++;
      }
    }
    return { positive, zero };
  }
}
