/**
 * Vitest globalSetup: one Redis Cluster shared by the whole test run, handed
 * to tests as `inject('redisClusterNodes')` ("host:port,host:port,...").
 * An empty string means no cluster is available and cluster tests should skip.
 */
import type { TestProject } from 'vitest/node';
import { redisServerAvailable, startRedisCluster } from './redis-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisClusterNodes: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // An externally managed cluster (e.g. in CI) takes precedence over booting
  // one; setting the variable to '' opts out of cluster tests altogether.
  const external = process.env.REDIS_CLUSTER_NODES;
  if (external !== undefined) {
    project.provide('redisClusterNodes', external);
    return undefined;
  }

  const unavailable = redisServerAvailable();
  if (unavailable) {
    console.warn(`[cluster-global-setup] Redis Cluster tests will be skipped: ${unavailable}`);
    project.provide('redisClusterNodes', '');
    return undefined;
  }

  const cluster = await startRedisCluster();
  project.provide('redisClusterNodes', cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(','));
  return () => cluster.stop();
}
