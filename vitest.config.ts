import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One Redis Cluster (from redis-server) for the whole run; see test/support/cluster-global-setup.ts.
    globalSetup: ['test/support/cluster-global-setup.ts'],
    // Each file starts its own server with its own key prefix, so files may run in parallel.
    pool: 'forks',
    testTimeout: 30000,
    hookTimeout: 60000,
  },
});
