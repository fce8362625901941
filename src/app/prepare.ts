/**
 * What a start-up does once for the installation, before any api process serves: connect Redis
 * (failing fast), load the scripts and the function library, refuse a Redis that lost the
 * installation (or restore it, with LAUREL_AUTO_RESTORE), move data an older laurel kept elsewhere
 * (src/engine/durability/upgrade.ts), make the first admin key. The primary of
 * several api processes (src/app/processes.ts) does it, so they do not race at it N times.
 */
import type { Logger } from 'pino';
import { connect } from '../engine/services.js';
import type { Services } from '../engine/deps.js';
import { guardInstallation } from '../engine/installation-check.js';
import { upgradeData } from '../engine/durability/upgrade.js';
import type { Settings } from '../lib/settings.js';
import { ensureAdminKey } from './bootstrap.js';

export async function prepareInstallation(settings: Settings, log: Logger): Promise<Services> {
  const svc = await connect(settings, log);
  await guardInstallation(svc, log);
  try {
    await upgradeData(svc, log);
    await ensureAdminKey(svc.store, svc.redis, svc.keys, svc.clock, log, settings.adminKey);
  } catch (err) {
    await svc.close();
    throw err;
  }
  return svc;
}
