/**
 * One `GET /metrics` for the whole installation while several api processes share the port
 * (docs/operations.md, "Metrics"): whichever api process the scrape reaches asks its primary over
 * the IPC channel; the primary asks every live api process for its metrics (prom-client's JSON),
 * adds them up with its own (under `laurel start`, the workers') as prom-client's
 * AggregatorRegistry does, and answers the text. Nothing of this runs on the request path but the
 * scrape's.
 */
import type { ChildProcess } from 'node:child_process';
import { aggregateMetrics, type Metrics, type Scraped } from '../lib/metrics.js';

/** An api process asks its primary for the installation's metrics. */
interface ScrapeAsked { type: 'laurel:scrape'; id: number }
/** The primary answers it the text. */
interface ScrapeAnswered { type: 'laurel:scraped'; id: number; text: string }
/** The primary asks an api process for its own metrics. */
interface MetricsAsked { type: 'laurel:metrics?'; id: number }
/** The api process answers them. */
interface MetricsAnswered { type: 'laurel:metrics'; id: number; metrics: Scraped[] }

const is = <T extends { type: string }>(m: unknown, type: T['type']): m is T =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;

/** How long the primary waits for an api process's metrics; one that has not answered by then is left out. */
const GATHER_MS = 2000;
/** How long an api process waits for its primary's answer before it answers its own metrics alone. */
const ASK_MS = GATHER_MS + 1000;

type Send = (message: unknown) => void;

/**
 * In an api process started by a primary: answers the primary's requests for this process's
 * metrics, and answers `scrape()` (GET /metrics) with the installation's, from the primary. With
 * no answer in time (a primary busy or gone), its own, saying so.
 */
export function metricsThroughPrimary(metrics: Metrics, send: Send, channel: NodeJS.Process = process): () => Promise<string> {
  const waiting = new Map<number, (text: string) => void>();
  let next = 0;
  channel.on('message', (m: unknown) => {
    if (is<MetricsAsked>(m, 'laurel:metrics?')) {
      void metrics.json().then((json) => {
        if (channel.connected) send({ type: 'laurel:metrics', id: m.id, metrics: json } satisfies MetricsAnswered);
      });
    } else if (is<ScrapeAnswered>(m, 'laurel:scraped')) {
      waiting.get(m.id)?.(m.text);
    }
  });
  return async () => {
    if (!channel.connected) return metrics.render();
    const id = next++;
    const answered = new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), ASK_MS);
      waiting.set(id, (text) => { clearTimeout(timer); resolve(text); });
    });
    send({ type: 'laurel:scrape', id } satisfies ScrapeAsked);
    const text = await answered;
    waiting.delete(id);
    if (text !== null) return text;
    return `# laurel: the primary did not answer in time: this api process's metrics alone\n${await metrics.render()}`;
  };
}

/**
 * In the primary: answers an api process's `laurel:scrape` with every live api process's metrics
 * added up with `own` (the primary's, or null). `children` lists the api processes now.
 */
export class MetricsGatherer {
  private readonly own: Metrics | null;
  private readonly children: () => ChildProcess[];
  private next = 0;
  private readonly waiting = new Map<number, { pending: Set<ChildProcess>; got: Scraped[][]; done: () => void }>();

  constructor(own: Metrics | null, children: () => ChildProcess[]) {
    this.own = own;
    this.children = children;
  }

  /** Every message of an api process passes here; answers whether it was one of these. */
  onMessage(child: ChildProcess, m: unknown): boolean {
    if (is<ScrapeAsked>(m, 'laurel:scrape')) {
      void this.gather().then((text) => {
        try {
          if (child.connected) child.send({ type: 'laurel:scraped', id: m.id, text } satisfies ScrapeAnswered);
        } catch {
          // It exited meanwhile.
        }
      });
      return true;
    }
    if (is<MetricsAnswered>(m, 'laurel:metrics')) {
      const w = this.waiting.get(m.id);
      if (w !== undefined && w.pending.delete(child)) {
        w.got.push(m.metrics);
        if (w.pending.size === 0) w.done();
      }
      return true;
    }
    return false;
  }

  /** The installation's metrics as Prometheus's text format. */
  async gather(): Promise<string> {
    const id = this.next++;
    const live = this.children().filter((c) => c.connected);
    const got: Scraped[][] = [];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), GATHER_MS);
      const pending = new Set<ChildProcess>();
      this.waiting.set(id, { pending, got, done: () => { clearTimeout(timer); resolve(); } });
      for (const c of live) {
        try {
          c.send({ type: 'laurel:metrics?', id } satisfies MetricsAsked);
          pending.add(c);
        } catch {
          // Exiting: left out.
        }
      }
      if (pending.size === 0) { clearTimeout(timer); resolve(); }
    });
    this.waiting.delete(id);
    return aggregateMetrics(this.own === null ? got : [...got, this.own.json()]);
  }
}
