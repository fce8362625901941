/**
 * The partitions' event logs (Redis streams) as the log drainer reads and trims them
 * (src/engine/log-drain/drain.ts): batches read after a cursor, several partitions sent together; the
 * cursors an earlier version kept in Redis; what the archive holds trimmed.
 */
import { earlierStreamId, nextStreamId } from '../../model/log.js';
import { sentTogether } from '../../redis/coalesce.js';
import type { Context } from '../context.js';

/** A log entry as XRANGE answers it. */
export type StreamEntry = [id: string, fields: string[]];

/** At most `count` entries of each partition after its cursor in `from` ('': from the start), the reads sent together. */
export function readLogs(deps: Pick<Context, 'redis' | 'keys'>, partitions: number[], from: string[], count: number): Promise<StreamEntry[][]> {
  const { redis, keys } = deps;
  return Promise.all(sentTogether(redis, () => partitions.map((p, i) =>
    redis.xrange(keys.partitionLog(p), from[i] === '' ? '-' : '(' + from[i], '+', 'COUNT', count) as Promise<StreamEntry[]>)));
}

/** At most `count` entries of a partition's log from `start` (an XRANGE bound: '-', or '(<id>' after one). */
export function readLog(deps: Pick<Context, 'redis' | 'keys'>, partition: number, start: string, count: number): Promise<StreamEntry[]> {
  return deps.redis.xrange(deps.keys.partitionLog(partition), start, '+', 'COUNT', count) as Promise<StreamEntry[]>;
}

/** Where an earlier version's drainer said each partition's archive ended (null: nowhere). */
export function earlierCursors(deps: Pick<Context, 'redis' | 'keys'>, partitions: number[]): Promise<(string | null)[]> {
  return Promise.all(partitions.map((p) => deps.redis.get(deps.keys.partitionLogCursor(p))));
}

/**
 * Trims each partition of `untrimmed` (partition to its archive's end) of what the archive holds
 * and is older than `retained` (a stream id), and says in Redis where the archive of the
 * partitions `drained` ends (for operators, and an earlier version's drainer); `trimmed` is told
 * of each partition once done. Sent together.
 */
export async function trimLogs(
  deps: Pick<Context, 'redis' | 'keys'>, untrimmed: Map<number, string>, drained: Map<number, string>, retained: string,
  trimmed: (partition: number, cursor: string) => void,
): Promise<void> {
  const { redis, keys } = deps;
  await Promise.all(sentTogether(redis, () => [...untrimmed].map(async ([p, cursor]) => {
    await Promise.all([
      drained.has(p) ? redis.set(keys.partitionLogCursor(p), cursor) : null,
      redis.xtrim(keys.partitionLog(p), 'MINID', earlierStreamId(nextStreamId(cursor), retained)),
    ]);
    trimmed(p, cursor);
  })));
}
