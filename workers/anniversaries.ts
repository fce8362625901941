/**
 * Queue `anniversaries`: anniversary achievements complete on the user's calendar even for users
 * who do not come back (src/engine/achievements/anniversaries.ts).
 *   pass      every second: the users whose next anniversary may have come (the partitions' due
 *             sets), each looked at on their calendar: what came completed, the next one noted
 *   backfill  when an anniversary achievement is activated or changed: every user of every tenant
 *             goes into the due sets, due now, so the next passes look at them all
 * The due sets are src/engine/achievements/anniversary-due.ts's.
 */
import type { Deps } from '../src/engine/deps.js';
import { settleAnniversaries } from '../src/engine/achievements/anniversaries.js';
import { anniversaryDueUsers, leaveAnniversaryDue } from '../src/engine/achievements/anniversary-due.js';

export interface AnniversaryPassResult {
  users: number;
  completed: number;
}

const PARALLEL = 4;

/** One pass over the due sets: at most `perPartition` users of each partition. */
export async function anniversariesDue(deps: Deps, perPartition = 200): Promise<AnniversaryPassResult> {
  const result: AnniversaryPassResult = { users: 0, completed: 0 };
  if (deps.store.current.anniversaries.length === 0) return result;
  const now = deps.clock.now();
  let next = 0;
  const lane = async () => {
    while (next < deps.keys.partitions) {
      const partition = next++;
      for (const [tenant, userId] of await anniversaryDueUsers(deps, partition, now, perPartition)) {
        const done = await settleAnniversaries(deps, tenant, userId);
        // A user who is gone leaves the due set.
        if (done === null) await leaveAnniversaryDue(deps, partition, tenant, userId);
        else result.completed += done.length;
        result.users++;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  return result;
}
