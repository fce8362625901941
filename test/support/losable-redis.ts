/**
 * A Redis of a test's own that can lose everything (restore tests): a redis-server that keeps
 * nothing on disk, or a 3-primary Cluster of its own, each wiped and back empty on demand.
 */
import { startRedisCluster, type RedisClusterHandle } from './redis-cluster.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

export interface LosableRedis {
  /** The environment that points laurel at it (changes when a Cluster is made again). */
  env: Record<string, string>;
  /** Loses everything and comes back empty (a new Cluster for a Cluster). */
  wipe(): Promise<void>;
  stop(): Promise<void>;
}

export async function singleRedis(): Promise<LosableRedis> {
  const server: RedisServer = await startRedisServer();
  return {
    env: { REDIS_URL: server.url, REDIS_CLUSTER_NODES: '' },
    async wipe() {
      await server.kill();
      await server.start();
    },
    stop: () => server.stop(),
  };
}

export async function ownCluster(): Promise<LosableRedis> {
  let cluster: RedisClusterHandle = await startRedisCluster();
  const nodes = () => cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
  const redis: LosableRedis = {
    env: { REDIS_CLUSTER_NODES: nodes() },
    async wipe() {
      await cluster.stop();
      cluster = await startRedisCluster();
      redis.env = { REDIS_CLUSTER_NODES: nodes() };
    },
    stop: () => cluster.stop(),
  };
  return redis;
}
