import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The machine's Redis and Postgres (testcontainers only when unreachable), and one Redis Cluster
    // (from redis-server) for the whole run; see test/support/.
    globalSetup: ['test/support/services-global-setup.ts', 'test/support/cluster-global-setup.ts'],
    // The official SDK's answers, checked against the 1.21.1 response schemas in every file.
    setupFiles: ['test/support/wire-check.ts'],
    // Each file starts its own server with its own key prefix, so files may run in parallel.
    pool: 'forks',
    testTimeout: 30000,
    hookTimeout: 60000,
  },
});
