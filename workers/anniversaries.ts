/**
 * Queue `anniversaries`: anniversary achievements complete on the user's calendar even for users
 * who do not come back (src/engine/achievements/anniversaries.ts).
 *   pass      every second: the users whose next anniversary may have come (the partitions' due
 *             sets), each looked at on their calendar: what came completed, the next one noted
 *   backfill  when an anniversary achievement is activated or changed: every user of every tenant
 *             goes into the due sets, due now, so the next passes look at them all
 * The due sets are src/engine/anniversaries/due.ts's.
 */
import type { Deps } from '../src/engine/deps.js';
import { ANNIVERSARIES_QUEUE } from '../src/engine/jobs.js';
import { allAnniversaryDue } from '../src/engine/anniversaries/due.js';
import { every, PausablePass, type QueueSpec } from './queue.js';
import { settleAnniversaries } from '../src/engine/achievements/anniversaries.js';
import { anniversaryDueUsers, leaveAnniversaryDue } from '../src/engine/anniversaries/due.js';

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

export const anniversariesQueue: QueueSpec<{
  /** Looks at every user whose anniversary may have come now, beside the scheduled passes. */
  anniversariesNow(): Promise<AnniversaryPassResult>;
  /** Resolves once no job is waiting or running. */
  anniversariesIdle(timeoutMs?: number): Promise<void>;
  /** Stops this process's pass each second, letting the one running finish (tests of the event path). */
  pauseAnniversaryPass(): Promise<void>;
}> = {
  name: ANNIVERSARIES_QUEUE,
  failure: 'anniversaries job failed',
  schedules: () => [every(ANNIVERSARIES_QUEUE, 1000, 'pass')],
  start({ svc, log }) {
    const pass = new PausablePass(() => anniversariesDue(svc), { users: 0, completed: 0 });
    return {
      async process(job) {
        if (job.name === 'backfill') {
          const r = await allAnniversaryDue(svc);
          log.info(r, 'users put in the anniversary due sets');
          return r;
        }
        const r = await pass.scheduled();
        if (r.completed > 0) log.debug(r, 'anniversary achievements completed');
        return r;
      },
      testing: (q) => ({
        anniversariesNow: () => pass.run(),
        anniversariesIdle: (timeoutMs = 10_000) => q.idle(timeoutMs),
        pauseAnniversaryPass: () => pass.pause(),
      }),
    };
  },
};
