/**
 * An installation upgraded from a laurel that kept the tenants' points totals in a sorted set per
 * tenant and system (`<prefix>:{pts:<tenant>}:<systemId>`, written by phase 2, with a `:seq` hash
 * beside it) gets them moved once, at start-up, into the partitions' totals hashes the awarding
 * scripts now write (src/redis/keys.ts partitionPointsTotals). A total the new scripts wrote already
 * is newer and stays (HSETNX). The old keys are deleted after.
 */
import type { Logger } from 'pino';
import { scanKeys } from '../redis/client.js';
import type { Context } from './context.js';

/** The old keys' names: '<prefix>:{pts:<tenant>}:<systemId>' and '...:seq'. */
const OLD_KEY = /^.*:\{pts:([^}]*)\}:([^:]+)(:seq)?$/;

/** Moves the old totals sets, if any; answers how many users' totals were moved. */
export async function movePointsTotals(deps: Pick<Context, 'redis' | 'keys'>, log: Logger): Promise<number> {
  const { redis, keys } = deps;
  let moved = 0;
  for await (const batch of scanKeys(redis, `${keys.prefix}:{pts:*`, 1000)) {
    for (const name of batch) {
      const m = OLD_KEY.exec(name);
      if (m !== null && m[3] === undefined) {
        const [, tenant, systemId] = m;
        const flat = await redis.zrange(name, 0, -1, 'WITHSCORES');
        for (let i = 0; i < flat.length; i += 2) {
          const t = keys.partitionPointsTotal(tenant, flat[i], systemId);
          await redis.hsetnx(t.key, t.field, flat[i + 1]);
          moved++;
        }
      }
      await redis.del(name);
    }
  }
  if (moved > 0) log.info({ users: moved }, 'points totals moved to the partitions\' totals (one-time upgrade)');
  return moved;
}
