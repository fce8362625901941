import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/cluster-global-setup.ts'],
    testTimeout: 30000,
    hookTimeout: 60000,
  },
});
