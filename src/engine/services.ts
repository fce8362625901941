/**
 * What the api and the workers share: the Redis connection with the scripts loaded, the
 * configuration followed as it changes, and the engine's context around them.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type pg from 'pg';
import { API_POOL, connectPostgres } from '../postgres/pool.js';
import { Clock } from '../lib/clock.js';
import { Metrics } from '../lib/metrics.js';
import type { Settings } from '../lib/settings.js';
import { ConfigStore } from '../config/store.js';
import { answersPing, closeClient, connectNodes, createClient, probeRedis, type RedisClient } from '../redis/client.js';
import { RedisOutage } from '../redis/outage.js';
import { Keys } from '../redis/keys.js';
import { defineScripts, loadScripts, preloadScripts, type Script } from '../redis/scripts.js';
import type { Deps, Services } from './deps.js';
import { Jobs } from './jobs.js';
import { PendingPlacements } from './durability/outage-phase2.js';
import { CompletionStats } from './achievements/completion-stats.js';

/** What `GET /ready` reports beside Redis and the configuration. */
export interface Readiness {
  scriptsLoaded: boolean;
}

export interface ConnectOptions {
  /**
   * Whether to load the scripts and the function library into Redis (true). An api process of
   * several (src/app/processes.ts) leaves it to the primary, which loaded them before starting it.
   */
  preload?: boolean;
}

/** Connects Redis and loads scripts and configuration: what the api and the workers share. */
export async function connect(settings: Settings, log: Logger, readiness?: Readiness, opts: ConnectOptions = {}): Promise<Services> {
  await probeRedis(settings);
  const outage = new RedisOutage(log);
  const { redis, scripts } = await scriptedClient(settings, outage, 'laurel');
  if (opts.preload !== false) await preloadScripts(redis, scripts);
  if (readiness) readiness.scriptsLoaded = true;
  const keys = new Keys(settings.prefix, settings.partitions);
  const clock = new Clock(settings.clock);
  const store = new ConfigStore(redis, keys, clock, log, outage, settings.heartbeatMs);
  await store.start();
  const metrics = new Metrics({ record: settings.metrics });
  metrics.gauge('laurel_config_version', 'The configuration version this process has loaded; across processes, the oldest.', () => store.current.version, 'min');
  metrics.counter('laurel_store_errors_total', '', 'store', () => ({ redis: outage.failures }));
  const stats = new CompletionStats(redis, keys);
  const jobs = new Jobs(settings, keys, log, outage);
  const placements = new PendingPlacements({ redis, keys, store, log });
  let pool: Promise<pg.Pool> | null = null;
  const postgres = (): Promise<pg.Pool> => {
    pool ??= connectPostgres(settings, API_POOL).catch((err: unknown) => { pool = null; throw err; });
    return pool;
  };
  return {
    settings, log, redis, keys, store, clock, metrics, stats, jobs, outage, processId: randomUUID(), placements, postgres,
    async close() {
      if (pool) await pool.then((p) => p.end(), () => undefined);
      placements.close();
      await jobs.close();
      await store.stop();
      await closeClient(redis);
    },
  };
}

/**
 * A connection named `name`, watched by `outage`, connected (each primary of a Cluster), with the
 * scripts defined on it. It fails fast while Redis is down (requests answer 503) and reconnects by
 * itself with a backoff.
 */
async function scriptedClient(settings: Settings, outage: RedisOutage, name: string): Promise<{ redis: RedisClient; scripts: Script[] }> {
  const redis = createClient(settings, { connectionName: name, failFast: true });
  outage.watch(redis, name);
  try {
    await redis.connect();
    await connectNodes(redis);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const scripts = loadScripts();
  defineScripts(redis, scripts);
  return { redis, scripts };
}

/**
 * `svc` with a Redis connection of its own (the scripts defined on it, loaded already), for the
 * workers when they run in an api's process (`laurel start` with one api process): on the api's
 * connection an event's script waited behind a drain pass's pipelined reads and writes, and their
 * replies, which a connection answers in order. What else `svc` holds (the configuration, the
 * jobs) stays shared. `close` closes the connection only.
 */
export async function withOwnRedis(settings: Settings, svc: Services, name: string): Promise<{ services: Services; close(): Promise<void> }> {
  const { redis } = await scriptedClient(settings, svc.outage, name);
  return { services: { ...svc, redis }, close: () => closeClient(redis) };
}

/** Whether Redis answers a PING (the workers' readiness; the caller bounds the wait). */
export async function redisAnswers(deps: Pick<Deps, 'redis'>): Promise<boolean> {
  return (await deps.redis.ping()) === 'PONG';
}

/** Whether Redis answers a PING within `ms` (the api's readiness); false on a failure. */
export function redisAnswersWithin(deps: Pick<Deps, 'redis'>, ms: number): Promise<boolean> {
  return answersPing(deps.redis, ms);
}
