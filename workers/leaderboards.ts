/**
 * Queue `leaderboards`: every 5 seconds, the runs every time zone has finished are finalised
 * (src/engine/leaderboards/finalise.ts), then the runs the history imports applied since filled
 * are finalised again (src/engine/batches/import-runs.ts; counted with the runs).
 */
import { finaliseRuns, type FinaliseResult } from '../src/engine/leaderboards/finalise.js';
import { refinaliseImported } from '../src/engine/batches/import-runs.js';
import { LEADERBOARDS_QUEUE } from '../src/engine/jobs.js';
import { every, PausablePass, type QueueSpec } from './queue.js';

export const FINALISE_MS = 5000;

export const leaderboardsQueue: QueueSpec<{
  /** Finalises the runs that are due now, beside the scheduled passes. */
  finaliseNow(): Promise<FinaliseResult>;
  /** Stops this process's pass every FINALISE_MS, letting the one running finish (tests that finalise with finaliseNow alone, at the moments they choose). */
  pauseFinalisePass(): Promise<void>;
}> = {
  name: LEADERBOARDS_QUEUE,
  failure: 'leaderboards job failed',
  schedules: () => [every(LEADERBOARDS_QUEUE, FINALISE_MS, 'finalise')],
  start({ svc, log, live }) {
    const pass = new PausablePass(async () => {
      const r = await finaliseRuns(svc, live.interest);
      return { ...r, runs: r.runs + await refinaliseImported(svc) };
    }, { runs: 0, cohorts: 0, moved: 0 });
    return {
      async process() {
        const r = await pass.scheduled();
        if (r.runs > 0) log.info(r, 'leaderboard runs finalised');
        return r;
      },
      testing: () => ({ finaliseNow: () => pass.run(), pauseFinalisePass: () => pass.pause() }),
    };
  },
};
