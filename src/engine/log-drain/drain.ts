/**
 * The log drain (its queue: workers/log-drain-queue.ts): one pass over the partitions' event logs (Redis streams) archives them and
 * trims them, and hands every entry archived to the log's consumers.
 *
 * A pass reads every partition after its cursor (one XRANGE each, sent together:
 * src/engine/durability/event-logs.ts), then:
 * - the consumers listed in src/engine/log-drain/consumers.ts (src/engine/log-drain/consumer.ts: the dead processes'
 *   phase 2, the analytics, the notifications, the webhooks) take every entry, each body parsed
 *   once, then plan and write what the entries call for, in the list's order;
 * - the archive takes every entry: one row per partition batch and the partitions' cursors, in one
 *   transaction (src/postgres/log-archive.ts), with what the consumers write there, so each entry
 *   is archived once and what it calls for written exactly then;
 * - Redis keeps only what the archive does not hold yet, and what the drainer may still need to
 *   place again (LOG_RETAIN_MS).
 * Two drainers (several worker processes) do not archive an entry twice: the one whose cursors
 * moved under it writes nothing, reads the cursors again and goes on from there.
 */
import { entryBody, type LogBody } from '../../model/log.js';
import type pg from 'pg';
import type { Deps } from '../deps.js';
import { earlierCursors, readLogs, trimLogs } from '../durability/event-logs.js';
import { isText, NOT_TEXT } from '../../lib/text.js';
import { archiveLine, LogArchive, type ArchiveBatch, type ArchiveStep } from '../../postgres/log-archive.js';
import { LogEntry, type ConsumerDrain, type DrainerConsumer, type LogConsumer } from './consumer.js';
import { LOG_CONSUMERS } from './consumers.js';

/** Entries read from one partition per round trip. */
const BATCH = 1000;
/** How far behind (ms) the drain may fall before it says so. */
const BEHIND_MS = 10_000;
/** Partitions a pass reads, consumes and archives together (one transaction). */
const PASS_GROUP = 32;

export interface DrainResult {
  /** Entries archived by this pass. */
  drained: number;
  /** Partitions whose log had entries. */
  partitions: number;
}

/**
 * An entry's body as one JSON object, as archived: the fields the script added put back in, and
 * U+0000 or a lone surrogate (which Postgres takes in no jsonb) replaced by U+FFFD.
 */
function archivedBody(fields: string[]): string {
  const body = entryBody(fields);
  if (!body.includes('\\u')) return body;
  const e = JSON.parse(body) as unknown;
  return isText(e) ? body : JSON.stringify(textOnly(e));
}
/** A parsed JSON value with U+0000 and lone surrogates replaced by U+FFFD. */
function textOnly(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(NOT_TEXT_ALL, '\uFFFD');
  if (Array.isArray(value)) return value.map(textOnly);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [textOnly(k) as string, textOnly(v)]));
  }
  return value;
}

const NOT_TEXT_ALL = new RegExp(NOT_TEXT.source, 'g');

/**
 * How long a copied entry stays in its partition's log: long enough for the drainer to see its api
 * process die (silent for 15 s, src/engine/durability/liveness.ts) and place that process's events
 * again. The drain itself does not wait for it: an entry reaches Postgres on the next pass.
 */
export const LOG_RETAIN_MS = 30_000;

/** What a drainer tells the metrics (docs/operations.md, "Metrics"): read when scraped. */
export interface DrainStats {
  /** Entries archived by this drainer. */
  archived: number;
  /** Archived batches this drainer rolled up for the analytics (src/postgres/analytics/backfill.ts). */
  backfilled: number;
  /** Drains that ended, by outcome. */
  passes: { ok: number; failed: number };
  /** Entries the latest drain found waiting to be archived. */
  waiting: number;
  /** When (Redis's clock, ms) the oldest entry found and not yet archived was made; null: none. */
  oldestWaitingMs: number | null;
  /** How old the oldest entry archived by the latest drain was when it was archived, s. */
  behindS: number;
  /** When the latest drain that succeeded ended (ms); 0: none yet. */
  lastDrainMs: number;
  /**
   * Every entry made before this instant (ms) is archived: when the latest drain that read every
   * partition to its end began (or where the first partition it left unread goes on); the
   * drainer's creation before its first. It stands still while no drain succeeds.
   */
  coveredMs: number;
}

/** The time (ms) of a stream entry's id, `<ms>-<seq>`. */
const idMs = (id: string) => Number(id.slice(0, id.indexOf('-')));

/**
 * How far behind the archive is, s: the age of what may not be archived yet, the entries made since
 * `coveredMs`, or of the oldest entry found and not archived, whichever is older. It grows with the
 * wall clock while no drain succeeds (Redis or Postgres away, the queue's job not run).
 */
export function secondsBehind(stats: DrainStats, nowMs = Date.now()): number {
  const covered = Math.max(0, (nowMs - stats.coveredMs) / 1000);
  return stats.oldestWaitingMs === null ? covered : Math.max(covered, (nowMs - stats.oldestWaitingMs) / 1000);
}

/**
 * The drainer of one worker process: the partitions' cursors as archived, kept between passes
 * (read from Postgres at the first pass and whenever another drainer moved one).
 */
export class LogDrainer {
  readonly stats: DrainStats = {
    archived: 0, backfilled: 0, passes: { ok: 0, failed: 0 }, waiting: 0, oldestWaitingMs: null, behindS: 0, lastDrainMs: 0, coveredMs: Date.now(),
  };
  /** Entries the drain under way found. */
  private found = 0;
  /** What the drain under way covers (DrainStats.coveredMs), once it has read every partition; null: not (yet) known. */
  private covers: number | null = null;
  private readonly deps: Deps;
  private readonly archive: LogArchive;
  /** Loaded once for every pass that needs them (passes may run side by side). */
  private cursors: Promise<Map<number, string>> | null = null;
  /** Partitions whose log may hold archived entries still: their cursor when last drained. */
  private readonly untrimmed = new Map<number, string>();
  /** Since when the drain has been more than BEHIND_MS behind (null: it is not). */
  private behindSince: number | null = null;

  /** This drainer's consumers of the log, in the order of src/engine/log-drain/consumers.ts, with their names. */
  private readonly consumers: { name: string; consumer: DrainerConsumer }[];
  /**
   * Seconds spent in each part of the drains (wall time, so a part that waits for Redis or
   * Postgres counts the wait; `laurel_log_drain_seconds_total`): `read` (the partitions' logs),
   * `parse` (each entry's body), `<consumer>:<step>` (take, plan, write, archive, end), `archive`
   * (the transaction, the consumers' archive steps in it) and `trim`.
   */
  readonly seconds = new Map<string, number>();

  /**
   * `queued`: called once a pass has put webhook deliveries in their queues (the workers' sender
   * claims them at once). `consumers`: the log's consumers (tests and tools may give others).
   */
  constructor(deps: Deps, pool: pg.Pool, queued?: () => void, consumers: readonly LogConsumer[] = LOG_CONSUMERS) {
    this.deps = deps;
    this.archive = new LogArchive(pool, deps.settings.prefix);
    this.consumers = consumers.map((c) => ({ name: c.name, consumer: c.start({ deps, pool, stats: this.stats, queued }) }));
  }

  /** Adds the time since `since` (performance.now()) to `part`. */
  private spent(part: string, since: number): void {
    this.seconds.set(part, (this.seconds.get(part) ?? 0) + (performance.now() - since) / 1000);
  }

  /** Awaits `work`, its time added to `part`. */
  private async timed<T>(part: string, work: () => Promise<T>): Promise<T> {
    const since = performance.now();
    try {
      return await work();
    } finally {
      this.spent(part, since);
    }
  }

  /** Logs once when the drain falls more than BEHIND_MS behind, and once when it has caught up (under a fifth of it). */
  private sayBehind(behindMs: number, result: DrainResult): void {
    const now = Date.now();
    if (behindMs > BEHIND_MS && this.behindSince === null) {
      this.behindSince = now;
      this.deps.log.warn({ behindMs: Math.round(behindMs), drained: result.drained }, 'event log drain behind: entries wait in Redis longer than 10 s');
    } else if (behindMs <= BEHIND_MS / 5 && this.behindSince !== null) {
      this.deps.log.info({ behindMs: Math.round(behindMs), forMs: now - this.behindSince }, 'event log drain caught up');
      this.behindSince = null;
    }
  }

  /** The cursors, read once for the passes side by side; a read that failed is not kept (the next pass reads them again). */
  private loadedCursors(): Promise<Map<number, string>> {
    if (this.cursors === null) {
      const loading = this.loadCursors();
      this.cursors = loading;
      loading.catch(() => {
        if (this.cursors === loading) this.cursors = null;
      });
    }
    return this.cursors;
  }

  /**
   * Where each partition's archive ends. A partition without a cursor in Postgres starts at the
   * one an earlier version kept in Redis (it archived the entries up to it one row each).
   */
  private async loadCursors(): Promise<Map<number, string>> {
    const archived = await this.archive.cursors();
    const missing = Array.from({ length: this.deps.keys.partitions }, (_, p) => p).filter((p) => !archived.has(p));
    const earlier = await earlierCursors(this.deps, missing);
    const cursors = new Map(archived);
    missing.forEach((p, i) => { cursors.set(p, earlier[i] ?? ''); });
    for (const [p, cursor] of cursors) if (cursor !== '') this.untrimmed.set(p, cursor);
    return cursors;
  }

  /**
   * Passes until every partition's log is archived (at most `maxBatches` batches of a partition),
   * then the logs trimmed and each consumer's end of the drain (src/engine/log-drain/replay.ts: phase 2 for
   * the api processes that died since the last one). `nowMs`: the wall time (tests pass a later one
   * to see entries leave).
   */
  async drain(maxBatches = 20, nowMs = Date.now()): Promise<DrainResult> {
    this.found = 0;
    this.covers = null;
    try {
      const result = await this.drainAll(maxBatches, nowMs);
      const now = Date.now();
      const { stats } = this;
      if (this.covers !== null) stats.coveredMs = Math.max(stats.coveredMs, this.covers);
      stats.passes.ok++;
      stats.archived += result.drained;
      stats.waiting = this.found;
      stats.behindS = stats.oldestWaitingMs === null ? 0 : Math.max(0, (now - stats.oldestWaitingMs) / 1000);
      stats.oldestWaitingMs = null;
      stats.lastDrainMs = now;
      this.sayBehind(stats.behindS * 1000, result);
      return result;
    } catch (err) {
      this.stats.passes.failed++;
      this.stats.waiting = Math.max(this.stats.waiting, this.found);
      throw err;
    }
  }

  private async drainAll(maxBatches: number, nowMs: number): Promise<DrainResult> {
    const { deps } = this;
    const startedMs = Date.now();
    const result: DrainResult = { drained: 0, partitions: 0 };
    for (const { consumer: c } of this.consumers) if (c.ready !== undefined && !(await c.ready())) return result;
    const drains: ConsumerDrain[] = [];
    for (const { name, consumer } of this.consumers) drains.push(await this.timed(`${name}:drain`, () => consumer.drain(nowMs)));
    const drainedFrom = new Map<number, string>();
    let todo = Array.from({ length: deps.keys.partitions }, (_, p) => p);
    for (let i = 0; i < maxBatches && todo.length > 0; i++) {
      // A group of partitions at a time, the event loop free between two: the api may share the
      // process (laurel start), and a whole pass at once held its requests for tens of ms.
      const full: number[] = [];
      for (let g = 0; g < todo.length; g += PASS_GROUP) {
        const group = todo.slice(g, g + PASS_GROUP);
        const more = await this.pass(group, drains, result, drainedFrom);
        full.push(...(more ?? group));
        await new Promise((resolve) => setImmediate(resolve));
      }
      todo = full;
    }
    // Covered up to the pass's start, or to the oldest cursor of a partition left with more to read.
    const cursors = this.cursors === null ? null : await this.cursors;
    const left = todo.map((p) => cursors?.get(p) ?? '');
    this.covers = left.includes('') ? null : Math.min(startedMs, ...left.map(idMs));
    result.partitions = drainedFrom.size;
    await this.timed('trim', () => this.trim(drainedFrom, nowMs));
    const whole = todo.length === 0;
    for (const [i, d] of drains.entries()) if (d.end !== undefined) await this.timed(`${this.consumers[i].name}:end`, () => d.end!(whole));
    return result;
  }

  /**
   * One batch of each partition of `partitions`: consumed, then archived. Answers the partitions
   * whose batch was full (more to read), or null when another drainer moved a cursor meanwhile.
   */
  private async pass(partitions: number[], drains: ConsumerDrain[], result: DrainResult, drainedFrom: Map<number, string>): Promise<number[] | null> {
    const { deps } = this;
    const cursors = await this.loadedCursors();
    // Where each partition is read from, taken now: a pass side by side may move the shared cursors
    // while these reads are out, and the commit must check the cursor this batch was read after.
    const from = partitions.map((p) => cursors.get(p) ?? '');
    const read = await this.timed('read', () => readLogs(deps, partitions, from, BATCH));
    const batches: ArchiveBatch[] = [];
    // Each consumer's part of this pass, from the configuration as the entries are read.
    const passes = drains.map((d) => d.pass());
    const names = this.consumers.map((c) => c.name);
    const full: number[] = [];
    partitions.forEach((partition, i) => {
      const entries = read[i];
      if (entries.length === 0) return;
      this.found += entries.length;
      const first = idMs(entries[0][0]);
      if (this.stats.oldestWaitingMs === null || first < this.stats.oldestWaitingMs) this.stats.oldestWaitingMs = first;
      if (entries.length === BATCH) full.push(partition);
      const parsing = performance.now();
      const lines: string[] = [];
      const taken: LogEntry[] = [];
      for (const [id, fields] of entries) {
        const kind = fields[0] ?? 'unknown';
        // The body put together once, for the archive and the consumers.
        const body = archivedBody(fields);
        lines.push(archiveLine(id, kind, body));
        // Every entry is parsed, once (the analytics rollups take each: about 1 µs for an event's body).
        taken.push(new LogEntry(id, kind, fields, body, JSON.parse(body) as LogBody));
      }
      this.spent('parse', parsing);
      // Each consumer takes the partition's entries in the log's order.
      passes.forEach((p, c) => {
        const taking = performance.now();
        p.partition?.(partition);
        for (const entry of taken) p.take(entry);
        this.spent(`${names[c]}:take`, taking);
      });
      batches.push({
        partition, previous: from[i], firstId: entries[0][0], lastId: entries[entries.length - 1][0],
        count: entries.length, lines: lines.join('\n'),
      });
    });
    if (batches.length === 0) return [];
    for (const [c, p] of passes.entries()) if (p.plan !== undefined) await this.timed(`${names[c]}:plan`, () => p.plan!());
    for (const [c, p] of passes.entries()) if (p.write !== undefined) await this.timed(`${names[c]}:write`, () => p.write!());
    passes.forEach((p, c) => {
      const since = performance.now();
      p.written?.();
      this.spent(`${names[c]}:write`, since);
    });
    const steps = passes.flatMap((p, c) => {
      const step = p.archive?.();
      if (step === undefined) return [];
      const timed: ArchiveStep = {
        write: (client) => this.timed(`${names[c]}:archive`, () => step.write(client)),
        committed: step.committed?.bind(step), failed: step.failed?.bind(step),
      };
      return [timed];
    });
    if (!(await this.timed('archive', () => this.archive.commit(batches, steps)))) {
      // Another drainer archived some of them: start again from where the archive ends.
      this.cursors = null;
      return null;
    }
    for (const b of batches) {
      cursors.set(b.partition, b.lastId);
      drainedFrom.set(b.partition, b.lastId);
      result.drained += b.count;
    }
    return full;
  }

  /**
   * Trims what the archive holds and is older than LOG_RETAIN_MS, and says in Redis where the
   * archive of the partitions drained ends (for operators, and an earlier version's drainer).
   */
  private async trim(drained: Map<number, string>, nowMs: number): Promise<void> {
    for (const [p, cursor] of drained) this.untrimmed.set(p, cursor);
    const oldest = Math.max(0, nowMs - LOG_RETAIN_MS);
    await trimLogs(this.deps, this.untrimmed, drained, `${oldest}-0`, (p, cursor) => {
      // Everything archived is gone from Redis now: nothing to trim until the next batch.
      if (Number(cursor.slice(0, cursor.indexOf('-'))) < oldest) this.untrimmed.delete(p);
    });
  }
}

/** One drain with a drainer of its own (tests and tools; the workers keep theirs). */
export async function drainLogs(deps: Deps, pool: pg.Pool, maxBatches = 20, nowMs = Date.now()): Promise<DrainResult> {
  return new LogDrainer(deps, pool).drain(maxBatches, nowMs);
}
