/**
 * Queue `points-time`: time triggers' awards reach Redis even for users who do not come back.
 *   accrue    every second: the users whose next award is due (the partitions' due sets), each
 *             accrued by src/engine/points/time-awards.ts (awards dated when due; totals, caps and summaries
 *             as for any award)
 *   backfill  when a time trigger appears or comes back: every user of every tenant goes into
 *             the due sets, due now, so the next passes count their time (from their creation
 *             or the trigger's, whichever is later)
 * The due sets are src/engine/points/time-due.ts's.
 */
import type { Deps } from '../src/engine/deps.js';
import { accrueTime } from '../src/engine/points/time-awards.js';
import { dueUsers, leaveTimeDue } from '../src/engine/points/time-due.js';

export interface AccrueResult {
  users: number;
  awards: number;
}

const PARALLEL = 4;

/** One pass over the due sets: at most `perPartition` users of each partition. */
export async function accrueDue(deps: Deps, perPartition = 200): Promise<AccrueResult> {
  const result: AccrueResult = { users: 0, awards: 0 };
  if (deps.store.current.timeTriggers.length === 0) return result;
  let next = 0;
  const lane = async () => {
    while (next < deps.keys.partitions) {
      const partition = next++;
      for (const [tenant, userId] of await dueUsers(deps, partition, perPartition)) {
        const made = await accrueTime(deps, tenant, userId);
        // A user who is gone leaves the due set.
        if (made === null) await leaveTimeDue(deps, partition, tenant, userId);
        else result.awards += made.length;
        result.users++;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  return result;
}
