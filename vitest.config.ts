import { defineConfig } from 'vitest/config';
import { LONG_TESTS } from './test/groups.js';

export default defineConfig({
  test: {
    // The machine's Redis and Postgres (testcontainers only when unreachable), and one Redis Cluster
    // (from redis-server) for the whole run; see test/support/.
    globalSetup: ['test/support/services-global-setup.ts', 'test/support/cluster-global-setup.ts'],
    // The official SDK's answers, checked against the 1.21.1 response schemas in every file.
    setupFiles: ['test/support/wire-check.ts'],
    // Each file starts its own server with its own key prefix, so files may run in parallel.
    pool: 'forks',
    // A worker process runs its files one after another in one module graph: laurel's modules are
    // loaded once per worker, not once per file (which took a third of the suite's time). A file
    // leaves nothing behind that another could meet (its own key prefix, servers and processes,
    // stopped in afterAll), and changes no module's state (process.env put back as it was).
    isolate: false,
    // Two files at a time: Vitest's default is one fewer than the cores (one, on this 2-core
    // machine), and most of a file's time is waiting on its servers, Redis and Postgres.
    maxWorkers: 2,
    // Bounds for a hang, not for a speed: a test beside a CPU hog takes many times its quiet time
    // (test/support/hang.ts, for the waits inside a test).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // An answer awaited with expect.poll (a page's form after its request, a worker's pass) may take
    // many times Vitest's default second on this 2-core machine while other files load it: a bound
    // for a hang (test/support/hang.ts). A passing poll returns as soon as it passes.
    expect: { poll: { timeout: 60_000 } },
    // Two groups (test/groups.ts): `npm test` runs `quick`, `npm run test:long` runs `long`; a file
    // named on the command line runs in whichever holds it.
    projects: [
      { extends: true, test: { name: 'quick', include: ['test/**/*.test.ts'], exclude: LONG_TESTS } },
      { extends: true, test: { name: 'long', include: LONG_TESTS } },
    ],
  },
});
