/**
 * One pass at a time over what finished runs say of the rankings: a finalisation, which reads the
 * rankings into a run's winners (its `finalised` log entry and the board's state), and an
 * erasure's pass, which takes the user off the rankings and the winners
 * (src/engine/erasure/pass.ts). Without it, a finalisation that read the rankings before an
 * erasure took the user off them could write its winners after the erasure said it was done.
 * Each holds the lease for its pass: an erasure that finds it held does its work on a later pass,
 * a finalisation waits for it (erasure passes are short; a finalisation asked for runs). A process
 * that dies holding it frees it after LEASE_MS.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../context.js';

/** Longer than any pass: a lease its process left is free after this. */
const LEASE_MS = 10 * 60_000;

type Deps = Pick<Context, 'redis' | 'keys'>;

/** How often a pass that waits for the lease asks again (ms). */
const WAIT_STEP_MS = 25;

/**
 * Runs `work` holding the lease; when another pass holds it, null (nothing run), or with `wait`
 * once it is free (at most LEASE_MS later: a holder's lease has lapsed by then).
 */
export async function withRankingsLease<T>(deps: Deps, work: () => Promise<T>, wait = false): Promise<T | null> {
  const id = randomUUID();
  const key = deps.keys.rankingsLease;
  const until = Date.now() + LEASE_MS;
  while ((await deps.redis.set(key, id, 'PX', LEASE_MS, 'NX')) === null) {
    if (!wait || Date.now() > until) return null;
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
  try {
    return await work();
  } finally {
    // Freed only by its holder (a lease that expired and was taken by another is theirs).
    const held = await deps.redis.get(key);
    if (held === id) await deps.redis.del(key);
  }
}
