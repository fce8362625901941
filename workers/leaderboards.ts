/**
 * Queue `leaderboards`: every 5 seconds, the runs every time zone has finished are finalised
 * (src/engine/leaderboards/finalise.ts).
 */
import { finaliseRuns, type FinaliseResult } from '../src/engine/leaderboards/finalise.js';
import { LEADERBOARDS_QUEUE } from '../src/engine/jobs.js';
import { every, type QueueSpec } from './queue.js';

export const FINALISE_MS = 5000;

export const leaderboardsQueue: QueueSpec<{
  /** Finalises the runs that are due now, beside the scheduled passes. */
  finaliseNow(): Promise<FinaliseResult>;
}> = {
  name: LEADERBOARDS_QUEUE,
  failure: 'leaderboards job failed',
  schedules: () => [every(LEADERBOARDS_QUEUE, FINALISE_MS, 'finalise')],
  start: ({ svc, log, live }) => ({
    async process() {
      const r = await finaliseRuns(svc, live.interest);
      if (r.runs > 0) log.info(r, 'leaderboard runs finalised');
      return r;
    },
    testing: () => ({ finaliseNow: () => finaliseRuns(svc, live.interest) }),
  }),
};
