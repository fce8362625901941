/**
 * The workers' health endpoint (docs/operations.md, "The workers' health endpoint"): with
 * LAUREL_WORKERS_PORT set, a small HTTP server of the workers process answers `GET /ready` (every
 * readiness check registered here: 200 when all pass, else 503 naming the failing ones) and
 * `GET /metrics` (the process's metrics: src/lib/metrics.ts). Other modules register what they
 * know: `registerReadiness(name, () => ({ ok, detail }))`, and their own series on `metrics`
 * (`metrics.gauge(...)`, `metrics.counter(...)`, or prom-client metrics with `registers:
 * [metrics.registry]`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { METRICS_CONTENT_TYPE, type Metrics } from '../src/lib/metrics.js';
import { SettingsError } from '../src/lib/settings.js';

/** What a readiness check says: whether it passes, and anything worth showing (JSON). */
export interface ReadinessResult {
  ok: boolean;
  detail?: unknown;
}

export type ReadinessCheck = () => ReadinessResult | Promise<ReadinessResult>;

/** How long a check may take; one still running then fails, with that said. */
export const CHECK_MS = 2000;

export class WorkersHealth {
  readonly metrics: Metrics;
  private readonly log: Logger;
  private readonly checks = new Map<string, ReadinessCheck>();
  private server: Server | null = null;

  constructor(metrics: Metrics, log: Logger) {
    this.metrics = metrics;
    this.log = log;
  }

  /** A check `GET /ready` runs; registered again under its name, the newer replaces the older. */
  registerReadiness(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Every check's answer (each bounded by CHECK_MS; one that throws fails with its message). */
  async readiness(): Promise<{ ok: boolean; checks: Record<string, ReadinessResult> }> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]): Promise<[string, ReadinessResult]> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<ReadinessResult>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${CHECK_MS} ms` }), CHECK_MS);
      });
      try {
        const r = await Promise.race([Promise.resolve().then(check), late]);
        return [name, r];
      } catch (err) {
        return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }];
      } finally {
        clearTimeout(timer);
      }
    }));
    return { ok: entries.every(([, r]) => r.ok), checks: Object.fromEntries(entries) };
  }

  /** Serves `/ready` and `/metrics` on `host`:`port` (0: a free port); resolves with the port. */
  async listen(host: string, port: number): Promise<number> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const answer = (status: number, body: string, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        answer(405, JSON.stringify({ error: `Method ${req.method} is not allowed here: GET /ready or /metrics`, code: 'method_not_allowed' }));
        return;
      }
      if (path === '/metrics') {
        this.metrics.render().then((text) => answer(200, text, METRICS_CONTENT_TYPE), (err: unknown) => {
          this.log.error({ err }, 'workers metrics failed');
          answer(500, JSON.stringify({ error: 'Internal error', code: 'internal' }));
        });
      } else if (path === '/ready') {
        void this.readiness().then(({ ok, checks }) => answer(ok ? 200 : 503, JSON.stringify(ok
          ? { status: 'ready', checks }
          : { error: `Not ready: ${Object.entries(checks).filter(([, r]) => !r.ok).map(([n]) => n).join(', ')}`, code: 'not_ready', checks })));
      } else if (path === '/health') {
        answer(200, JSON.stringify({ status: 'ok' }));
      } else {
        answer(404, JSON.stringify({ error: `No route ${req.method} ${path}: the workers answer /ready, /metrics and /health`, code: 'route_not_found' }));
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => { server.off('error', reject); resolve(); });
    }).catch((err: unknown) => {
      throw new SettingsError(`the workers cannot listen on ${host}:${port} for LAUREL_WORKERS_PORT (${(err as Error).message})`);
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
