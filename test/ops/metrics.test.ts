/**
 * `GET /metrics` for the whole installation (docs/operations.md, "Metrics"), as an operator runs
 * laurel: with the default number of api processes on one port, N requests spread by the kernel
 * over them are each counted once in every scrape, whichever process the scrape reaches; under
 * `laurel start` the workers' series (the log drain, the snapshot age) come in the same answer,
 * and their health endpoint (LAUREL_WORKERS_PORT) answers /ready and /metrics, for `laurel
 * workers` too; a readiness check registered by another module decides /ready.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { killCliProcesses, runCli } from '../support/cli.js';
import { startApiProcesses, type ApiProcesses } from '../support/api-processes.js';
import { deletePostgresRows, deletePrefix } from '../support/server.js';
import { portOf } from '../support/listening.js';
import { Metrics } from '../../src/lib/metrics.js';
import { loadSettings } from '../../src/lib/settings.js';
import { WorkersHealth, type ReadinessResult } from '../../workers/health.js';

const ROOT = join(import.meta.dirname, '..', '..');
const settings = loadSettings();
const started: ApiProcesses[] = [];
const prefixes: string[] = [];

afterAll(async () => {
  for (const p of started) await p.close();
  killCliProcesses();
  for (const p of [...started.map((s) => s.prefix), ...prefixes]) await deletePrefix(settings, p);
  await deletePostgresRows(settings, [...started.map((s) => s.prefix), ...prefixes]);
});

/** The value of one sample line (`name{labels} value`), or null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

const EVENTS = 'laurel_http_request_duration_seconds_count{route="POST /api/metrics/:key/event",status="201"}';
const N = 40;

/** N events, each on a connection of its own opened before any is sent (the kernel spreads them over the processes). */
async function sendEvents(p: ApiProcesses): Promise<void> {
  const metric = await p.request('POST', '/admin/v1/metrics', { body: [{ name: 'Steps', key: 'steps' }] });
  expect(metric.status, metric.text).toBe(201);
  const open = await p.connections(N);
  const answers = await open.send('POST', '/api/metrics/steps/event', (i) => ({ body: { user: { id: `u${i}` }, value: 1 } }));
  expect(answers.map((a) => a.status)).toEqual(Array(N).fill(201));
}

describe('GET /metrics with several api processes', () => {
  it('counts every process\'s requests in every scrape (laurel api)', async () => {
    const p = await startApiProcesses();
    started.push(p);
    expect(p.count).toBeGreaterThanOrEqual(2);
    await sendEvents(p);
    // Each scrape on a connection of its own: the kernel picks the process that answers it.
    for (let i = 0; i < 8; i++) {
      const text = (await p.request('GET', '/metrics', { key: null })).text;
      expect(sample(text, EVENTS), text).toBe(N);
      expect(sample(text, 'laurel_events_total{outcome="processed"}')).toBe(N);
      expect(sample(text, 'laurel_scrape_processes')).toBe(p.count);
      expect(text).not.toContain('did not answer in time');
    }
  });

  it('adds the workers\' series under laurel start, and the workers answer on LAUREL_WORKERS_PORT', async () => {
    const p = await startApiProcesses({ LAUREL_WORKERS_PORT: '0', LAUREL_SNAPSHOT_INTERVAL: '1s' }, 'start');
    started.push(p);
    // The workers in the primary took the kernel's pick, and said which.
    const workersPort = await portOf(p.run, 'workers');
    await sendEvents(p);
    let text = '';
    await expect.poll(async () => {
      text = (await p.request('GET', '/metrics', { key: null })).text;
      return [sample(text, 'laurel_log_drain_entries_total') ?? 0, sample(text, 'laurel_snapshot_age_seconds') !== null];
    }, { timeout: 20_000 }).toEqual([N, true]);
    expect(sample(text, EVENTS)).toBe(N);
    // The api processes and the primary, whose workers drain.
    expect(sample(text, 'laurel_scrape_processes')).toBe(p.count + 1);
    expect(sample(text, 'laurel_log_drain_passes_total{outcome="ok"}')).toBeGreaterThan(0);
    // Where the drain's time went: the reads, the parse, each consumer's steps, the archive.
    for (const part of ['read', 'parse', 'analytics:take', 'analytics:archive', 'webhooks:plan', 'replay:end', 'archive', 'trim']) {
      expect(sample(text, `laurel_log_drain_seconds_total{part="${part}"}`), part).toBeGreaterThan(0);
    }
    expect(sample(text, 'laurel_log_drain_seconds_total{part="archive"}')).toBeGreaterThanOrEqual(sample(text, 'laurel_log_drain_seconds_total{part="analytics:archive"}')!);
    expect(sample(text, 'laurel_log_drain_backlog_entries')).not.toBeNull();
    expect(sample(text, 'laurel_log_drain_seconds_behind')).toBeLessThan(30);
    expect(sample(text, 'laurel_snapshot_age_seconds')).toBeLessThan(60);
    expect(sample(text, 'laurel_webhook_deliveries_total{outcome="delivered"}')).toBe(0);
    expect(sample(text, 'laurel_webhook_queue_deliveries')).toBe(0);
    expect(sample(text, 'laurel_batch_items_waiting')).toBe(0);
    expect(sample(text, 'laurel_audit_queue_entries')).not.toBeNull();

    // Every series docs/operations.md lists is in the answer, and the Grafana dashboard reads only those.
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const table = docs.slice(docs.indexOf('| series | type | what |'), docs.indexOf('Alerts worth setting'));
    const documented = [...table.matchAll(/^\| `(laurel_[a-z_]+)/gm)].map((m) => m[1]);
    expect(documented.length).toBeGreaterThan(15);
    for (const name of documented) expect(text, name).toContain(`# TYPE ${name} `);
    const dashboard = readFileSync(join(ROOT, 'grafana-dashboard.json'), 'utf8');
    const read = new Set([...dashboard.matchAll(/\b((?:laurel|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1].replace(/_(bucket|count|sum)$/, '')));
    for (const name of read) {
      expect(text, name).toContain(`# TYPE ${name} `);
      if (name.startsWith('laurel_')) expect(documented, name).toContain(name);
    }
    const workers = `http://127.0.0.1:${workersPort}`;
    const ready = await fetch(`${workers}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { redis: { ok: true }, postgres: { ok: true }, queues: { ok: true } } });
    const own = await (await fetch(`${workers}/metrics`)).text();
    expect(sample(own, 'laurel_log_drain_entries_total')).toBe(N);
    // The workers' own: no api process's requests.
    expect(sample(own, EVENTS)).toBeNull();
    expect((await fetch(`${workers}/nothing`)).status).toBe(404);
    expect((await fetch(`${workers}/ready`, { method: 'POST' })).status).toBe(405);
  });

  it('serves the health endpoint of laurel workers alone, which stops on SIGTERM', async () => {
    const prefix = `t${randomBytes(5).toString('hex')}`;
    prefixes.push(prefix);
    // LAUREL_WORKERS_PORT=0: the kernel's pick, which the workers say at info.
    const run = runCli(['workers'], { LAUREL_PREFIX: prefix, LAUREL_WORKERS_PORT: '0', LOG_LEVEL: 'info' });
    const port = await portOf(run, 'workers');
    await expect.poll(async () => {
      expect(run.child.exitCode, run.output()).toBeNull();
      return (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null))?.status;
    }, { timeout: 20_000 }).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(/^laurel_log_drain_passes_total\{outcome="ok"\} \d+$/m);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});

describe('the workers\' readiness checks', () => {
  it('answer /ready: 503 naming the checks that fail, a check that throws or hangs failing with why', { timeout: 15_000 }, async () => {
    const health = new WorkersHealth(new Metrics({ record: false }), pino({ level: 'silent' }));
    const port = await health.listen('127.0.0.1', 0);
    try {
      const ready = async () => {
        const r = await fetch(`http://127.0.0.1:${port}/ready`);
        return { status: r.status, body: await r.json() };
      };
      expect(await ready()).toEqual({ status: 200, body: { status: 'ready', checks: {} } });
      let queue: ReadinessResult = { ok: true, detail: { waiting: 0 } };
      health.registerReadiness('queue:log-drain', () => queue);
      expect((await ready()).status).toBe(200);
      queue = { ok: false, detail: { waiting: 12, lastRun: 'a minute ago' } };
      health.registerReadiness('thrower', () => { throw new Error('cannot tell'); });
      health.registerReadiness('hanger', () => new Promise(() => undefined));
      expect(await ready()).toEqual({
        status: 503,
        body: {
          error: 'Not ready: queue:log-drain, thrower, hanger', code: 'not_ready',
          checks: {
            'queue:log-drain': { ok: false, detail: { waiting: 12, lastRun: 'a minute ago' } },
            thrower: { ok: false, detail: 'cannot tell' },
            hanger: { ok: false, detail: 'no answer within 2000 ms' },
          },
        },
      });
      // Registered again under its name: replaced.
      health.registerReadiness('thrower', () => ({ ok: true }));
      health.registerReadiness('hanger', () => ({ ok: true }));
      queue = { ok: true, detail: { waiting: 0 } };
      expect((await ready()).status).toBe(200);
      // Metrics of a module's own, next to laurel's.
      health.metrics.gauge('laurel_queue_waiting', 'Jobs waiting.', () => 3);
      expect(sample(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), 'laurel_queue_waiting')).toBe(3);
    } finally {
      await health.close();
    }
  });
});
