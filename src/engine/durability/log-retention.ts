/**
 * The archive's retention (LAUREL_LOG_RETENTION_DAYS): the workers delete, every hour, the archived
 * event log's entries older than that on laurel's clock (src/postgres/log-retention.ts); unset, the
 * archive is kept. The analytics read their rollups, which stay.
 */
import type pg from 'pg';
import { pruneLogArchive } from '../../postgres/log-retention.js';
import type { Context } from '../context.js';

const DAY_MS = 86_400_000;

/** Deletes the archived entries past the retention; answers how many rows (0 when there is no retention). */
export async function pruneLog(deps: Pick<Context, 'clock' | 'settings'>, pool: pg.Pool): Promise<number> {
  const days = deps.settings.logRetentionDays;
  if (days === null) return 0;
  return pruneLogArchive(pool, deps.settings.prefix, deps.clock.now() - days * DAY_MS);
}
