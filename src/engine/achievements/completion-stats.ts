/**
 * Achievement statistics of a tenant: how many users it has and how many completed each
 * achievement. Both are kept per partition (the partition's user set, and a counter hash the
 * scripts bump on each completion), so reading them sums over every partition.
 *
 * The sums are cached per process, under the tenant's version: a counter (one key, on a slot of
 * its own) that whatever adds a user or a completion moves once its script ran and before it
 * answers. A read makes one GET of the version and sums again only when it moved, or when the sums
 * are a second old (a change whose writer died before it moved the version). So a read that follows
 * an answered change, in any api process, sees it.
 */
import type { RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';
import type { TenantStats } from '../../domain/achievements.js';
import type { CompletionCounts } from '../context.js';

export class CompletionStats implements CompletionCounts {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { at: number; version: string; stats: Promise<TenantStats> }>();

  constructor(redis: RedisClient, keys: Keys, ttlMs = 1000) {
    this.redis = redis;
    this.keys = keys;
    this.ttlMs = ttlMs;
  }

  /**
   * Notes that the tenant's statistics changed: resolves once the version moved (a failure to move
   * it is not the change's: the cache's second bounds what it leaves stale).
   */
  changed(tenant: string): Promise<void> {
    this.cache.delete(tenant);
    return this.redis.incr(this.keys.achievementStatsVersion(tenant)).then(() => undefined, () => undefined);
  }

  async get(tenant: string): Promise<TenantStats> {
    const version = (await this.redis.get(this.keys.achievementStatsVersion(tenant))) ?? '';
    const hit = this.cache.get(tenant);
    if (hit !== undefined && hit.version === version && Date.now() - hit.at < this.ttlMs) return hit.stats;
    const stats = this.read(tenant);
    const entry = { at: Date.now(), version, stats };
    this.cache.set(tenant, entry);
    stats.catch(() => {
      if (this.cache.get(tenant) === entry) this.cache.delete(tenant);
    });
    return stats;
  }

  private async read(tenant: string): Promise<TenantStats> {
    const partitions = Array.from({ length: this.keys.partitions }, (_, p) => p);
    const parts = await Promise.all(partitions.map(async (p) => {
      const [users, counts] = await Promise.all([
        this.redis.scard(this.keys.partitionUsers(p, tenant)),
        this.redis.hgetall(this.keys.partitionCompletions(p, tenant)),
      ]);
      return { users, counts };
    }));
    const completions = new Map<string, number>();
    let users = 0;
    for (const part of parts) {
      users += part.users;
      for (const [id, n] of Object.entries(part.counts)) completions.set(id, (completions.get(id) ?? 0) + Number(n));
    }
    return { users, completions };
  }
}
