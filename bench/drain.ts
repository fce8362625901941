/**
 * The event log drain's backlog, read from Redis while a variant whose workers run is measured:
 * how many log entries are not yet copied into Postgres, and how many seconds behind the drain is.
 *
 * The drain (src/engine/log-drain/drain.ts) keeps, per partition, the id of the last entry it has copied
 * (`Keys.partitionLogCursor`, src/redis/keys.ts); everything after it in the partition's stream
 * (`Keys.partitionLog`) is waiting. Copied entries stay in the stream for a while (LOG_RETAIN_MS),
 * so XLEN is not the backlog, and Redis has no command that counts a range of a stream. What it
 * has is XINFO STREAM's `entries-added` (every entry ever appended) beside `last-generated-id`,
 * read together: a mark "the entries up to this id number N". So the backlog of a partition is
 * `entries-added` − (the entries up to the cursor), and the entries up to the cursor are
 *
 *   - a mark's N, when the cursor is that mark's id (the drain stopped at the stream's end when
 *     the mark was taken, or an earlier sample counted this cursor already), or
 *   - the N of the last mark before the cursor plus the entries between the two, counted with
 *     XRANGE: marks are taken every sample, so that is at most one sampling interval's entries of
 *     the partition (about 10 at 10,000 events/s over 256 partitions and 250 ms), or
 *   - `entries-added` − the entries after the cursor (XRANGE to the end), when no mark is older
 *     than the cursor (the first sample of a run) or the stream was trimmed past the last one.
 *
 * Each count is remembered as a mark of its own, so an unchanged cursor costs nothing the next
 * time. How far behind: now − the time (`<ms>` of the id `<ms>-<seq>`) of the oldest entry after
 * a cursor, over all partitions (XRANGE (cursor + COUNT 1).
 *
 * One sample is a pipeline of script calls that read 16 partitions each (GET and XINFO STREAM, and
 * XRANGE ... COUNT 1 for the oldest entry waiting) and answer with ids and numbers only, and one
 * more call that counts the entries the marks leave open. With 256 partitions that is 4 to 7 ms of
 * Redis (XINFO STREAM 4.5 ms of it) and 1 ms of the runner per sample on the development machine,
 * after a load (2 to 3% of a core at four samples a second; the report gives each run's own figure). Single Redis only (the script reads every partition's keys). It
 * reads laurel's keys and never writes them. The arithmetic is in pure functions, tested in
 * test/ops/bench.test.ts.
 */
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { Keys } from '../src/redis/keys.js';

/** `<ms>-<seq>` as two numbers (both below 2^53 for any stream id Redis generates). */
export function parseStreamId(id: string): [ms: number, seq: number] {
  const dash = id.indexOf('-');
  if (dash < 0) return [Number(id), 0];
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

/** Negative, zero or positive as stream id `a` comes before, is, or comes after `b`. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = parseStreamId(a);
  const [bm, bs] = parseStreamId(b);
  return am !== bm ? am - bm : as - bs;
}

/** "The entries of the partition's stream up to and including `id` are `count`." */
export interface Mark {
  id: string;
  count: number;
}

/** What one sample read of a partition in its first round trip. */
export interface PartitionRead {
  /** The drain's cursor: the last entry copied; null before its first copy. */
  cursor: string | null;
  /** XINFO STREAM: last-generated-id, entries-added, first entry's id; null ids without a stream. */
  lastId: string | null;
  added: number;
  firstId: string | null;
}

/** How to learn the entries up to the cursor. */
export type CopiedPlan =
  /** Known without a read. */
  | { kind: 'known'; copied: number }
  /** `mark.count` + the entries in (mark.id, cursor]: XRANGE log (mark.id cursor. */
  | { kind: 'after-mark'; mark: Mark }
  /** `added` − the entries in (cursor, +]: XRANGE log (cursor +. */
  | { kind: 'to-end' };

/**
 * The plan for one partition, from its marks (oldest first) and what the sample read. The stream
 * is trimmed only up to the cursor (src/engine/log-drain/drain.ts), so the entries after it are all there.
 */
export function planCopied(marks: Mark[], read: PartitionRead): CopiedPlan {
  const { cursor, lastId } = read;
  if (cursor === null || lastId === null) return { kind: 'known', copied: 0 };
  if (cursor === lastId) return { kind: 'known', copied: read.added };
  let before: Mark | null = null;
  for (const m of marks) {
    const c = compareStreamIds(m.id, cursor);
    if (c === 0) return { kind: 'known', copied: m.count };
    if (c < 0) before = m;
    else break;
  }
  // Entries between the mark and the cursor were trimmed (the drain is far behind): count from
  // the other end instead.
  if (before === null || (read.firstId !== null && compareStreamIds(read.firstId, before.id) > 0)) return { kind: 'to-end' };
  return { kind: 'after-mark', mark: before };
}

/**
 * Adds a mark in id order and drops the marks older than the last one at or before `cursor`
 * (the cursor only moves forward). Returns the new list.
 */
export function addMark(marks: Mark[], mark: Mark, cursor: string | null): Mark[] {
  const list = marks.filter((m) => m.id !== mark.id);
  let at = list.findIndex((m) => compareStreamIds(m.id, mark.id) > 0);
  if (at < 0) at = list.length;
  list.splice(at, 0, mark);
  if (cursor === null) return list;
  let keepFrom = 0;
  for (let i = 0; i < list.length; i++) if (compareStreamIds(list[i].id, cursor) <= 0) keepFrom = i;
  return list.slice(keepFrom);
}

/**
 * The entries up to the cursor, from the plan and, where it left one open, the entries the sample
 * counted (`counted`: in (mark, cursor] for 'after-mark', in (cursor, last] for 'to-end').
 */
export function copiedOf(plan: CopiedPlan, read: PartitionRead, counted: number): number {
  if (plan.kind === 'known') return plan.copied;
  if (plan.kind === 'after-mark') return plan.mark.count + counted;
  return read.added - counted;
}

/** The range a plan leaves open to count, or null. */
export function openRange(plan: CopiedPlan, read: PartitionRead): { from: string; to: string } | null {
  // Up to the end as the read saw it: entries appended since are not counted.
  if (plan.kind === 'to-end') return { from: read.cursor!, to: read.lastId! };
  if (plan.kind === 'after-mark') return { from: plan.mark.id, to: read.cursor! };
  return null;
}

/**
 * The marks after a sample: the stream's end as read (last-generated-id numbers entries-added),
 * and the cursor with the entries up to it when the sample had to count them (so an unchanged
 * cursor is known next time), pruned below the cursor.
 */
export function marksAfter(marks: Mark[], read: PartitionRead, plan: CopiedPlan, copied: number): Mark[] {
  let next = marks;
  if (read.lastId !== null) next = addMark(next, { id: read.lastId, count: read.added }, read.cursor);
  if (read.cursor !== null && read.lastId !== null && plan.kind !== 'known') next = addMark(next, { id: read.cursor, count: copied }, read.cursor);
  return next;
}

/** Seconds from the entry `oldestId` was appended to `nowMs`; 0 when nothing waits. */
export function lagSeconds(nowMs: number, oldestId: string | null): number {
  if (oldestId === null) return 0;
  return Math.max(0, (nowMs - parseStreamId(oldestId)[0]) / 1000);
}

/** One reading of the whole backlog. */
export interface DrainSample {
  /** Wall time of the reading, ms. */
  atMs: number;
  /** Entries not yet copied, over every partition. */
  backlog: number;
  /** Seconds behind: the age of the oldest entry not yet copied (0 when none waits). */
  lagS: number;
}

/** One load's drain, from the samples taken during the load and after it. */
export interface DrainTurn {
  /** The most entries waiting at any sample during the load. */
  maxBacklog: number;
  /** The most seconds behind at any sample during the load. */
  maxLagS: number;
  /** Entries waiting at the first sample after the load stopped. */
  backlogAtLoadEnd: number;
  /** Seconds behind then. */
  lagAtLoadEndS: number;
  /**
   * Seconds from the load's end to the first sample that found nothing waiting; null when the
   * backlog did not reach 0 within the wait (`capS`).
   */
  drainedAfterS: number | null;
  /** Entries still waiting 5 s after the load stopped (the first sample from then on); 0 when drained before. */
  leftAfter5s: number;
  samples: number;
}

/** Seconds after the load within which the issue wants nothing left to copy. */
export const TAIL_LIMIT_S = 5;

/**
 * Summarises one load's samples (each list in time order): those taken during the load, and those
 * taken after it stopped at `loadEndMs` (the tail). Taken by when each was started, not by its
 * time stamp: a sample of the tail may carry the load's last millisecond.
 */
export function summarizeDrain(during: DrainSample[], after: DrainSample[], loadEndMs: number): DrainTurn {
  const firstAfter = after[0];
  const zero = after.find((s) => s.backlog === 0);
  const at5 = after.find((s) => s.atMs >= loadEndMs + TAIL_LIMIT_S * 1000);
  return {
    maxBacklog: Math.max(0, ...during.map((s) => s.backlog)),
    maxLagS: Math.max(0, ...during.map((s) => s.lagS)),
    backlogAtLoadEnd: firstAfter?.backlog ?? 0,
    lagAtLoadEndS: firstAfter?.lagS ?? 0,
    drainedAfterS: zero === undefined ? null : (zero.atMs - loadEndMs) / 1000,
    leftAfter5s: zero !== undefined && (at5 === undefined || zero.atMs <= at5.atMs) ? 0 : (at5 ?? after[after.length - 1])?.backlog ?? 0,
    samples: during.length + after.length,
  };
}

/** A variant's turns of one round as one pass: the worst of each figure. */
export function mergeDrainTurns(turns: DrainTurn[]): DrainTurn | null {
  if (turns.length === 0) return null;
  const tails = turns.map((t) => t.drainedAfterS);
  return {
    maxBacklog: Math.max(...turns.map((t) => t.maxBacklog)),
    maxLagS: Math.max(...turns.map((t) => t.maxLagS)),
    backlogAtLoadEnd: Math.max(...turns.map((t) => t.backlogAtLoadEnd)),
    lagAtLoadEndS: Math.max(...turns.map((t) => t.lagAtLoadEndS)),
    drainedAfterS: tails.some((t) => t === null) ? null : Math.max(...(tails as number[])),
    leftAfter5s: Math.max(...turns.map((t) => t.leftAfter5s)),
    samples: turns.reduce((n, t) => n + t.samples, 0),
  };
}

/**
 * One reading of some partitions in one script call (single Redis: the keys of several partitions,
 * each passed in KEYS), so that a sample costs the runner a few replies of numbers and ids rather
 * than hundreds of commands and their entries (XINFO STREAM answers with the first and the last
 * entry whole: 14 ms of the runner's CPU per sample when each went to it, 2 ms like this).
 * Per partition: the cursor, last-generated-id, entries-added and the first entry's id; then the
 * oldest entry waiting in any of them ('' for none), read in cursor order only until a cursor is
 * past the oldest found (one or two XRANGE ... COUNT 1 a call, not one a partition). KEYS: log,
 * cursor, log, cursor, ...
 */
const READ_SCRIPT = `
local function id(s)
  local ms, seq = string.match(s, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function before(a, b)
  local am, as = id(a)
  local bm, bs = id(b)
  return am < bm or (am == bm and as < bs)
end
local out = {}
local behind = {}
local oldest = nil
for i = 1, #KEYS, 2 do
  local log = KEYS[i]
  local cursor = redis.call('GET', KEYS[i + 1]) or ''
  local last, added, first = '', 0, ''
  local info = redis.pcall('XINFO', 'STREAM', log)
  if not info.err then
    for j = 1, #info, 2 do
      local k = info[j]
      if k == 'last-generated-id' then last = info[j + 1]
      elseif k == 'entries-added' then added = info[j + 1]
      elseif k == 'first-entry' and info[j + 1] then first = info[j + 1][1]
      end
    end
    if cursor == '' then
      if first ~= '' and (oldest == nil or before(first, oldest)) then oldest = first end
    elseif cursor ~= last then
      behind[#behind + 1] = { log, cursor }
    end
  end
  out[#out + 1] = cursor
  out[#out + 1] = last
  out[#out + 1] = added
  out[#out + 1] = first
end
-- The oldest entry waiting in these partitions: the entry after a cursor comes after the cursor,
-- so partitions are read in cursor order until a cursor is past the oldest found.
table.sort(behind, function(x, y) return before(x[2], y[2]) end)
for _, b in ipairs(behind) do
  if oldest ~= nil and not before(b[2], oldest) then break end
  local e = redis.call('XRANGE', b[1], '(' .. b[2], '+', 'COUNT', 1)
  if e[1] and (oldest == nil or before(e[1][1], oldest)) then oldest = e[1][1] end
end
out[#out + 1] = oldest or ''
return out
`;

/** Partitions read by one script call (about 0.3 ms of Redis for 16). */
const CHUNK = 16;

/** The entries of each KEYS[i] in (ARGV[2i-1], ARGV[2i]]: the counts the marks leave open. */
const COUNT_SCRIPT = `
local out = {}
for i = 1, #KEYS do
  out[i] = #redis.call('XRANGE', KEYS[i], '(' .. ARGV[2 * i - 1], ARGV[2 * i])
end
return out
`;

/**
 * Microseconds Redis has spent in EVAL so far (INFO commandstats): read before and after a pass,
 * the sampler's own Redis time (laurel runs FCALL, the bench servers EVALSHA; another client's
 * EVAL on a shared Redis would count too); 0 before Redis's first EVAL.
 */
export async function evalMicros(redis: Redis): Promise<number> {
  const m = /cmdstat_eval:calls=\d+,usec=(\d+)/.exec(await redis.info('commandstats'));
  return m === null ? 0 : Number(m[1]);
}

/** How often the backlog is read during a load and after it, by default (BENCH_DRAIN_SAMPLE_MS). */
export const SAMPLE_MS = 250;

/**
 * Reads one laurel installation's backlog (its key prefix and partition count), keeping the marks
 * between samples. One per variant and round; samples only when asked.
 */
export class DrainMonitor {
  private readonly keys: Keys;
  private marks: Mark[][];
  /** XRANGE entries read to count (the sampler's own cost), since the monitor was made. */
  entriesRead = 0;
  samplesTaken = 0;

  constructor(private readonly redis: Redis, prefix: string, partitions: number, private readonly everyMs = SAMPLE_MS) {
    this.keys = new Keys(prefix, partitions);
    this.marks = Array.from({ length: partitions }, () => []);
  }

  /** One reading of every partition: one script call, and a second when some count is open. */
  async sample(): Promise<DrainSample> {
    const n = this.keys.partitions;
    const atMs = Date.now();
    // In chunks of CHUNK partitions, pipelined: Redis serves other clients between two script
    // calls, so a sample never holds it for more than a fraction of a millisecond.
    const pipeline = this.redis.pipeline();
    for (let from = 0; from < n; from += CHUNK) {
      const keys: string[] = [];
      for (let p = from; p < Math.min(n, from + CHUNK); p++) keys.push(this.keys.partitionLog(p), this.keys.partitionLogCursor(p));
      pipeline.eval(READ_SCRIPT, keys.length, ...keys);
    }
    const flat: (string | number)[] = [];
    /** The oldest entry waiting, per chunk. */
    const oldest: (string | null)[] = [];
    for (const [err, part] of (await pipeline.exec()) ?? []) {
      if (err) throw err;
      const values = part as (string | number)[];
      flat.push(...values.slice(0, -1));
      const o = values[values.length - 1];
      oldest.push(o === '' ? null : String(o));
    }
    const reads: PartitionRead[] = [];
    for (let p = 0; p < n; p++) {
      const [cursor, lastId, added, firstId] = flat.slice(p * 4, p * 4 + 4);
      reads.push({
        cursor: cursor === '' ? null : String(cursor), lastId: lastId === '' ? null : String(lastId),
        added: Number(added), firstId: firstId === '' ? null : String(firstId),
      });
    }
    const plans = reads.map((r, p) => planCopied(this.marks[p], r));
    const open = plans.flatMap((plan, p) => {
      const range = openRange(plan, reads[p]);
      return range === null ? [] : [{ p, ...range }];
    });
    const counted = new Array<number>(n).fill(0);
    if (open.length > 0) {
      const counts = (await this.redis.eval(
        COUNT_SCRIPT, open.length, ...open.map((o) => this.keys.partitionLog(o.p)), ...open.flatMap((o) => [o.from, o.to]),
      )) as number[];
      open.forEach(({ p }, i) => {
        counted[p] = counts[i];
        this.entriesRead += counts[i];
      });
    }
    let backlog = 0;
    reads.forEach((r, p) => {
      const copied = copiedOf(plans[p], r, counted[p]);
      this.marks[p] = marksAfter(this.marks[p], r, plans[p], copied);
      backlog += Math.max(0, r.added - copied);
    });
    const lagS = Math.max(0, ...oldest.map((o) => lagSeconds(atMs, o)));
    this.samplesTaken++;
    return { atMs, backlog, lagS };
  }

  /**
   * Samples every `everyMs` until `load` settles, then on until nothing waits
   * (or `capS` seconds after the load): one load's drain. Resolves with the load's result and
   * the drain's summary, and the time the load ended.
   */
  async watch<T>(load: Promise<T>, capS: number, signal: AbortSignal): Promise<{ result: T; drain: DrainTurn; loadEndMs: number }> {
    const during: DrainSample[] = [];
    const after: DrainSample[] = [];
    let done = false;
    let loadEndMs = 0;
    const settled = load.then(
      (v) => { done = true; loadEndMs = Date.now(); return v; },
      (err: unknown) => { done = true; loadEndMs = Date.now(); throw err; },
    );
    // Keep sampling during the load; a failed sample does not stop the load.
    const sampling = (async () => {
      while (!done) {
        const started = Date.now();
        during.push(await this.sample());
        const rest = this.everyMs - (Date.now() - started);
        if (rest > 0 && !done) await Promise.race([sleep(rest), settled.catch(() => undefined)]);
      }
    })();
    const [loaded, sampled] = await Promise.allSettled([settled, sampling]);
    if (loaded.status === 'rejected') throw loaded.reason;
    if (sampled.status === 'rejected') throw sampled.reason;
    const result = loaded.value;
    const deadline = loadEndMs + capS * 1000;
    for (;;) {
      signal.throwIfAborted();
      const s = await this.sample();
      after.push(s);
      if (s.backlog === 0 || s.atMs >= deadline) break;
      await sleep(this.everyMs, undefined, { signal });
    }
    return { result, drain: summarizeDrain(during, after, loadEndMs), loadEndMs };
  }

  /** Waits until nothing waits (or `capS` passed); true when drained. */
  async waitDrained(capS: number, signal: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + capS * 1000;
    for (;;) {
      signal.throwIfAborted();
      const s = await this.sample();
      if (s.backlog === 0) return true;
      if (Date.now() >= deadline) return false;
      await sleep(this.everyMs, undefined, { signal });
    }
  }
}
