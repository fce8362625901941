import type { Logger } from 'pino';
import type pg from 'pg';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import type { Settings } from '../lib/settings.js';
import type { ConfigStore } from '../config/store.js';
import type { RedisClient } from '../redis/client.js';
import type { Keys } from '../redis/keys.js';
import type { Jobs } from './jobs.js';
import type { TenantStats } from '../domain/achievements.js';

/**
 * Achievement completions and user counts per tenant, summed over the partitions and cached per
 * process (src/engine/achievements/completion-stats.ts).
 */
export interface CompletionCounts {
  /** Notes that the tenant's statistics changed: resolves once every process will read them again. */
  changed(tenant: string): Promise<void>;
  get(tenant: string): Promise<TenantStats>;
}

/** What the engine's use cases run with; nothing is pulled from globals. */
export interface Context {
  settings: Settings;
  log: Logger;
  redis: RedisClient;
  keys: Keys;
  store: ConfigStore;
  clock: Clock;
  metrics: Metrics;
  /** Achievement completions and user counts per tenant. */
  stats: CompletionCounts;
  /** Work handed to the workers. */
  jobs: Jobs;
  /** This process's id: api processes put it in the event log (src/engine/durability/liveness.ts). */
  processId: string;
  /**
   * This process's Postgres pool for the api's reads (src/postgres/pool.ts API_POOL: sized for
   * them, each statement bounded), connected on first use (never on the event path: the Admin
   * API's analytics and deliveries). Rejects with PostgresUnavailableError when Postgres cannot be
   * reached; its errors are marked as Postgres's (src/lib/stores.ts).
   */
  postgres(): Promise<pg.Pool>;
}
