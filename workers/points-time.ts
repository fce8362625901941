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
import { POINTS_TIME_QUEUE } from '../src/engine/jobs.js';
import { allTimeDue } from '../src/engine/points/time-due.js';
import { every, PausablePass, type QueueSpec } from './queue.js';
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

export const pointsTimeQueue: QueueSpec<{
  /** Accrues every due time award now, beside the scheduled passes. */
  accrueNow(): Promise<AccrueResult>;
  /** Resolves once no job is waiting or running. */
  timeIdle(timeoutMs?: number): Promise<void>;
  /** Stops this process's pass each second, letting the one running finish (tests that accrue with accrueNow alone, in their own order). */
  pauseTimePass(): Promise<void>;
}> = {
  name: POINTS_TIME_QUEUE,
  failure: 'points-time job failed',
  schedules: () => [every(POINTS_TIME_QUEUE, 1000, 'accrue')],
  start({ svc, log }) {
    const pass = new PausablePass(() => accrueDue(svc), { users: 0, awards: 0 });
    return {
      async process(job) {
        if (job.name === 'backfill') {
          const r = await allTimeDue(svc);
          log.info(r, 'users put in the time-trigger due sets');
          return r;
        }
        const r = await pass.scheduled();
        if (r.awards > 0) log.debug(r, 'time awards accrued');
        return r;
      },
      testing: (q) => ({
        accrueNow: () => pass.run(),
        timeIdle: (timeoutMs = 10_000) => q.idle(timeoutMs),
        pauseTimePass: () => pass.pause(),
      }),
    };
  },
};
