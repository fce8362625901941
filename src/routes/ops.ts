/**
 * Operations: `GET /health` (the process is up), `GET /ready` (Redis reachable, scripts loaded,
 * configuration loaded), `GET /metrics` (Prometheus) and `GET /openapi.json` (the OpenAPI document
 * of every route, src/http/openapi.ts). None needs a key.
 */
import type { Deps } from '../engine/deps.js';
import { redisAnswersWithin, type Readiness } from '../engine/services.js';
import { HttpError } from '../lib/errors.js';
import { METRICS_CONTENT_TYPE } from '../lib/metrics.js';
import { json, ok } from '../http/reply.js';
import type { Route } from '../http/server.js';
import { openApiDocument, type DocumentInfo } from '../http/openapi.js';
import { batchBacklog, type BatchBacklog } from '../engine/batches/status.js';

/**
 * The batch queues' gauges, the whole installation's: read from Redis when scraped (once for both),
 * so each process answers the same, and several processes' values make one by their maximum.
 */
function registerBatchGauges(deps: Deps): void {
  let reading: Promise<BatchBacklog> | null = null;
  const read = () => (reading ??= batchBacklog(deps).finally(() => { reading = null; }));
  deps.metrics.gauge('laurel_batch_items_waiting', 'Batch event items accepted and not yet applied, in every partition\'s queue.',
    async () => (await read()).waiting, 'max');
  deps.metrics.gauge('laurel_batch_lag_seconds', 'How long the oldest batch event item waiting has waited (0 when none waits).',
    async () => (await read()).lagSeconds, 'max');
}

/**
 * `scrape` answers `GET /metrics`: this process's metrics, or (one api process of several) the
 * whole installation's, added up by the primary (src/app/metrics-ipc.ts).
 */
export function opsRoutes(deps: Deps, readiness: Readiness, scrape: () => Promise<string> = () => deps.metrics.render()): Route[] {
  const { store } = deps;
  registerBatchGauges(deps);
  return [
    {
      method: 'get', path: '/health', family: 'ops', handler: () => ok({ status: 'ok' }),
      doc: { summary: 'The process is up', success: [200] },
    },
    {
      method: 'get', path: '/metrics', family: 'ops',
      doc: { summary: 'Prometheus metrics of the whole installation (every api process, and the workers of laurel start)', success: [200], contentType: METRICS_CONTENT_TYPE },
      handler: async () => ({ status: 200, body: await scrape(), contentType: METRICS_CONTENT_TYPE }),
    },
    {
      method: 'get', path: '/ready', family: 'ops',
      doc: { summary: 'Redis reachable, scripts and configuration loaded, no restore running', success: [200], refusals: [503] },
      handler: async () => {
        const redisOk = await redisAnswersWithin(deps, 1000);
        const restored = !store.restoring && !store.lostData;
        const checks = { redis: redisOk, scripts: readiness.scriptsLoaded, config: store.loaded, restored };
        if (redisOk && readiness.scriptsLoaded && store.loaded && restored) {
          return ok({ status: 'ready', checks, configVersion: store.current.version });
        }
        const failing = Object.entries(checks).filter(([, v]) => !v).map(([k]) => k).join(', ');
        const err = new HttpError('not_ready', failing);
        return json(err.status, { error: err.message, code: err.code, checks });
      },
    },
  ];
}

/**
 * `GET /openapi.json`: the document of `routes` and of itself, built once, here. A public
 * description, as /health is: no key.
 */
export function openApiRoute(routes: readonly Route[], info: DocumentInfo): Route {
  let body = '';
  const route: Route = {
    method: 'get', path: '/openapi.json', family: 'ops',
    doc: { summary: 'This document: the OpenAPI 3.1 description of the Application API, the Admin API and the operations', success: [200] },
    handler: () => ({ status: 200, body }),
  };
  body = JSON.stringify(openApiDocument([...routes, route], info));
  return route;
}
