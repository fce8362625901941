/**
 * A metric as prom-client's registry reads it (`get()`) and as `getMetricsAsJSON()` answers it:
 * what laurel's own series answer when scraped, and what an api process sends its primary to be
 * added up (src/lib/metrics.ts).
 */

/** How the values of one series from several processes make one: prom-client's aggregators. */
export type Aggregator = 'sum' | 'min' | 'max' | 'first' | 'average' | 'omit';

export interface Sample {
  value: number;
  labels: Record<string, string | number>;
  /** A histogram's `_bucket`, `_sum` or `_count`; absent: the metric's name. */
  metricName?: string;
}

export interface Scraped {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  aggregator: Aggregator;
  values: Sample[];
}
