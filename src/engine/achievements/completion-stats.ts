/**
 * Achievement statistics of a tenant: how many users it has and how many completed each
 * achievement. Both are kept per partition (the partition's user set, and a counter hash the
 * scripts bump on each completion), so reading them sums over every partition; the sums are cached
 * for a second per tenant, and this process drops its cache whenever it completes an achievement.
 */
import type { RedisClient } from '../../redis/client.js';
import type { Keys } from '../../redis/keys.js';
import type { TenantStats } from '../../domain/achievements.js';

export class CompletionStats {
  private readonly redis: RedisClient;
  private readonly keys: Keys;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { at: number; stats: Promise<TenantStats> }>();

  constructor(redis: RedisClient, keys: Keys, ttlMs = 1000) {
    this.redis = redis;
    this.keys = keys;
    this.ttlMs = ttlMs;
  }

  invalidate(tenant: string): void {
    this.cache.delete(tenant);
  }

  get(tenant: string): Promise<TenantStats> {
    const hit = this.cache.get(tenant);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.stats;
    const stats = this.read(tenant);
    this.cache.set(tenant, { at: Date.now(), stats });
    stats.catch(() => this.cache.delete(tenant));
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
