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
import type pg from 'pg';
import type { Deps } from '../src/deps.js';
import { replayEvent, type LoggedEvent as LoggedEventEntry } from '../src/leaderboard-rank.js';
import { deadProcesses } from '../src/liveness.js';
import { expiresAt, rankScore, stateFromHash, streakZone, type StreakState } from '../src/domain/streaks.js';
import { dayIndexOf } from '../src/domain/periods.js';
import type { StreakSettings } from '../src/store/config.js';

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

async function insert(pool: pg.Pool, prefix: string, partition: number, entries: StreamEntry[]): Promise<void> {
  const ids: string[] = [];
  const kinds: string[] = [];
  const tenants: string[] = [];
  const users: string[] = [];
  const at: string[] = [];
  const bodies: string[] = [];
  for (const [id, fields] of entries) {
    const body = fields[1] ?? '{}';
    const parsed = JSON.parse(body) as { t?: string; u?: string; ts?: number };
    ids.push(id);
    kinds.push(fields[0] ?? 'unknown');
    tenants.push(parsed.t ?? '');
    users.push(parsed.u ?? '');
    at.push(new Date(parsed.ts ?? Number(id.slice(0, id.indexOf('-')))).toISOString());
    bodies.push(body);
  }
  await pool.query(
    `INSERT INTO laurel_events (prefix, partition, stream_id, kind, tenant, user_id, occurred_at, body)
     SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::jsonb[])
     ON CONFLICT (prefix, partition, stream_id) DO NOTHING`,
    [prefix, partition, ids, kinds, tenants, users, at, bodies],
  );
}

interface LoggedEvent {
  t?: string;
  u?: string;
  ts?: number;
  /** Local day of the event. */
  d?: string;
  /** The streak as stored after the extension (lua/includes/streak.lua); an array in older logs. */
  sx?: string | [length: number, longest: number, period: number, freezes: number, tz: string];
}

/** The extension an entry carries: the state as of its period, and the zone it was judged in. */
function extensionOf(e: LoggedEvent, rule: StreakSettings): { state: StreakState; tz: string } | null {
  if (typeof e.sx === 'string') {
    const state = stateFromHash({ s: e.sx }, rule, dayIndexOf(e.d ?? '1970-01-01'), 0);
    if (state.last === null) return null;
    state.extended = true;
    return { state, tz: streakZone(e.sx) };
  }
  const [length, longest, period, freezes, tz] = e.sx!;
  return { state: { length, start: null, last: period, freezes, extended: true, longest, paused: 0 }, tz };
}

/** Records the streak extensions of a batch in the tenants' rankings (one pipeline per tenant slot). */
async function rankStreaks(deps: Deps, entries: StreamEntry[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (rule === null) return;
  const byTenant = new Map<string, LoggedEvent[]>();
  for (const [, fields] of entries) {
    if (fields[0] !== 'event' || !fields[1].includes('"sx"')) continue;
    const e = JSON.parse(fields[1]) as LoggedEvent;
    if (!e.sx || e.t === undefined || e.u === undefined) continue;
    const list = byTenant.get(e.t) ?? [];
    list.push(e);
    byTenant.set(e.t, list);
  }
  for (const [tenant, events] of byTenant) {
    const k = deps.keys.streakRankings(tenant);
    const pipeline = deps.redis.pipeline();
    for (const e of events) {
      const x = extensionOf(e, rule);
      if (x === null) continue;
      const { state, tz } = x;
      const at = e.ts ?? 0;
      pipeline.streakRank(k.active, k.longest, k.expiry, e.u!, rankScore(state.length, at), rankScore(state.longest, at),
        expiresAt(rule, state, state.last!, tz) ?? 0);
    }
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }
}

/**
 * Records the points totals a batch's awards left (entries with "pa": [[system, trigger, awarded,
 * total, n, boosts], ...]) in the tenants' totals sets, the latest per user and system.
 */
async function rankPoints(deps: Deps, entries: StreamEntry[]): Promise<void> {
  // tenant -> system -> user -> total
  const byTenant = new Map<string, Map<string, Map<string, number>>>();
  for (const [, fields] of entries) {
    if (!fields[1].includes('"pa"')) continue;
    const e = JSON.parse(fields[1]) as { t?: string; u?: string; pa?: [string, string, number, number][] };
    if (!e.pa || e.t === undefined || e.u === undefined) continue;
    const systems = byTenant.get(e.t) ?? new Map<string, Map<string, number>>();
    byTenant.set(e.t, systems);
    for (const [system, , , total] of e.pa) {
      const users = systems.get(system) ?? new Map<string, number>();
      systems.set(system, users);
      users.set(e.u, total);
    }
  }
  for (const [tenant, systems] of byTenant) {
    const pipeline = deps.redis.pipeline();
    for (const [system, users] of systems) {
      for (const [user, total] of users) pipeline.zadd(deps.keys.pointsTotals(tenant, system), total, user);
    }
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }
}

/**
 * Phase 2 of the events whose api process died before running it (src/liveness.ts): processes
 * silent too long; a process that stopped cleanly finished its requests first. Forgets processes
 * silent for a day.
 */
async function replayPhase2(deps: Deps, entries: StreamEntry[]): Promise<void> {
  if (deps.store.current.leaderboards.size === 0) return;
  const { dead, stale } = deadProcesses(await deps.redis.hgetall(deps.keys.apiProcesses), Date.now());
  if (stale.length > 0) await deps.redis.hdel(deps.keys.apiProcesses, ...stale);
  if (dead.size === 0) return;
  for (const [, fields] of entries) {
    if (fields[0] !== 'event') continue;
    const e = JSON.parse(fields[1]) as LoggedEventEntry & { p?: string };
    if (e.p !== undefined && dead.has(e.p)) await replayEvent(deps, e);
  }
}

/** Drains one partition until its log is empty (or `maxBatches` were moved). */
async function drainPartition(deps: Deps, pool: pg.Pool, partition: number, maxBatches: number): Promise<number> {
  const { redis, keys, settings } = deps;
  const log = keys.partitionLog(partition);
  let moved = 0;
  for (let i = 0; i < maxBatches; i++) {
    const entries = (await redis.xrange(log, '-', '+', 'COUNT', BATCH)) as StreamEntry[];
    if (entries.length === 0) break;
    await rankStreaks(deps, entries);
    await rankPoints(deps, entries);
    await replayPhase2(deps, entries);
    await insert(pool, settings.prefix, partition, entries);
    await redis.xtrim(log, 'MINID', nextStreamId(entries[entries.length - 1][0]));
    moved += entries.length;
    if (entries.length < BATCH) break;
  }
  return moved;
}

/** One pass over every partition. */
export async function drainLogs(deps: Deps, pool: pg.Pool, maxBatches = 20): Promise<DrainResult> {
  const result: DrainResult = { drained: 0, partitions: 0 };
  let next = 0;
  const lane = async () => {
    while (next < deps.keys.partitions) {
      const moved = await drainPartition(deps, pool, next++, maxBatches);
      if (moved > 0) {
        result.drained += moved;
        result.partitions++;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  return result;
}
