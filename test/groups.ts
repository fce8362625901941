/**
 * The suite's two groups (docs/testing.md, "Running the tests"): `quick`, what `npm test` runs,
 * and `long`, the tests of faults, processes, soak and scale, the Docker image's replay and the
 * load test, which `npm run test:long` runs. CI runs both (.ci/run). A file is long when it
 * starts processes or Redis servers of its own and waits on them, or loads the server for long.
 */
export const LONG_TESTS = [
  'test/ops/image.test.ts',
  'test/ops/loadtest.test.ts',
  'test/ops/startup.test.ts',
  'test/ops/processes.test.ts',
  'test/ops/metrics.test.ts',
  'test/ops/workers-stop.test.ts',
  'test/ops/restore.test.ts',
  'test/ops/restore-league-seats.test.ts',
  'test/ops/snapshot-members.test.ts',
  'test/ops/worker-queues.test.ts',
  'test/ops/queue-node-down.test.ts',
  'test/ops/redis-outage.test.ts',
  'test/ops/postgres-pressure.test.ts',
  'test/live/idle.test.ts',
  'test/api/read-cost.test.ts',
  'test/api/fuzz-openapi.test.ts',
];
