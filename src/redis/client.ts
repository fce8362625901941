/**
 * Redis connections: one client for a single Redis (REDIS_URL) or a Cluster (REDIS_CLUSTER_NODES).
 * Start-up probes first, without retries, so an unreachable Redis fails fast with a clear message.
 */
import { Redis, Cluster, type RedisOptions, type ClusterOptions } from 'ioredis';
import type { Settings } from '../settings.js';

export type RedisClient = Redis | Cluster;

export class RedisUnavailableError extends Error {}

function where(settings: Settings): string {
  return settings.redisClusterNodes.length > 0
    ? `the Redis Cluster at ${settings.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(', ')}`
    : `Redis at ${redact(settings.redisUrl)}`;
}

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

export interface ClientOptions {
  /** BullMQ workers need `null` (block forever); the request path wants a bounded number. */
  maxRetriesPerRequest?: number | null;
  connectionName?: string;
}

export function createClient(settings: Settings, opts: ClientOptions = {}): RedisClient {
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest: opts.maxRetriesPerRequest === undefined ? 2 : opts.maxRetriesPerRequest,
    connectionName: opts.connectionName,
    enableAutoPipelining: false,
  };
  if (settings.redisClusterNodes.length > 0) {
    const clusterOptions: ClusterOptions = {
      redisOptions,
      scaleReads: 'master',
      enableAutoPipelining: false,
      maxRedirections: 16,
    };
    if (opts.maxRetriesPerRequest === null) clusterOptions.maxRedirections = 16;
    return new Cluster(settings.redisClusterNodes, clusterOptions);
  }
  return new Redis(settings.redisUrl, redisOptions);
}

/** Connects once without retries and pings; throws RedisUnavailableError with a how-to. */
export async function probeRedis(settings: Settings, timeoutMs = 3000): Promise<void> {
  let probe: RedisClient;
  if (settings.redisClusterNodes.length > 0) {
    probe = new Cluster(settings.redisClusterNodes, {
      lazyConnect: true,
      clusterRetryStrategy: () => null,
      redisOptions: { connectTimeout: timeoutMs, maxRetriesPerRequest: 0 },
    });
  } else {
    probe = new Redis(settings.redisUrl, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
  }
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    throw new RedisUnavailableError(
      `laurel cannot reach ${where(settings)} (${(err as Error).message}). ` +
        'Start one (for example: redis-server --port 6379, or docker compose up redis) ' +
        'or point REDIS_URL (or REDIS_CLUSTER_NODES) at a running Redis 7.',
    );
  } finally {
    probe.disconnect();
  }
}
