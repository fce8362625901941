/**
 * The version of a tenant's points totals under which each api process caches its filtered points
 * summaries (src/engine/points/read.ts): a counter, on a slot of its own, that a void moves once its
 * script took points back and before it answers (src/engine/fairplay/void.ts). A summary read after
 * that answer, on any api process, finds the version moved and reads the totals again. An award
 * leaves it alone: the event path makes no round trip for it, and the cache's 5 s bound what an
 * award leaves unseen.
 */
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys'>;

/** The tenant's points totals version ('' before any void took points back). */
export async function pointsTotalsVersion(deps: Deps, tenant: string): Promise<string> {
  return (await deps.redis.get(deps.keys.pointsTotalsVersion(tenant))) ?? '';
}

/**
 * Moves the version: resolves once it moved (a failure to move it is not the void's, which has
 * happened: the cache's 5 s bound what it leaves stale).
 */
export function pointsTotalsMoved(deps: Deps, tenant: string): Promise<void> {
  return deps.redis.incr(deps.keys.pointsTotalsVersion(tenant)).then(() => undefined, () => undefined);
}
