/**
 * Queue `log-drain`: every second, one pass of the log drainer (src/engine/log-drain/drain.ts) over the
 * partitions' event logs, then the erasures whose entry the archive now holds
 * (src/engine/erasure/pass.ts): apart, so that one failing leaves the drain's outcome alone.
 */
import { LOG_DRAIN_QUEUE } from '../src/engine/jobs.js';
import { runErasures, type ErasurePassResult } from '../src/engine/erasure/pass.js';
import type { DrainResult } from '../src/engine/log-drain/drain.js';
import { every, OnePass, type QueueSpec } from './queue.js';

export const logDrainQueue: QueueSpec<{
  /** Drains every partition's event log now, beside the scheduled drains. */
  drainNow(): Promise<DrainResult>;
  /** Finishes the erasures whose entry the archive holds, beside the drain's passes. */
  erasuresNow(): Promise<ErasurePassResult>;
}> = {
  name: LOG_DRAIN_QUEUE,
  failure: 'event log drain failed; the entries stay in Redis',
  schedules: () => [every(LOG_DRAIN_QUEUE, 1000, 'drain')],
  start({ svc, pool, log, drainer }) {
    const drain = new OnePass(() => drainer.drain());
    const erasures = new OnePass(() => runErasures(svc, pool));
    return {
      async process() {
        const r = await drain.run();
        if (r.drained > 0) log.debug(r, 'event logs drained');
        await erasures.run().catch((err: unknown) => log.warn({ err }, 'erasure pass failed; the next pass goes on'));
        return r;
      },
      testing: () => ({ drainNow: () => drain.run(), erasuresNow: () => erasures.run() }),
    };
  },
};
