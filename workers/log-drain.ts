/**
 * The log drain (its queue: workers/log-drain-queue.ts): one pass over the partitions' event logs (Redis streams) archives them and
 * trims them, and makes phase 2 of events whose api process died.
 *
 * A pass reads every partition after its cursor (one XRANGE each, sent together:
 * src/engine/durability/event-logs.ts), then:
 * - the events of an api process that died (src/engine/durability/liveness.ts) are parsed, and
 *   their phase 2 made again (src/engine/durability/replay-phase2.ts: the streak rankings, points
 *   totals and placements); absolute values, so an entry taken twice changes nothing. The rest is
 *   not parsed: phase 2 of each event keeps the rankings and totals
 *   (src/engine/streaks/rankings.ts);
 * - the archive takes every entry: one row per partition batch and the partitions' cursors, in one
 *   transaction (src/postgres/log-archive.ts), so each entry is archived once; every entry is
 *   parsed for the analytics rollups, written in the same transaction
 *   (src/postgres/analytics/rollups.ts; the active users' sketches in Redis before it), after the
 *   backfill of an earlier archive (src/postgres/analytics/backfill.ts), which the drain waits for;
 * - Redis keeps only what the archive does not hold yet, and what the drainer may still need to
 *   place again (LOG_RETAIN_MS).
 * - the achievement completions (entries that carry `ac`: the only ones parsed for it) are handed
 *   to the notifications' scheduler (src/engine/notifications/schedule.ts), whose deliveries are
 *   written in the archive's transaction: scheduled exactly once. A backfill's are silent. So are
 *   the streak reminders of the extensions (entries that carry `sx`), the reactivations and recaps
 *   of the users active in the pass (each event's user, day and streak read without parsing it),
 *   while a template of the type exists: noted in each partition's due index in Redis, nothing
 *   read, and only what this drainer has not written already (src/engine/notifications/due-index.ts),
 *   and made deliveries by the notifier when due.
 * - while an active webhook endpoint subscribes to a type the log gives, the entries that may call
 *   for one (src/domain/webhooks/events.ts mayNotify) are parsed, and their webhook deliveries
 *   (src/engine/webhooks/plan.ts) put in the endpoints' queues in Redis before the archive's
 *   transaction (src/engine/webhooks/queue.ts): each entry's once, however often a pass is made
 *   again, since the queues mark the entries they took.
 * Two drainers (several worker processes) do not archive an entry twice: the one whose cursors
 * moved under it writes nothing, reads the cursors again and goes on from there.
 */
import {
  activityOf, completionOf, entryBody, eventActivity, mayComplete, type LogBody, type LoggedCompletion, type LoggedEvent,
} from '../src/model/log.js';
import { plannedDeliveries, scheduleAll } from '../src/engine/notifications/schedule.js';
import {
  anyDue, dueWanted, noteDueTogether, noteEntry, NotedDays, type DueNotes, type PartitionDue,
} from '../src/engine/notifications/due-index.js';
import { maySetZone, movePending, zoneMoveOf, type ZoneMove } from '../src/engine/notifications/zones.js';
import { logSubscribers, plannedWebhooks } from '../src/engine/webhooks/plan.js';
import { rankNotesWanted } from '../src/engine/webhooks/rank-notes.js';
import { subscribedTypes } from '../src/engine/webhooks/record.js';
import { mayNotify, type ParsedEntry } from '../src/domain/webhooks/events.js';
import { enqueue } from '../src/engine/webhooks/queue.js';
import { isConnectionError } from '../src/redis/outage.js';
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { deadProcesses, forgetProcesses, noteReplayed, processBeats, replayedBeats } from '../src/engine/durability/liveness.js';
import { earlierCursors, readLog, readLogs, trimLogs, type StreamEntry } from '../src/engine/durability/event-logs.js';
import { isText, NOT_TEXT } from '../src/lib/text.js';
import { archiveLine, LogArchive, type ArchiveBatch } from '../src/postgres/log-archive.js';
import { emptyRollup, rollEntry } from '../src/domain/analytics-rollup.js';
import { noteActiveUsers } from '../src/engine/analytics/active-users.js';
import { backfillChunk } from '../src/postgres/analytics/backfill.js';
import { replayEvent } from '../src/engine/durability/replay-phase2.js';
import type { Drained } from '../src/engine/durability/streak-rankings-from-log.js';


/** Entries read from one partition per round trip. */
const BATCH = 1000;
/** How far behind (ms) the drain may fall before it says so. */
const BEHIND_MS = 10_000;
/** Partitions a pass reads, consumes and archives together (one transaction). */
const PASS_GROUP = 32;
/** Archived batches the backfill of the rollups reads at a time. */
const BACKFILL_CHUNK = 100;
/** Users whose last noted day a drainer remembers (about 100 bytes each). */
const NOTED_USERS = 200_000;

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

/** `"p":"<id>"` of each process, as an event's body names it. */
function processMarks(processes: Set<string>): string[] {
  return [...processes].map((p) => `"p":"${p}"`);
}

/** Whether the replay takes the entry: an event of one of the dead processes `marks` names. The rest are not parsed at all. */
function isConsumed(kind: string, fields: string[], marks: string[]): boolean {
  return marks.length > 0 && kind === 'event' && marks.some((m) => (fields[1] ?? '').includes(m));
}

function consumed(entries: StreamEntry[], marks: string[]): Drained[] {
  const out: Drained[] = [];
  for (const [id, fields] of entries) {
    const kind = fields[0] ?? 'unknown';
    if (isConsumed(kind, fields, marks)) out.push({ id, kind, e: JSON.parse(entryBody(fields)) as LogBody });
  }
  return out;
}

/**
 * Phase 2 of the events of a batch whose api process is dead already
 * (src/engine/durability/liveness.ts): a drainer behind by more than 15 s meets them here. A
 * process that stopped cleanly finished its requests first.
 */
async function replayPhase2(deps: Deps, batch: Drained[], dead: Set<string>): Promise<void> {
  if (dead.size === 0) return;
  for (const { id, kind, e } of batch) {
    if (kind === 'event' && e.p !== undefined && dead.has(e.p)) await replayEvent(deps, e as LoggedEvent, id);
  }
}

/**
 * Phase 2 of the events of api processes that died since the last pass: every entry of theirs
 * still in the logs (archived or not: the logs keep archived entries for LOG_RETAIN_MS), placed
 * again from the user's current state, which changes nothing where their phase 2 did run. Usually
 * the drainer has archived those entries long before their process counts as dead (15 s of
 * silence), so the passes alone would never meet them. A process is placed again once per
 * heartbeat it fell silent at (it may come back and die again). Forgets processes silent for a day.
 */
async function replayDeadProcesses(deps: Deps, raw: Record<string, string>, nowMs: number): Promise<void> {
  const { dead, stale } = deadProcesses(raw, nowMs);
  if (stale.length > 0) await forgetProcesses(deps, stale);
  if (dead.size === 0) return;
  const replayed = await replayedBeats(deps);
  const due = new Set([...dead].filter((p) => replayed[p] !== raw[p]));
  if (due.size === 0) return;
  if (deps.store.current.leaderboards.size > 0) {
    const marks = processMarks(due);
    for (let partition = 0; partition < deps.keys.partitions; partition++) {
      let from = '-';
      for (;;) {
        const entries = await readLog(deps, partition, from, BATCH);
        if (entries.length === 0) break;
        await replayPhase2(deps, consumed(entries, marks), due);
        if (entries.length < BATCH) break;
        from = '(' + entries[entries.length - 1][0];
      }
    }
  }
  for (const p of due) await noteReplayed(deps, p, raw[p]);
}

/**
 * What the entries call for (notifications' deliveries, webhooks' deliveries), planned by `make`.
 * Redis's connection failing fails the pass (it is made again, as the read before it would have
 * failed); any other fault is logged and plans nothing, rather than hold up the log's archive.
 */
async function planned<T>(deps: Deps, what: string, count: number, make: () => Promise<T[]>): Promise<T[]> {
  if (count === 0) return [];
  try {
    return await make();
  } catch (err) {
    if (isConnectionError(err)) throw err;
    deps.log.error({ err, entries: count }, `${what} not planned for these entries`);
    return [];
  }
}

/**
 * The drainer of one worker process: the partitions' cursors as archived, kept between passes
 * (read from Postgres at the first pass and whenever another drainer moved one).
 */
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
  /**
   * The day of each user's last event this drainer wrote in the due index: a user's later events of
   * the same day call for the same members, which are not written again
   * (src/engine/notifications/due-index.ts). A pass adds its own once its writes are done. Forgotten
   * when the configuration changes (the members called for may change with it).
   */
  private readonly noted = new NotedDays(NOTED_USERS);
  private notedFor: unknown = null;

  /** Since when the drain has been more than BEHIND_MS behind (null: it is not). */
  private behindSince: number | null = null;

  private readonly pool: pg.Pool;
  /** Whether the backfill of the rollups is done (src/postgres/analytics/backfill.ts). */
  private backfilled = false;

  /** Called once a pass has put webhook deliveries in their queues (the workers' sender claims them at once). */
  private readonly queued: (() => void) | undefined;

  constructor(deps: Deps, pool: pg.Pool, queued?: () => void) {
    this.deps = deps;
    this.pool = pool;
    this.archive = new LogArchive(pool, deps.settings.prefix);
    this.queued = queued;
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
   * then phase 2 for the api processes that died since the last one. `nowMs`: the wall time
   * (tests pass a later one to see entries leave).
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

  /**
   * Rolls up what the archive held before the rollups, for up to a second (src/postgres/analytics/backfill.ts).
   * True once none is left; until then the drain waits (its entries wait in Redis).
   */
  private async backfill(): Promise<boolean> {
    if (this.backfilled) return true;
    const { deps } = this;
    const until = Date.now() + 1000;
    for (;;) {
      const n = await backfillChunk(this.pool, deps.settings.prefix, deps.store.current.notifications, BACKFILL_CHUNK, (r) => noteActiveUsers(deps, r));
      if (n === null) return false;
      if (n === 0) {
        this.backfilled = true;
        return true;
      }
      this.stats.backfilled += n;
      if (Date.now() >= until) return false;
    }
  }

  private async drainAll(maxBatches: number, nowMs: number): Promise<DrainResult> {
    const { deps } = this;
    const startedMs = Date.now();
    const result: DrainResult = { drained: 0, partitions: 0 };
    if (!(await this.backfill())) return result;
    const processes = await processBeats(deps);
    const { dead } = deadProcesses(processes, nowMs);
    const drainedFrom = new Map<number, string>();
    let todo = Array.from({ length: deps.keys.partitions }, (_, p) => p);
    for (let i = 0; i < maxBatches && todo.length > 0; i++) {
      // A group of partitions at a time, the event loop free between two: the api may share the
      // process (laurel start), and a whole pass at once held its requests for tens of ms.
      const full: number[] = [];
      for (let g = 0; g < todo.length; g += PASS_GROUP) {
        const group = todo.slice(g, g + PASS_GROUP);
        const more = await this.pass(group, dead, result, drainedFrom);
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
    await this.trim(drainedFrom, nowMs);
    await replayDeadProcesses(deps, processes, nowMs);
    return result;
  }

  /**
   * One batch of each partition of `partitions`: consumed, then archived. Answers the partitions
   * whose batch was full (more to read), or null when another drainer moved a cursor meanwhile.
   */
  private async pass(partitions: number[], dead: Set<string>, result: DrainResult, drainedFrom: Map<number, string>): Promise<number[] | null> {
    const { deps } = this;
    const cursors = await (this.cursors ??= this.loadCursors());
    // Where each partition is read from, taken now: a pass side by side may move the shared cursors
    // while these reads are out, and the commit must check the cursor this batch was read after.
    const from = partitions.map((p) => cursors.get(p) ?? '');
    const read = await readLogs(deps, partitions, from, BATCH);
    const batches: ArchiveBatch[] = [];
    const consumers: Drained[] = [];
    const completions: LoggedCompletion[] = [];
    // Entries are parsed for webhooks only while an active endpoint subscribes to a type the log gives.
    const subscribers = logSubscribers(deps.store.current);
    const hooks = subscribers.endpoints.length > 0;
    // Every event is parsed for them while an uncapped board's rank changes are wanted (src/engine/webhooks/rank-notes.ts).
    const everyEvent = hooks && rankNotesWanted(deps.store.current, subscribers.types);
    // Events are parsed for the due index (reminders, reactivations, recaps) only while a template of those types exists.
    const wanted = dueWanted(deps.store.current);
    const indexing = anyDue(wanted);
    if (this.notedFor !== deps.store.current) {
      this.noted.clear();
      this.notedFor = deps.store.current;
    }
    const notes: DueNotes = { written: this.noted, pass: new NotedDays() };
    const due = new Map<number, PartitionDue>();
    // Identifications that set a zone move the pending deliveries, while any template exists.
    const zones = deps.store.current.templates.size > 0 || [...subscribedTypes(deps.store.current)].some((t) => t.startsWith('emails.'));
    const moves: ZoneMove[] = [];
    const notifying: ParsedEntry[] = [];
    const marks = processMarks(dead);
    const full: number[] = [];
    const rollup = emptyRollup();
    const settings = deps.store.current.notifications;
    partitions.forEach((partition, i) => {
      const entries = read[i];
      if (entries.length === 0) return;
      this.found += entries.length;
      const first = idMs(entries[0][0]);
      if (this.stats.oldestWaitingMs === null || first < this.stats.oldestWaitingMs) this.stats.oldestWaitingMs = first;
      if (entries.length === BATCH) full.push(partition);
      const lines: string[] = [];
      const members: PartitionDue = [];
      if (indexing) due.set(partition, members);
      for (const [id, fields] of entries) {
        const kind = fields[0] ?? 'unknown';
        // The body put together once, for the archive and, when one takes it, a consumer.
        const body = archivedBody(fields);
        lines.push(archiveLine(id, kind, body));
        if (isConsumed(kind, fields, marks)) consumers.push({ id, kind, e: JSON.parse(body) as LogBody });
        const completes = mayComplete(kind, fields);
        // The due index reads an event's user, day and streak without parsing it (an older entry's form is parsed).
        const active = indexing && kind === 'event';
        const activity = active ? eventActivity(fields) : null;
        const zone = zones && maySetZone(kind, fields);
        // Every entry is parsed for the analytics rollups (about 1 µs for an event's body).
        const parsed = JSON.parse(body) as LogBody;
        rollEntry(rollup, kind, parsed, settings);
        const seen = activity ?? (active ? activityOf(parsed) : null);
        if (seen !== null) noteEntry(deps.store.current, wanted, seen, members, notes);
        const move = zone ? zoneMoveOf(parsed) : null;
        if (move !== null) moves.push(move);
        if (completes) {
          const completion = completionOf(parsed);
          if (completion !== null) completions.push(completion);
        }
        if (hooks && (completes || (active && activity === null) || zone || mayNotify(kind, fields) || (everyEvent && kind === 'event'))) {
          notifying.push({ id, kind, e: parsed });
        }
      }
      batches.push({
        partition, previous: from[i], firstId: entries[0][0], lastId: entries[entries.length - 1][0],
        count: entries.length, lines: lines.join('\n'),
      });
    });
    if (batches.length === 0) return [];
    await replayPhase2(deps, consumers, dead);
    const deliveries = await planned(deps, 'notifications', completions.length, () => plannedDeliveries(deps, completions));
    const webhooks = await planned(deps, 'webhooks', notifying.length, () => plannedWebhooks(deps, notifying, deps.clock.now()));
    // Before the archive: an index written twice (a pass made again) changes nothing; so do the
    // active users' sketches.
    await noteActiveUsers(deps, rollup);
    await noteDueTogether(deps, due);
    // The webhooks' deliveries, due now: in the endpoints' queues before the archive holds their
    // entries (a queue takes an entry's once: a pass made again adds nothing).
    if (webhooks.length > 0) {
      await enqueue(deps, webhooks);
      this.queued?.();
    }
    // Written: later passes need not write them again.
    notes.pass.addTo(this.noted);
    const schedule = deliveries.length === 0 && moves.length === 0 ? undefined : async (client: pg.ClientBase) => {
      if (moves.length > 0) await movePending(client, deps.settings.prefix, deps.store.current, moves);
      if (deliveries.length > 0) await scheduleAll(client, deps.settings.prefix, deliveries, deps.clock.now());
    };
    const failed = (err: unknown) => deps.log.error({ err, deliveries: deliveries.length }, 'notifications not scheduled for these entries');
    if (!(await this.archive.commit(batches, rollup, schedule, failed))) {
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
