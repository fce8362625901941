/**
 * Queue `log-drain`: moves the partitions' event logs (Redis streams, one entry per processed
 * event or identification) into Postgres (`laurel_events`), and trims from Redis only what
 * Postgres has committed.
 *
 * Per partition: XRANGE a batch, INSERT it in one statement keyed by (prefix, partition, stream
 * id) with ON CONFLICT DO NOTHING, then XTRIM MINID past the last id inserted. A crash between
 * the insert and the trim inserts the same rows again next time, which changes nothing; two
 * drainers on one partition (several worker processes) only repeat each other's work. Nothing is
 * trimmed before Postgres has it.
 */
import type pg from 'pg';
import type { Deps } from '../src/deps.js';

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

/** Drains one partition until its log is empty (or `maxBatches` were moved). */
async function drainPartition(deps: Deps, pool: pg.Pool, partition: number, maxBatches: number): Promise<number> {
  const { redis, keys, settings } = deps;
  const log = keys.partitionLog(partition);
  let moved = 0;
  for (let i = 0; i < maxBatches; i++) {
    const entries = (await redis.xrange(log, '-', '+', 'COUNT', BATCH)) as StreamEntry[];
    if (entries.length === 0) break;
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
