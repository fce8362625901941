/**
 * Prometheus metrics of one process (docs/operations.md, "Metrics"), in a prom-client registry:
 * its text format, its process metrics (CPU, memory, event loop, GC) and its aggregation of several
 * processes' metrics into one answer (`aggregateMetrics`, what the primary of several api processes
 * does for every scrape). What the request path counts is plain numbers and one histogram
 * observation (src/lib/request-histogram.ts); every other series is read when scraped. With
 * LAUREL_METRICS=0 (`record: false`) nothing is observed on the request path and no process
 * metrics are collected.
 */
import { AggregatorRegistry, collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import { RequestHistogram } from './request-histogram.js';
import type { Aggregator, Sample, Scraped } from './scraped.js';

export type { Aggregator, Sample, Scraped } from './scraped.js';

/** Prometheus's text format, as prom-client writes it. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

type Read = () => Sample[] | Promise<Sample[]>;

interface Series {
  name: string;
  help: string;
  type: Scraped['type'];
  aggregator: Aggregator;
  reads: Read[];
}

export interface MetricsOptions {
  /** Observes requests and collects the process metrics (LAUREL_METRICS, on unless `0`). */
  record?: boolean;
}

export class Metrics {
  /** prom-client's registry: a module may register metrics of its own here (`registers: [metrics.registry]`). */
  readonly registry = new Registry();
  readonly recording: boolean;
  private readonly started = Date.now();
  private readonly requests = new RequestHistogram();
  private readonly series = new Map<string, Series>();
  private readonly counters = new Map<string, (() => Record<string, number>)[]>();
  /** Metric events by outcome; refusals show as 4xx responses. */
  readonly events = { processed: 0, replayed: 0 };
  /** Leaderboard placements the event path skipped: the entry gate showed they could change nothing. */
  readonly leaderboards = { skipped: 0 };
  /** Notification deliveries this process settled (the workers), by outcome. */
  readonly notifications = { sent: 0, suppressed: 0, retried: 0, failed: 0 };
  /** Requests that failed because Redis or Postgres could not serve them (answered 503). */
  readonly storeErrors = { redis: 0, postgres: 0 };

  constructor(opts: MetricsOptions = {}) {
    this.recording = opts.record !== false;
    this.registry.registerMetric(this.requests as unknown as Metric);
    if (this.recording) collectDefaultMetrics({ register: this.registry });
    this.counter('laurel_events_total', 'Metric events, by outcome: processed (201) or replayed (202, an idempotency key seen before).',
      'outcome', () => this.events);
    this.counter('laurel_leaderboard_placements_skipped_total', 'Leaderboard placements the event path skipped (the entry gate showed they change nothing).',
      null, () => ({ '': this.leaderboards.skipped }));
    this.counter('laurel_notifications_total', 'Notification deliveries the workers settled, by outcome (retried: a transport error, tried again later).',
      'outcome', () => this.notifications);
    this.counter('laurel_store_errors_total', 'Errors from Redis and Postgres: connection failures, and the jobs and requests they failed.',
      'store', () => this.storeErrors);
    this.gauge('laurel_uptime_seconds', 'Seconds since the process started; across processes, the youngest\'s.',
      () => Math.round((Date.now() - this.started) / 1000), 'min');
  }

  /** A request answered at `ended`: `route` is its label (method and path pattern), `started` its arrival (both performance.now()). */
  response(route: string, status: number, started: number, ended = performance.now()): void {
    if (!this.recording) return;
    this.requests.observe(route, status, (ended - started) / 1000);
  }

  private add(name: string, help: string, type: Scraped['type'], aggregator: Aggregator, read: Read, replace: boolean): void {
    const known = this.series.get(name);
    if (known !== undefined) {
      if (replace) Object.assign(known, { help, aggregator, reads: [read] });
      else known.reads.push(read);
      return;
    }
    const series: Series = { name, help, type, aggregator, reads: [read] };
    this.series.set(name, series);
    const metric = {
      name, help, type,
      get aggregator() { return series.aggregator; },
      get: async (): Promise<Scraped> => ({
        name, help: series.help, type, aggregator: series.aggregator, values: (await Promise.all(series.reads.map((r) => r()))).flat(),
      }),
    };
    this.registry.registerMetric(metric as unknown as Metric);
  }

  /**
   * A counter read when scraped: `read` answers each value of its label (or `{ '': n }` without a
   * label). Several reads of one name add up (each worker's part, say).
   */
  counter(name: string, help: string, label: string | null, read: () => Record<string, number>): void {
    const known = this.counters.get(name);
    if (known !== undefined) {
      known.push(read);
      return;
    }
    const reads = [read];
    this.counters.set(name, reads);
    this.add(name, help, 'counter', 'sum', () => {
      const sums = new Map<string, number>();
      for (const r of reads) for (const [k, n] of Object.entries(r())) sums.set(k, (sums.get(k) ?? 0) + n);
      return [...sums].map(([k, value]) => ({ value, labels: label === null ? {} : { [label]: k } }));
    }, false);
  }

  /**
   * A gauge read when scraped; null (or a read that fails) leaves it out of the scrape. Registered
   * again under its name, the newer read, help and aggregator replace the older. `aggregator` says
   * how the values of several processes make one (sum by default).
   */
  gauge(name: string, help: string, read: () => number | null | Promise<number | null>, aggregator: Aggregator = 'sum'): void {
    this.add(name, help, 'gauge', aggregator, async () => {
      const value = await Promise.resolve().then(read).catch(() => null);
      return value === null || !Number.isFinite(value) ? [] : [{ value, labels: {} }];
    }, true);
  }

  /** This process's metrics, as Prometheus's text format. */
  render(): Promise<string> {
    return aggregateMetrics([this.json()]);
  }

  /** This process's metrics as prom-client's JSON (what an api process sends its primary). */
  async json(): Promise<Scraped[]> {
    return (await this.registry.getMetricsAsJSON()) as unknown as Scraped[];
  }
}

/**
 * The metrics of several processes as one answer in Prometheus's text format: counters and
 * histograms added up, gauges as their own aggregator says (prom-client's AggregatorRegistry),
 * and `laurel_scrape_processes`, how many processes answered.
 */
export async function aggregateMetrics(perProcess: (Scraped[] | Promise<Scraped[]>)[]): Promise<string> {
  const all = await Promise.all(perProcess);
  const processes: Scraped = {
    name: 'laurel_scrape_processes', help: 'Processes whose metrics this scrape adds up (the api processes, and under laurel start the primary with the workers).',
    type: 'gauge', aggregator: 'sum', values: [{ value: all.length, labels: {} }],
  };
  const registry = AggregatorRegistry.aggregate([...all, [processes]] as unknown as Parameters<typeof AggregatorRegistry.aggregate>[0]);
  return registry.metrics();
}
