/**
 * Whether this Redis may be served: a Redis that holds no data of the installation (its
 * `LAUREL_PREFIX`) while Postgres holds some lost it (a restart without persistence, a new
 * machine). Serving it would answer as if every user were new, and the workers would start
 * writing over what Postgres keeps: the processes refuse to start and say to run `laurel restore`,
 * or restore first with LAUREL_AUTO_RESTORE=1. A prefix Postgres has never seen is a new
 * installation.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Settings } from '../lib/settings.js';
import { connectPostgres } from '../postgres/pool.js';
import { scanKeys } from '../redis/client.js';
import { Restore, type RestoreResult } from './durability/restore.js';
import { postgresHoldsData } from '../postgres/installation-data.js';
import type { Services } from './deps.js';
import { connect } from './services.js';
import { LaurelError } from '../lib/errors.js';

export class InstallationError extends LaurelError {
  constructor(message: string) { super('installation_mismatch', message); }
}

/** Whether Redis holds the installation: its configuration version, or any user's data. */
async function redisHasInstallation(svc: Services): Promise<boolean> {
  // Marked by a process that found Redis back without it: what Redis holds since is not it.
  if ((await svc.redis.exists(svc.keys.lostData)) === 1) return false;
  if ((await svc.redis.exists(svc.keys.configVersion)) === 1) return true;
  for await (const _ of scanKeys(svc.redis, `${svc.settings.prefix}:{p*`, 1000)) return true;
  return false;
}

/**
 * Refuses to go on with a Redis that lost the installation, or restores it first (autoRestore).
 * Answers the restore's result when one ran.
 */
export async function checkInstallation(svc: Services, log: Logger): Promise<RestoreResult | null> {
  const { settings } = svc;
  if (await redisHasInstallation(svc)) return null;
  const pool = await connectPostgres(settings);
  try {
    if (!(await postgresHoldsData(pool, settings.prefix))) return null;
    if (!settings.autoRestore) {
      throw new InstallationError(
        `Redis holds no data of installation "${settings.prefix}", but Postgres does: Redis lost it. ` +
          'Run `laurel restore` to rebuild it from the latest snapshot and the event log, or start with LAUREL_AUTO_RESTORE=1.',
      );
    }
    log.warn({ prefix: settings.prefix }, 'Redis lost the installation: restoring it from Postgres (LAUREL_AUTO_RESTORE)');
    const result = await restoreWith(settings, log, pool, false);
    log.info(result, 'restored from Postgres');
    return result;
  } finally {
    await pool.end();
  }
}

/** checkInstallation for a process that made `svc` for itself: closes them when it refuses. */
export async function guardInstallation(svc: Services, log: Logger): Promise<void> {
  try {
    await checkInstallation(svc, log);
  } catch (err) {
    await svc.close();
    throw err;
  }
}

/** A restore with services of its own, on a manual clock (each entry replayed at its time). */
export async function restoreWith(settings: Settings, log: Logger, pool: pg.Pool, force: boolean): Promise<RestoreResult> {
  const svc = await connect({ ...settings, clock: 'manual' }, log);
  try {
    return await new Restore(svc, pool, log).run(force);
  } finally {
    await svc.close();
  }
}
