/**
 * The api process: connects Redis (failing fast), loads scripts and configuration, makes sure an
 * admin key exists, and serves HTTP until close().
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Liveness } from './liveness.js';
import { Authenticator } from './auth.js';
import { ensureAdminKey } from './bootstrap.js';
import { Clock } from './clock.js';
import type { Deps } from './deps.js';
import { HttpServer } from './http/server.js';
import { Metrics } from './metrics.js';
import { PendingPlacements } from './pending-placements.js';
import { CompletionStats } from './domain/stats.js';
import { Jobs } from './jobs.js';
import { closeClient, createClient, probeRedis, settleWithin } from './redis/client.js';
import { RedisOutage } from './redis/outage.js';
import { Keys } from './redis/keys.js';
import { defineScripts, loadScripts, preloadScripts } from './redis/scripts.js';
import { adminRoutes } from './routes/admin.js';
import { adminAchievementRoutes } from './routes/admin-achievements.js';
import { adminPointsRoutes } from './routes/admin-points.js';
import { adminLeaderboardRoutes } from './routes/admin-leaderboards.js';
import { achievementRoutes } from './routes/achievements.js';
import { adminStreakRoutes } from './routes/admin-streaks.js';
import { streakRoutes } from './routes/streaks.js';
import { pointsRoutes } from './routes/points.js';
import { leaderboardRoutes } from './routes/leaderboards.js';
import { eventRoutes } from './routes/events.js';
import { opsRoutes, type Readiness } from './routes/ops.js';
import { userRoutes } from './routes/users.js';
import { wrappedRoutes } from './routes/wrapped.js';
import type { Settings } from './settings.js';
import { ConfigStore } from './store/config.js';

export const PREFIXES = { app: ['/api', '/v1'], admin: ['/admin/v1'], ops: [''] };

export interface Services extends Deps {
  /** This process's account of Redis outages: every connection reports its failures there. */
  outage: RedisOutage;
  close(): Promise<void>;
}

/** Connects Redis and loads scripts and configuration: what the api and the workers share. */
export async function connect(settings: Settings, log: Logger, readiness?: Readiness): Promise<Services> {
  await probeRedis(settings);
  const outage = new RedisOutage(log);
  // Fails fast while Redis is down (requests answer 503); reconnects by itself with a backoff.
  const redis = createClient(settings, { connectionName: 'laurel', failFast: true });
  outage.watch(redis, 'laurel');
  await redis.connect();
  const scripts = loadScripts();
  defineScripts(redis, scripts);
  await preloadScripts(redis, scripts);
  if (readiness) readiness.scriptsLoaded = true;
  const keys = new Keys(settings.prefix, settings.partitions);
  const clock = new Clock(settings.clock);
  const store = new ConfigStore(redis, keys, clock, log, outage);
  await store.start();
  const metrics = new Metrics();
  metrics.gauge(() => ['laurel_config_version', 'The configuration version this process has loaded.', store.current.version]);
  const stats = new CompletionStats(redis, keys);
  const jobs = new Jobs(settings, keys, log, outage);
  const placements = new PendingPlacements({ redis, keys, store, log });
  return {
    settings, log, redis, keys, store, clock, metrics, stats, jobs, outage, processId: randomUUID(), placements,
    async close() {
      placements.close();
      await jobs.close();
      await store.stop();
      await closeClient(redis);
    },
  };
}

export interface ApiHandle {
  port: number;
  services: Services;
  /** Stops listening, waits for requests in flight, then closes Redis. */
  close(): Promise<void>;
}

export async function startApi(settings: Settings, log: Logger, services?: Services): Promise<ApiHandle> {
  const readiness: Readiness = { scriptsLoaded: services !== undefined };
  const svc = services ?? (await connect(settings, log, readiness));
  await ensureAdminKey(svc.store, svc.redis, svc.keys, svc.clock, log, settings.adminKey);
  const auth = new Authenticator(svc.store);
  const server = new HttpServer({ bodyLimit: settings.bodyLimit, log, guard: auth.guard, prefixes: PREFIXES, metrics: svc.metrics });
  server.mount([
    ...opsRoutes(svc, readiness), ...eventRoutes(svc), ...userRoutes(svc), ...wrappedRoutes(svc), ...achievementRoutes(svc), ...streakRoutes(svc),
    ...pointsRoutes(svc), ...leaderboardRoutes(svc),
    ...adminRoutes(svc), ...adminAchievementRoutes(svc), ...adminPointsRoutes(svc), ...adminLeaderboardRoutes(svc),
    ...adminStreakRoutes(svc),
  ]);
  const liveness = new Liveness(svc.redis, svc.keys, svc.processId);
  await liveness.start(settings.heartbeatMs);
  const port = await server.listen(settings.host, settings.port);
  log.info({ host: settings.host, port, prefix: settings.prefix, clock: settings.clock }, 'laurel api listening');
  return {
    port,
    services: svc,
    async close() {
      await server.close();
      await settleWithin(liveness.stop(), 2000);
      if (!services) await svc.close();
    },
  };
}
