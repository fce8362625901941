/**
 * Queue `log-drain`: moves the partitions' event logs (Redis streams, one entry per processed
 * event or identification) into Postgres (`laurel_events`), and trims from Redis only what
 * Postgres has committed. On the way it keeps the tenants' streak rankings: an event that
 * extended a streak carries `sx` (the state as stored), and the rankings take
 * the absolute values (applying an entry twice changes nothing), off the request path. Likewise
 * an entry with points awards (`pa`) sets the user's totals in the tenant's totals sets (for the
 * points summaries).
 *
 * Per partition: XRANGE a batch, INSERT it in one statement keyed by (prefix, partition, stream
 * id) with ON CONFLICT DO NOTHING, then XTRIM MINID past the last id inserted. A crash between
 * the insert and the trim inserts the same rows again next time, which changes nothing; two
 * drainers on one partition (several worker processes) only repeat each other's work. Nothing is
 * trimmed before Postgres has it.
 */
import { entryBody, type LogBody, type LoggedEvent } from '../src/model/log.js';
import { PAUSES_FIELD, STREAK_FIELD } from '../src/model/fields.js';
import type pg from 'pg';
import type { Deps } from '../src/engine/deps.js';
import { deadProcesses } from '../src/engine/liveness.js';
import { expiresAt, rankScore, stateFromHash, streakZone, type StreakState } from '../src/domain/streaks.js';
import { dayIndexOf } from '../src/domain/periods.js';
import type { StreakSettings } from '../src/model/entities.js';
import { isText, NOT_TEXT } from '../src/lib/text.js';
import { replayEvent } from '../src/engine/replay.js';

export const LOG_DRAIN_QUEUE = 'log-drain';

/** Entries read from one partition per round trip. */
const BATCH = 1000;
/** Partitions drained side by side. */
const PARALLEL = 8;

export interface DrainResult {
  /** Rows inserted (or already there) in Postgres. */
  drained: number;
  /** Partitions whose log had entries. */
  partitions: number;
}

type StreamEntry = [id: string, fields: string[]];

/** The id right after `id` (`<ms>-<seq>`): XTRIM MINID keeps ids from there on. */
export function nextStreamId(id: string): string {
  const dash = id.indexOf('-');
  return `${id.slice(0, dash)}-${BigInt(id.slice(dash + 1)) + 1n}`;
}

/**
 * A log entry as a batch carries it: the stream id, the kind ('event', 'user'), the body as
 * stored, and the body parsed once for everything the drainer does with it.
 */
interface Drained {
  id: string;
  kind: string;
  body: string;
  e: LogBody;
}

function parseBatch(entries: StreamEntry[]): Drained[] {
  return entries.map(([id, fields]) => {
    const body = entryBody(fields);
    const e = JSON.parse(body) as LogBody;
    // Postgres takes no U+0000 and no lone surrogate, in jsonb or text: an entry holding one (the
    // api refuses them; older entries, or a user id from another path, may hold one) is stored
    // with U+FFFD in their place, rather than stopping the partition's copy at it for good.
    if (body.includes('\\u') && !isText(e)) {
      const clean = textOnly(e) as LogBody;
      return { id, kind: fields[0] ?? 'unknown', body: JSON.stringify(clean), e: clean };
    }
    return { id, kind: fields[0] ?? 'unknown', body, e };
  });
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
 * One INSERT per batch. The bodies travel as one JSON array, paired with the other columns by
 * position (WITH ORDINALITY): as a jsonb[] each body was escaped element by element on the way
 * (pg's array literal), the most expensive part of a drain in node.
 */
async function insert(pool: pg.Pool, prefix: string, partition: number, batch: Drained[]): Promise<void> {
  const ids: string[] = [];
  const kinds: string[] = [];
  const tenants: string[] = [];
  const users: string[] = [];
  const at: number[] = [];
  const bodies: string[] = [];
  for (const { id, kind, body, e } of batch) {
    ids.push(id);
    kinds.push(kind);
    tenants.push(e.t ?? '');
    users.push(e.u ?? '');
    at.push(e.ts ?? Number(id.slice(0, id.indexOf('-'))));
    bodies.push(body);
  }
  await pool.query(
    `INSERT INTO laurel_events (prefix, partition, stream_id, kind, tenant, user_id, occurred_at, body)
     SELECT $1, $2, a.stream_id, a.kind, a.tenant, a.user_id, to_timestamp(a.ms / 1000.0), b.body
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::float8[]) WITH ORDINALITY
            AS a(stream_id, kind, tenant, user_id, ms, n)
     JOIN jsonb_array_elements($8::jsonb) WITH ORDINALITY AS b(body, n) ON a.n = b.n
     ON CONFLICT (prefix, partition, stream_id) DO NOTHING`,
    [prefix, partition, ids, kinds, tenants, users, at, `[${bodies.join(',')}]`],
  );
}

/** The extension an entry carries: the state as of its period, and the zone it was judged in. */
function extensionOf(e: LogBody, rule: StreakSettings): { state: StreakState; tz: string } | null {
  if (typeof e.sx === 'string') {
    // With the user's pauses as the event saw them: the expiry counts upcoming ones.
    const state = stateFromHash(e.sp ? { [STREAK_FIELD]: e.sx, [PAUSES_FIELD]: e.sp } : { [STREAK_FIELD]: e.sx }, rule, dayIndexOf(e.d ?? '1970-01-01'), 0);
    if (state.last === null) return null;
    state.extended = true;
    return { state, tz: streakZone(e.sx) };
  }
  const [length, longest, period, freezes, tz] = e.sx!;
  return { state: { length, start: null, last: period, freezes, extended: true, longest, paused: 0, run: null }, tz };
}

/**
 * Records the streak extensions of a batch in the tenants' rankings: per tenant, one ZADD per
 * ranking with every extension in log order (the last one of a user counts; the longest only
 * grows, GT), as lua/streakRank-3.lua does for one user. Absolute values: draining an entry twice
 * changes nothing.
 */
async function rankStreaks(deps: Deps, batch: Drained[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (rule === null) return;
  const byTenant = new Map<string, { active: (string | number)[]; longest: (string | number)[]; expiry: (string | number)[] }>();
  for (const { kind, e } of batch) {
    if (kind !== 'event' || !e.sx || e.t === undefined || e.u === undefined) continue;
    const x = extensionOf(e, rule);
    if (x === null) continue;
    const { state, tz } = x;
    const at = e.ts ?? 0;
    let lists = byTenant.get(e.t);
    if (lists === undefined) {
      lists = { active: [], longest: [], expiry: [] };
      byTenant.set(e.t, lists);
    }
    lists.active.push(rankScore(state.length, at), e.u);
    lists.longest.push(rankScore(state.longest, at), e.u);
    lists.expiry.push(expiresAt(rule, state, state.last!, tz) ?? 0, e.u);
  }
  // One pipeline per tenant: a tenant's rankings share a hash slot, two tenants' need not (a
  // Cluster pipeline stays on one slot).
  for (const [tenant, lists] of byTenant) {
    const k = deps.keys.streakRankings(tenant);
    const pipeline = deps.redis.pipeline();
    pipeline.zadd(k.active, ...lists.active);
    pipeline.zadd(k.longest, 'GT', ...lists.longest);
    pipeline.zadd(k.expiry, ...lists.expiry);
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }
}

/**
 * Records the points totals a batch's awards left (entries with "pa": [[system, trigger, awarded,
 * total, n, boosts], ...]) in the tenants' totals sets, the latest per user and system: one ZADD
 * per set.
 */
async function rankPoints(deps: Deps, batch: Drained[]): Promise<void> {
  // tenant -> system -> user -> total
  const byTenant = new Map<string, Map<string, Map<string, number>>>();
  for (const { e } of batch) {
    if (!e.pa || e.t === undefined || e.u === undefined) continue;
    let systems = byTenant.get(e.t);
    if (systems === undefined) {
      systems = new Map();
      byTenant.set(e.t, systems);
    }
    for (const [system, , , total] of e.pa) {
      let users = systems.get(system);
      if (users === undefined) {
        users = new Map();
        systems.set(system, users);
      }
      users.set(e.u, total);
    }
  }
  // One pipeline per tenant, on the tenant's slot (as the streak rankings).
  for (const [tenant, systems] of byTenant) {
    const pipeline = deps.redis.pipeline();
    for (const [system, users] of systems) {
      const pairs: (string | number)[] = [];
      for (const [user, total] of users) pairs.push(total, user);
      pipeline.zadd(deps.keys.pointsTotals(tenant, system), ...pairs);
    }
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }
}

/**
 * How long a copied entry stays in its partition's log: long enough for the drainer to see its api
 * process die (silent for 15 s, src/engine/liveness.ts) and place that process's events again. The drain
 * itself does not wait for it: an entry reaches Postgres on the next pass.
 */
export const LOG_RETAIN_MS = 30_000;

/** `a` if it comes before `b` in a stream (`<ms>-<seq>` ids), else `b`. */
export function earlierStreamId(a: string, b: string): string {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  if (am !== bm) return BigInt(am) < BigInt(bm) ? a : b;
  return BigInt(as) < BigInt(bs) ? a : b;
}

/**
 * Phase 2 of the events of a batch whose api process is dead already (src/engine/liveness.ts): a drainer
 * behind by more than 15 s meets them here. A process that stopped cleanly finished its requests
 * first.
 */
async function replayPhase2(deps: Deps, batch: Drained[], dead: Set<string>): Promise<void> {
  if (dead.size === 0 || deps.store.current.leaderboards.size === 0) return;
  for (const { id, kind, e } of batch) {
    if (kind === 'event' && e.p !== undefined && dead.has(e.p)) await replayEvent(deps, e as LoggedEvent, id);
  }
}

/**
 * Phase 2 of the events of api processes that died since the last pass: every entry of theirs
 * still in the logs (copied or not: the logs keep copied entries for LOG_RETAIN_MS), placed again
 * from the user's current state, which changes nothing where their phase 2 did run. Usually the
 * drainer has copied those entries long before their process counts as dead (15 s of silence),
 * so the batches alone would never meet them. A process is placed again once per heartbeat it
 * fell silent at (it may come back and die again). Forgets processes silent for a day.
 */
async function replayDeadProcesses(deps: Deps, raw: Record<string, string>, nowMs: number): Promise<void> {
  const { redis, keys } = deps;
  const { dead, stale } = deadProcesses(raw, nowMs);
  if (stale.length > 0) {
    await redis.hdel(keys.apiProcesses, ...stale);
    await redis.hdel(keys.apiReplayed, ...stale);
  }
  if (dead.size === 0) return;
  const replayed = await redis.hgetall(keys.apiReplayed);
  const due = new Set([...dead].filter((p) => replayed[p] !== raw[p]));
  if (due.size === 0) return;
  if (deps.store.current.leaderboards.size > 0) {
    for (let partition = 0; partition < keys.partitions; partition++) {
      const log = keys.partitionLog(partition);
      let from = '-';
      for (;;) {
        const entries = (await redis.xrange(log, from, '+', 'COUNT', BATCH)) as StreamEntry[];
        if (entries.length === 0) break;
        await replayPhase2(deps, parseBatch(entries), due);
        if (entries.length < BATCH) break;
        from = '(' + entries[entries.length - 1][0];
      }
    }
  }
  for (const p of due) await redis.hset(keys.apiReplayed, p, raw[p]);
}

/**
 * Drains one partition from its cursor until its log is copied (or `maxBatches` were moved), then
 * trims what is copied and older than LOG_RETAIN_MS.
 */
async function drainPartition(deps: Deps, pool: pg.Pool, partition: number, maxBatches: number, dead: Set<string>, nowMs: number): Promise<number> {
  const { redis, keys, settings } = deps;
  const log = keys.partitionLog(partition);
  const cursorKey = keys.partitionLogCursor(partition);
  let cursor = await redis.get(cursorKey);
  let moved = 0;
  for (let i = 0; i < maxBatches; i++) {
    const entries = (await redis.xrange(log, cursor === null ? '-' : '(' + cursor, '+', 'COUNT', BATCH)) as StreamEntry[];
    if (entries.length === 0) break;
    const batch = parseBatch(entries);
    await rankStreaks(deps, batch);
    await rankPoints(deps, batch);
    await replayPhase2(deps, batch, dead);
    await insert(pool, settings.prefix, partition, batch);
    cursor = entries[entries.length - 1][0];
    await redis.set(cursorKey, cursor);
    moved += entries.length;
    if (entries.length < BATCH) break;
  }
  // Nothing Postgres does not hold, nor anything the drainer may still need to place again.
  if (cursor !== null) await redis.xtrim(log, 'MINID', earlierStreamId(nextStreamId(cursor), `${Math.max(0, nowMs - LOG_RETAIN_MS)}-0`));
  return moved;
}

/**
 * One pass over every partition, then phase 2 for the api processes that died since the last
 * one. `nowMs`: the wall time (tests pass a later one to see entries leave).
 */
export async function drainLogs(deps: Deps, pool: pg.Pool, maxBatches = 20, nowMs = Date.now()): Promise<DrainResult> {
  const result: DrainResult = { drained: 0, partitions: 0 };
  const processes = await deps.redis.hgetall(deps.keys.apiProcesses);
  const { dead } = deadProcesses(processes, nowMs);
  let next = 0;
  const lane = async () => {
    while (next < deps.keys.partitions) {
      const moved = await drainPartition(deps, pool, next++, maxBatches, dead, nowMs);
      if (moved > 0) {
        result.drained += moved;
        result.partitions++;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  await replayDeadProcesses(deps, processes, nowMs);
  return result;
}
