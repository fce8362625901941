/**
 * Starts the real api (and optionally the workers) in-process on a free port, against the real
 * Redis (REDIS_URL) or the test Redis Cluster, with a unique key prefix; close() stops it and
 * deletes every key of that prefix. With `processes`, the api runs as `npm start` runs it instead:
 * the built command line with the default number of api processes on one port
 * (test/support/api-processes.ts), every request on a connection of its own so that each may reach
 * any of them, and the workers (if asked for) in this process.
 */
import { randomBytes } from 'node:crypto';
import { Redis, Cluster } from 'ioredis';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { startApi, type ApiHandle } from '../../src/app/api.js';
import { createLogger } from '../../src/lib/log.js';
import { loadSettings, type Settings } from '../../src/lib/settings.js';
import { startWorkers, type WorkersHandle } from '../../workers/index.js';
import { assertConforms } from './openapi.js';
import { startApiProcesses, type ApiProcesses } from './api-processes.js';

export type Target = 'redis' | 'cluster';

export interface Response<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (not JSON-encoded) when a string is given through `raw`. */
  raw?: string;
  headers?: Record<string, string>;
  /** X-API-KEY; defaults to the admin key; null sends none. */
  key?: string | null;
  tenant?: string;
}

export interface TestServer {
  url: string;
  adminKey: string;
  prefix: string;
  settings: Settings;
  /** With `processes`, the `laurel api` running them (its primary's pid: `run.child.pid`); null in-process. */
  processes: ApiProcesses | null;
  /** The api in this process (not with `processes`: reading it throws). */
  api: ApiHandle;
  /** The workers in this process; a test that restarts them puts the new ones here (close() stops them). */
  workers: WorkersHandle | null;
  /**
   * Sends a request; every answer is checked against the 1.21.1 response schemas first
   * (test/support/openapi.ts), and one that does not conform throws a SpecViolation.
   */
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<Response<T>>;
  /** Creates metrics by key through the Admin API; returns their ids by key. */
  metrics(...keys: string[]): Promise<Record<string, string>>;
  /** Creates attributes (named after their keys) through the Admin API; returns their ids by key. */
  attributes(type: 'user' | 'event', ...keys: string[]): Promise<Record<string, string>>;
  /**
   * Posts a metric event (`user` an id or a user object, `attributes` the event's) and expects 201;
   * returns the response body.
   */
  event(metric: string, user: string | Record<string, unknown>, value: number, attributes?: Record<string, string>): Promise<any>;
  /** Sets the manual clock. */
  setClock(iso: string): Promise<void>;
  close(): Promise<void>;
}

/** The cluster's seed nodes, or '' when no cluster is available (the global setup says why). */
export function clusterNodes(): string {
  return inject('redisClusterNodes');
}

/** Any UUID version 7, as the Admin API makes ids. */
export const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
/** An id nothing has. */
export const MISSING = '00000000-0000-0000-0000-000000000000';

/** Targets to run a suite against: always single Redis, the cluster when one is available. */
export function targets(): Target[] {
  return clusterNodes() ? ['redis', 'cluster'] : ['redis'];
}

export interface StartOptions {
  target?: Target;
  clock?: 'system' | 'manual';
  workers?: boolean;
  env?: Record<string, string>;
  /** The api as `npm start` runs it: the default number of api processes, out of this process. */
  processes?: boolean;
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const prefix = opts.env?.LAUREL_PREFIX ?? `t${randomBytes(5).toString('hex')}`;
  const adminKey = opts.env?.LAUREL_ADMIN_KEY ?? `test-admin-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    LAUREL_PREFIX: prefix,
    LAUREL_ADMIN_KEY: adminKey,
    LAUREL_CLOCK: opts.clock ?? 'system',
    REDIS_CLUSTER_NODES: opts.target === 'cluster' ? clusterNodes() : '',
    ...opts.env,
  };
  const settings = loadSettings({ ...process.env, HOST: '127.0.0.1', PORT: '0', ...env });
  if (opts.target === 'cluster' && settings.redisClusterNodes.length === 0) {
    throw new Error('no Redis Cluster available for this test');
  }
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  let api: ApiHandle | null = null;
  let stopProcesses = async () => {};
  let port: number;
  let processes: ApiProcesses | null = null;
  if (opts.processes) {
    processes = await startApiProcesses(env);
    port = processes.port;
    // No keep-alive: each request (the SDK's too) on a connection of its own, which the kernel gives any process.
    const dispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ pipelining: 0 }));
    stopProcesses = async () => {
      setGlobalDispatcher(dispatcher);
      await processes!.close();
    };
  } else {
    api = await startApi(settings, log);
    port = api.port;
  }
  const workers = opts.workers ? await startWorkers(settings, log, api?.services) : null;
  const url = `http://127.0.0.1:${port}`;

  const request = async <T = any>(method: string, path: string, o: RequestOptions = {}): Promise<Response<T>> => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? adminKey : o.key;
    if (key !== null) headers['x-api-key'] = key;
    if (o.tenant !== undefined) headers['tenant-id'] = o.tenant;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    // Every answer a test provokes is checked against the 1.21.1 response schemas.
    assertConforms({ method, path, status: res.status, body: parsed });
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  };

  const server: TestServer = {
    url, adminKey, prefix, settings, workers, request, processes,
    get api(): ApiHandle {
      if (api === null) throw new Error('the api runs in processes of its own (startTestServer with processes)');
      return api;
    },
    async metrics(...keys) {
      const r = await request('POST', '/admin/v1/metrics', { body: keys.map((k) => ({ name: `Metric ${k}`, key: k })) });
      if (r.status !== 201 || r.body.created.length !== keys.length) throw new Error(`metrics: ${r.text}`);
      return Object.fromEntries((r.body.created as { key: string; id: string }[]).map((m) => [m.key, m.id]));
    },
    async attributes(type, ...keys) {
      const r = await request('POST', '/admin/v1/attributes', { body: keys.map((k) => ({ name: k, key: k, type })) });
      if (r.status !== 201 || r.body.issues?.length !== 0 || r.body.created?.length !== keys.length) {
        throw new Error(`attributes: ${r.status} ${r.text}`);
      }
      return Object.fromEntries((r.body.created as { key: string; id: string }[]).map((a) => [a.key, a.id]));
    },
    async event(metric, user, value, attributes) {
      const r = await request('POST', `/api/metrics/${metric}/event`, {
        body: { user: typeof user === 'string' ? { id: user } : user, value, attributes },
      });
      expect(r.status, r.text).toBe(201);
      return r.body;
    },
    async setClock(iso) {
      const r = await request('PUT', '/admin/v1/clock', { body: { now: iso } });
      if (r.status !== 200) throw new Error(`clock: ${r.text}`);
      // Workers of their own follow the clock as the api processes do, but no write waits for them.
      if (api === null && server.workers) await server.workers.services.store.reload();
    },
    async close() {
      // The workers the server has now (a test may have restarted them).
      if (server.workers) await server.workers.close();
      await api?.close();
      await stopProcesses();
      await deletePrefix(settings, prefix);
    },
  };
  return server;
}

/** Deletes every key of a prefix, on every primary. */
export async function deletePrefix(settings: Settings, prefix: string): Promise<void> {
  const clients: Redis[] = [];
  let cluster: Cluster | null = null;
  if (settings.redisClusterNodes.length > 0) {
    cluster = new Cluster(settings.redisClusterNodes);
    await new Promise<void>((resolve, reject) => { cluster!.once('ready', resolve); cluster!.once('error', reject); });
    clients.push(...cluster.nodes('master'));
  } else {
    clients.push(new Redis(settings.redisUrl));
  }
  try {
    for (const c of clients) {
      let cursor = '0';
      do {
        const [next, keys] = await c.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        for (const k of keys) await c.del(k);
      } while (cursor !== '0');
    }
  } finally {
    if (cluster) cluster.disconnect();
    else clients[0].disconnect();
  }
}

/** Deletes the Postgres rows of prefixes (processes that ran the workers copied configuration and events there). */
export async function deletePostgresRows(settings: Settings, prefixes: string[]): Promise<void> {
  const db = new pg.Client({ connectionString: settings.databaseUrl });
  await db.connect();
  try {
    await db.query('DELETE FROM laurel_config WHERE prefix = ANY($1)', [prefixes]);
    for (const table of ['laurel_log', 'laurel_log_cursor', 'laurel_events_rows', 'laurel_snapshots', 'laurel_snapshot_users', 'laurel_snapshot_keys', 'laurel_deliveries', 'laurel_webhook_deliveries', 'laurel_webhook_sent', 'laurel_audit']) {
      await db.query(`DELETE FROM ${table} WHERE prefix = ANY($1)`, [prefixes]);
    }
  } finally {
    await db.end();
  }
}
