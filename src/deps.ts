import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { CompletionStats } from './domain/stats.js';
import type { Jobs } from './jobs.js';
import type { Metrics } from './metrics.js';
import type { PendingPlacements } from './pending-placements.js';
import type { RedisClient } from './redis/client.js';
import type { Keys } from './redis/keys.js';
import type { Settings } from './settings.js';
import type { ConfigStore } from './store/config.js';

/** What route modules and workers are given; nothing is pulled from globals. */
export interface Deps {
  settings: Settings;
  log: Logger;
  redis: RedisClient;
  keys: Keys;
  store: ConfigStore;
  clock: Clock;
  metrics: Metrics;
  /** Achievement completions and user counts per tenant. */
  stats: CompletionStats;
  /** Work handed to the workers. */
  jobs: Jobs;
  /** This process's id: api processes put it in the event log (src/liveness.ts). */
  processId: string;
  /** Leaderboard placements lost with Redis's connection, placed again once it answers. */
  placements: PendingPlacements;
}
