/**
 * The workers' schedules follow the settings they start with: started again with another
 * LAUREL_SNAPSHOT_INTERVAL, they snapshot at the new interval only (the earlier start's scheduler
 * taken out, not left running beside it), and a queue they no longer run (the log's retention
 * once LAUREL_LOG_RETENTION_DAYS is unset) keeps no scheduler. Stopped as soon as they started,
 * again and again (each start's first snapshot and pruning under way, on a Cluster the workers'
 * connections still being made), they leave no error behind: a worker closed while its connection
 * was being made left one nothing could catch, which ends a process.
 */
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { LOG_RETENTION_QUEUE, SNAPSHOT_QUEUE } from '../../src/engine/jobs.js';
import { createLogger } from '../../src/lib/log.js';
import { startWorkers } from '../../workers/index.js';
import { targets } from '../support/server.js';
import { useTestServer } from '../support/use-server.js';

describe.each(targets())('the workers\' schedules on %s', (target) => {
  const s = useTestServer({ target, workers: true, env: { LAUREL_SNAPSHOT_INTERVAL: '5m', LAUREL_LOG_RETENTION_DAYS: '30' } });

  /** Each scheduler of a queue: its id and interval. */
  const schedulers = async (name: string) => {
    const { services } = s.api;
    const q = new Queue(name, { connection: services.redis, prefix: services.keys.queuePrefix });
    try {
      return (await q.getJobSchedulers()).map((x) => ({ id: x.key, every: x.every }));
    } finally {
      await q.close();
    }
  };

  it('keep only the schedules of the settings they started with', async () => {
    expect(await schedulers(SNAPSHOT_QUEUE)).toEqual([{ id: `${SNAPSHOT_QUEUE}-every-300000ms`, every: 300_000 }]);
    expect(await schedulers(LOG_RETENTION_QUEUE)).toHaveLength(1);

    await s.workers!.close();
    // The settings LAUREL_SNAPSHOT_INTERVAL=1h and no LAUREL_LOG_RETENTION_DAYS give.
    s.workers = await startWorkers({ ...s.settings, snapshotIntervalMs: 3_600_000, logRetentionDays: null }, createLogger('silent'), s.api.services);

    expect(await schedulers(SNAPSHOT_QUEUE)).toEqual([{ id: `${SNAPSHOT_QUEUE}-every-3600000ms`, every: 3_600_000 }]);
    expect(await schedulers(LOG_RETENTION_QUEUE)).toEqual([]);
  });

  it('stop as soon as they started, again and again, leaving no error behind', async () => {
    const left: unknown[] = [];
    const onUnhandled = (err: unknown) => { left.push(err); };
    process.on('unhandledRejection', onUnhandled);
    try {
      for (let i = 0; i < 12; i++) {
        await s.workers!.close();
        const odd = i % 2 === 1;
        s.workers = await startWorkers({ ...s.settings, snapshotIntervalMs: odd ? 3_600_000 : 300_000, logRetentionDays: odd ? null : 30 }, createLogger('silent'), s.api.services);
      }
      await s.workers!.close();
      s.workers = await startWorkers(s.settings, createLogger('silent'), s.api.services);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(left).toEqual([]);
  }, 120_000);
});
