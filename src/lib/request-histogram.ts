/**
 * `laurel_http_request_duration_seconds` by route and status, kept for the request path: an
 * observation is two map lookups, a walk over the buckets and three additions (prom-client's own
 * Histogram hashes its labels into a new string on every observation). It renders and aggregates
 * across processes as prom-client's histograms do: `get()` answers prom-client's metric object.
 */
import type { Sample, Scraped } from './scraped.js';

/** Upper bounds in seconds: the event path answers in about a millisecond, a slow Admin read in seconds. */
export const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  /** Observations per bucket (not cumulative), the last one past every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class RequestHistogram {
  readonly name = 'laurel_http_request_duration_seconds';
  readonly help = 'Time from a request\'s arrival to its answer, by route (the method and path pattern; "unmatched" for no route) and status.';
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly routes = new Map<string, Map<number, Series>>();

  observe(route: string, status: number, seconds: number): void {
    let byStatus = this.routes.get(route);
    if (byStatus === undefined) this.routes.set(route, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (s === undefined) byStatus.set(status, (s = { counts: new Float64Array(REQUEST_BUCKETS.length + 1), sum: 0, count: 0 }));
    let i = 0;
    while (i < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[i]) i++;
    s.counts[i]++;
    s.sum += seconds;
    s.count++;
  }

  get(): Scraped {
    const values: Sample[] = [];
    for (const [route, byStatus] of this.routes) {
      for (const [code, s] of byStatus) {
        const status = String(code);
        let cumulative = 0;
        for (let i = 0; i < REQUEST_BUCKETS.length; i++) {
          cumulative += s.counts[i];
          values.push({ metricName: `${this.name}_bucket`, labels: { route, status, le: REQUEST_BUCKETS[i] }, value: cumulative });
        }
        values.push({ metricName: `${this.name}_bucket`, labels: { route, status, le: '+Inf' }, value: s.count });
        values.push({ metricName: `${this.name}_sum`, labels: { route, status }, value: s.sum });
        values.push({ metricName: `${this.name}_count`, labels: { route, status }, value: s.count });
      }
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
