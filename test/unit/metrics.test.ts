/**
 * The metrics of one process and their sum over several (src/lib/metrics.ts): the request
 * histogram by route and status, counters read when scraped (several reads of one name added up),
 * gauges left out when unknown, each series added up across processes as its aggregator says, and
 * LAUREL_METRICS=0 observing nothing.
 */
import { describe, expect, it } from 'vitest';
import { aggregateMetrics, Metrics } from '../../src/lib/metrics.js';
import { REQUEST_BUCKETS } from '../../src/lib/request-histogram.js';
import { loadSettings, SettingsError } from '../../src/lib/settings.js';

/** The value of one sample line (`name{labels} value`), or null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

const EVENT = 'POST /api/metrics/:key/event';

describe('metrics', () => {
  it('observes requests by route and status in the histogram, buckets cumulative', async () => {
    const m = new Metrics();
    const now = performance.now();
    // Each answered at `now`: the durations are the test's, however long the calls take.
    m.response(EVENT, 201, now - 0.7, now); // 0.7 ms
    m.response(EVENT, 201, now - 3, now); // 3 ms
    m.response(EVENT, 400, now - 0.1, now);
    m.response('unmatched', 404, now, now);
    const text = await m.render();
    const h = 'laurel_http_request_duration_seconds';
    expect(text).toContain(`# TYPE ${h} histogram`);
    expect(sample(text, `${h}_count{route="${EVENT}",status="201"}`)).toBe(2);
    expect(sample(text, `${h}_bucket{route="${EVENT}",status="201",le="0.0005"}`)).toBe(0);
    expect(sample(text, `${h}_bucket{route="${EVENT}",status="201",le="0.001"}`)).toBe(1);
    expect(sample(text, `${h}_bucket{route="${EVENT}",status="201",le="0.005"}`)).toBe(2);
    expect(sample(text, `${h}_bucket{route="${EVENT}",status="201",le="+Inf"}`)).toBe(2);
    expect(sample(text, `${h}_sum{route="${EVENT}",status="201"}`)).toBeCloseTo(0.0037, 9);
    expect(sample(text, `${h}_count{route="${EVENT}",status="400"}`)).toBe(1);
    expect(sample(text, `${h}_count{route="unmatched",status="404"}`)).toBe(1);
    expect(text.match(new RegExp(`^${h}_bucket\\{[^}]*route="unmatched"`, 'gm'))).toHaveLength(REQUEST_BUCKETS.length + 1);
    // The process's own metrics (prom-client's defaults) come along.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(sample(text, 'laurel_scrape_processes')).toBe(1);
  });

  it('reads counters when scraped, adding up several reads of one name per label', async () => {
    const m = new Metrics();
    m.events.processed = 3;
    m.storeErrors.redis = 2;
    const mine = { redis: 5 };
    m.counter('laurel_store_errors_total', '', 'store', () => mine);
    m.counter('laurel_store_errors_total', '', 'store', () => ({ postgres: 7 }));
    mine.redis = 6;
    const text = await m.render();
    expect(sample(text, 'laurel_events_total{outcome="processed"}')).toBe(3);
    expect(sample(text, 'laurel_store_errors_total{store="redis"}')).toBe(8);
    expect(sample(text, 'laurel_store_errors_total{store="postgres"}')).toBe(7);
    expect(text.match(/^laurel_store_errors_total\{store="redis"\}/gm)).toHaveLength(1);
  });

  it('leaves a gauge out while it is unknown or its read fails, and a newer read replaces the older', async () => {
    const m = new Metrics();
    let age: number | null = null;
    m.gauge('laurel_snapshot_age_seconds', 'age', () => age);
    m.gauge('laurel_broken', 'fails', async () => { throw new Error('Postgres is away'); });
    let text = await m.render();
    expect(sample(text, 'laurel_snapshot_age_seconds')).toBeNull();
    expect(sample(text, 'laurel_broken')).toBeNull();
    age = 12.5;
    expect(sample(await m.render(), 'laurel_snapshot_age_seconds')).toBe(12.5);
    m.gauge('laurel_snapshot_age_seconds', 'age', () => 3);
    text = await m.render();
    expect(sample(text, 'laurel_snapshot_age_seconds')).toBe(3);
    // Its aggregator too: a value each process reads from Redis is the installation's, once.
    const other = new Metrics();
    for (const x of [m, other]) x.gauge('laurel_shared', 'once', () => 5);
    for (const x of [m, other]) x.gauge('laurel_shared', 'the same in every process', () => 5, 'max');
    const both = await aggregateMetrics([m.json(), other.json()]);
    expect(sample(both, 'laurel_shared')).toBe(5);
    expect(both).toContain('# HELP laurel_shared the same in every process');
  });

  it('adds several processes up: counters and histograms summed, gauges by their aggregator', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.events.processed = 4;
    b.events.processed = 6;
    const now = performance.now();
    for (let i = 0; i < 3; i++) a.response(EVENT, 201, now);
    for (let i = 0; i < 5; i++) b.response(EVENT, 201, now);
    a.gauge('laurel_config_version', 'v', () => 7, 'min');
    b.gauge('laurel_config_version', 'v', () => 9, 'min');
    a.gauge('laurel_log_drain_seconds_behind', 'behind', () => 1.5, 'max');
    const text = await aggregateMetrics([a.json(), b.json()]);
    expect(sample(text, 'laurel_events_total{outcome="processed"}')).toBe(10);
    expect(sample(text, `laurel_http_request_duration_seconds_count{route="${EVENT}",status="201"}`)).toBe(8);
    expect(sample(text, `laurel_http_request_duration_seconds_bucket{route="${EVENT}",status="201",le="+Inf"}`)).toBe(8);
    expect(sample(text, 'laurel_config_version')).toBe(7);
    expect(sample(text, 'laurel_log_drain_seconds_behind')).toBe(1.5);
    expect(sample(text, 'laurel_scrape_processes')).toBe(2);
    // A JSON round trip (the IPC channel) changes nothing.
    const wired = JSON.parse(JSON.stringify([await a.json(), await b.json()]));
    const laurel = (t: string) => t.split('\n').filter((l) => l.startsWith('laurel_') && !l.startsWith('laurel_uptime'));
    expect(laurel(await aggregateMetrics(wired))).toEqual(laurel(text));
  });

  it('observes nothing with LAUREL_METRICS=0, and takes only 0 or 1', async () => {
    expect(loadSettings({}).metrics).toBe(true);
    expect(loadSettings({ LAUREL_METRICS: '1' }).metrics).toBe(true);
    expect(loadSettings({ LAUREL_METRICS: '0' }).metrics).toBe(false);
    expect(() => loadSettings({ LAUREL_METRICS: 'off' })).toThrow(SettingsError);
    expect(() => loadSettings({ LAUREL_METRICS: 'off' })).toThrow('LAUREL_METRICS must be 0 (metrics off) or 1, got "off"');
    const m = new Metrics({ record: false });
    m.response(EVENT, 201, performance.now());
    m.events.processed++;
    const text = await m.render();
    expect(text).not.toMatch(/^laurel_http_request_duration_seconds_count/m);
    expect(text).not.toMatch(/^process_cpu_user_seconds_total/m);
    expect(sample(text, 'laurel_events_total{outcome="processed"}')).toBe(1);
  });

  it('reads LAUREL_WORKERS_PORT: unset none, a port, or refused', () => {
    expect(loadSettings({}).workersPort).toBeNull();
    expect(loadSettings({ LAUREL_WORKERS_PORT: '9464' }).workersPort).toBe(9464);
    expect(loadSettings({ LAUREL_WORKERS_PORT: '0' }).workersPort).toBe(0);
    expect(() => loadSettings({ LAUREL_WORKERS_PORT: 'x' })).toThrow(/LAUREL_WORKERS_PORT must be an integer from 0 to 65535/);
  });
});
