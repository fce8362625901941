/**
 * The api process: connects Redis (failing fast), loads scripts and configuration, makes sure an
 * admin key exists, and serves HTTP until close(). One of several api processes
 * (src/app/processes.ts) leaves what is done once per start-up to its primary.
 */

import type { Logger } from 'pino';
import { Liveness } from '../engine/durability/liveness.js';
import { Authenticator } from '../http/auth.js';
import { ensureAdminKey } from './bootstrap.js';
import { HttpServer, type Route } from '../http/server.js';
import { documentInfo } from './document-info.js';
import { adminRoutes } from '../routes/admin/config.js';
import { applicationKeyRoutes } from '../routes/admin/application-keys.js';
import { adminAchievementRoutes } from '../routes/admin/achievements.js';
import { adminPointsSystemRoutes } from '../routes/admin/points-systems.js';
import { adminPointsTriggerRoutes } from '../routes/admin/points-triggers.js';
import { adminPointsLevelRoutes } from '../routes/admin/points-levels.js';
import { adminPointsBoostRoutes } from '../routes/admin/points-boosts.js';
import { adminLeaderboardRoutes } from '../routes/admin/leaderboards.js';
import { adminLeagueRoutes } from '../routes/admin/leagues.js';
import { adminLeaderboardStatsRoutes } from '../routes/admin/leaderboard-stats.js';
import { achievementRoutes } from '../routes/app/achievements.js';
import { adminStreakRoutes } from '../routes/admin/streaks.js';
import { adminStreakSettingsRoutes } from '../routes/admin/streak-settings.js';
import { adminNotificationSettingsRoutes } from '../routes/admin/notification-settings.js';
import { adminSettingsRoutes } from '../routes/admin/settings.js';
import { adminNotificationTemplateRoutes } from '../routes/admin/notification-templates.js';
import { adminWebhookRoutes } from '../routes/admin/webhooks.js';
import { adminBatchEventRoutes } from '../routes/admin/batch-events.js';
import { adminImportRoutes } from '../routes/admin/import.js';
import { adminAnalyticsRoutes } from '../routes/admin/analytics.js';
import { adminUserRoutes } from '../routes/admin/users.js';
import { adminErasureRoutes } from '../routes/admin/erasures.js';
import { adminUserExportRoutes } from '../routes/admin/user-export.js';
import { adminUserClockRoutes } from '../routes/admin/user-clock.js';
import { adminFairPlayRoutes } from '../routes/admin/fair-play.js';
import { adminAuditRoutes } from '../routes/admin/audit.js';
import { AuditRecorder } from '../engine/audit/record.js';
import { auditAnswers } from '../http/audit.js';
import { adminNotificationDeliveryRoutes } from '../routes/admin/notification-deliveries.js';
import { streakRoutes } from '../routes/app/streaks.js';
import { pointsRoutes } from '../routes/app/points.js';
import { leaderboardRoutes } from '../routes/app/leaderboards.js';
import { leagueRoutes } from '../routes/app/leagues.js';
import { eventRoutes } from '../routes/app/events.js';
import { openApiRoute, opsRoutes } from '../routes/ops.js';
import { connect, type Readiness } from '../engine/services.js';
import type { Services } from '../engine/deps.js';
import { keyLimits } from '../engine/keys/rate-limit.js';
import { guardInstallation } from '../engine/installation-check.js';
import { userRoutes } from '../routes/app/users.js';
import { wrappedRoutes } from '../routes/app/wrapped.js';
import { emailLinkRoutes } from '../routes/app/email-links.js';
import { dashboardRoutes } from '../routes/dashboard.js';
import { liveRoute, LIVE_PATH } from '../routes/app/live.js';
import { LiveSockets } from '../http/live-socket.js';
import { LiveFanout } from '../engine/live/fanout.js';
import { closeClient, createClient, settleWithin, subscribe } from '../redis/client.js';
import type { Metrics } from '../lib/metrics.js';
import type { Settings } from '../lib/settings.js';

export const PREFIXES = { app: ['/api', '/v1'], admin: ['/admin/v1'], ops: [''] };

export interface ApiHandle {
  port: number;
  services: Services;
  /** Every route the server mounts, /openapi.json included: what the document describes. */
  routes: readonly Route[];
  /** The live topics this process holds (tests make it say again that it holds them: refresh). */
  fanout: LiveFanout;
  /** The audit log's recorder: `settle` queues the entries it holds (tests read them at once). */
  audit: Pick<AuditRecorder, 'settle'>;
  /** Stops listening, waits for requests in flight, then closes Redis. */
  close(): Promise<void>;
}

/** Every route the api serves but the OpenAPI document's own. */
export function apiRoutes(svc: Services, readiness: Readiness, scrape?: () => Promise<string>): Route[] {
  return [
    ...opsRoutes(svc, readiness, scrape), ...eventRoutes(svc), ...userRoutes(svc), ...wrappedRoutes(svc), ...achievementRoutes(svc), ...streakRoutes(svc),
    ...pointsRoutes(svc), ...leaderboardRoutes(svc), ...leagueRoutes(svc), ...emailLinkRoutes(svc), liveRoute(), ...dashboardRoutes(),
    ...adminRoutes(svc), ...applicationKeyRoutes(svc), ...adminAchievementRoutes(svc),
    ...adminPointsSystemRoutes(svc), ...adminPointsTriggerRoutes(svc), ...adminPointsLevelRoutes(svc), ...adminPointsBoostRoutes(svc),
    ...adminLeaderboardRoutes(svc), ...adminLeagueRoutes(svc), ...adminLeaderboardStatsRoutes(svc),
    ...adminStreakRoutes(svc), ...adminStreakSettingsRoutes(svc),
    ...adminNotificationSettingsRoutes(svc), ...adminSettingsRoutes(svc), ...adminNotificationTemplateRoutes(svc), ...adminNotificationDeliveryRoutes(svc),
    ...adminWebhookRoutes(svc), ...adminAnalyticsRoutes(svc), ...adminUserRoutes(svc), ...adminErasureRoutes(svc), ...adminUserExportRoutes(svc), ...adminUserClockRoutes(svc), ...adminFairPlayRoutes(svc), ...adminBatchEventRoutes(svc), ...adminImportRoutes(svc),
    ...adminAuditRoutes(svc),
  ];
}

export interface ApiOptions {
  /**
   * The primary of several api processes did the start-up's work once before starting this one:
   * the scripts are loaded into Redis, the installation checked (restored, with
   * LAUREL_AUTO_RESTORE), the first admin key made.
   */
  prepared?: boolean;
  /**
   * What answers `GET /metrics`, made from this process's metrics: one api process of several asks
   * its primary for the installation's (src/app/metrics-ipc.ts). Unset: this process's own.
   */
  scrape?: (metrics: Metrics) => () => Promise<string>;
}

export async function startApi(settings: Settings, log: Logger, services?: Services, opts: ApiOptions = {}): Promise<ApiHandle> {
  const prepared = opts.prepared === true;
  const readiness: Readiness = { scriptsLoaded: services !== undefined };
  const svc = services ?? (await connect(settings, log, readiness, { preload: !prepared }));
  if (!prepared) {
    if (!services) await guardInstallation(svc, log);
    await ensureAdminKey(svc.store, svc.redis, svc.keys, svc.clock, log, settings.adminKey);
  }
  const limits = keyLimits(svc, settings);
  const auth = new Authenticator(svc, limits);
  // The Admin API's writes, recorded once answered (src/http/audit.ts).
  const audit = new AuditRecorder(svc);
  const server = new HttpServer({
    bodyLimit: settings.bodyLimit, log: log.child({ component: 'http' }), guard: auth.guard, prefixes: PREFIXES, metrics: svc.metrics, answered: auditAnswers(audit, PREFIXES),
  });
  const described = apiRoutes(svc, readiness, opts.scrape?.(svc.metrics));
  const routes = [...described, openApiRoute(described, documentInfo(PREFIXES))];
  // Live updates: the WebSocket route before the HTTP routes (GET /live answers what is no upgrade).
  const subscriber = createClient(settings, { connectionName: 'laurel-live', shardedSubscribers: true });
  svc.outage.watch(subscriber, 'laurel-live');
  let sockets: LiveSockets | null = null;
  const warn = (err: unknown, what: string) => svc.outage.warn(log, err, what);
  const fanout = new LiveFanout({ ...svc, warn, lingerMs: settings.liveLingerS * 1000 }, subscriber, (channel, message) => { server.uws.publish(channel, message); }, () => {
    // Said once by the outage account when Redis is away; this only when sockets were open.
    log.info({ sockets: sockets?.count ?? 0 }, 'live: the subscriber connection to Redis dropped; the sockets are closed and their clients resume');
    sockets?.closeAll(1012, 'live updates restarting: reconnect and resume with since');
  });
  sockets = new LiveSockets({
    guard: auth.guard, route: liveRoute(), store: svc.store, fanout, log: log.child({ component: 'live' }),
    maxBackpressure: settings.liveMaxBackpressure, idleTimeoutS: settings.liveIdleTimeoutS, stillValid: (p) => auth.stillValid(p),
    limits,
  });
  sockets.mount(server.uws, PREFIXES.app.map((p) => p + LIVE_PATH));
  // An erasure's notice: the erased user's topics dropped (src/engine/erasure/elsewhere.ts),
  // or without topics every topic of a deleted tenant (src/engine/erasure/tenant-pass.ts).
  const drops = await subscribe(svc.redis, svc.keys.live.dropped, {
    message: (text) => {
      let notice: { t: string; topics?: string[] };
      try {
        notice = JSON.parse(text) as { t: string; topics?: string[] };
      } catch (err) {
        warn(err, 'live: an erasure\'s notice of another form');
        return;
      }
      const dropped = notice.topics === undefined ? fanout.dropTenant(notice.t) : fanout.drop(notice.t, notice.topics);
      dropped.catch((err: unknown) => warn(err, 'live: could not drop an erased user\'s or tenant\'s topics'));
    },
    error: (err) => warn(err, 'live: the erasures\' notices'),
    // A notice sent while Redis was away is lost: its topics go once their sockets let them go.
    resubscribed: () => {},
    connection: (client) => svc.outage.watch(client, 'laurel-erasure-notices'),
  });
  const liveSockets = sockets;
  svc.metrics.gauge('laurel_live_sockets', 'Live update sockets open.', () => liveSockets.count);
  svc.metrics.gauge('laurel_live_topics', 'Live topics the api processes subscribe to (a topic counted once per process).', () => fanout.topics);
  svc.metrics.counter('laurel_live_messages_total', 'Live messages the api processes received from Redis, each sent to every socket of the topic.', null, () => ({ '': fanout.delivered }));
  server.mount(routes);
  // Configuration writes made through the other api processes wait until this one has them.
  await svc.store.follow(svc.processId);
  const liveness = new Liveness(svc.redis, svc.keys, svc.processId);
  await liveness.start(settings.heartbeatMs);
  const port = await server.listen(settings.host, settings.port);
  log.info({ host: settings.host, port, prefix: settings.prefix, clock: settings.clock, rateLimit: settings.rateLimit, userKeyRateLimit: settings.userKeyRateLimit }, 'laurel api listening');
  return {
    port,
    services: svc,
    routes,
    fanout,
    audit,
    async close() {
      fanout.close();
      drops.close();
      liveSockets.close();
      await server.close();
      // The entries of the last answers queued before Redis's connection closes.
      await settleWithin(audit.settle(), 2000);
      await closeClient(subscriber);
      await settleWithin(liveness.stop(), 2000);
      if (!services) await svc.close();
    },
  };
}
