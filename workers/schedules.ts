/**
 * A queue's schedules made as this start's settings say. A schedule's id names its interval
 * (workers/queue.ts `every`), so an installation started again with another
 * LAUREL_SNAPSHOT_INTERVAL gets a scheduler of a new id: the one of the earlier start is taken
 * out, or both would run (a snapshot every 5 minutes beside the daily one asked for). A queue this
 * installation does not run keeps none.
 */
import type { Queue } from 'bullmq';
import type { Schedule } from './queue.js';

export async function makeSchedules(q: Queue, wanted: readonly Schedule[]): Promise<void> {
  for (const each of wanted) await q.upsertJobScheduler(each.id, { every: each.every }, { name: each.job, opts: each.opts });
  const ids = new Set(wanted.map((s) => s.id));
  for (const scheduler of await q.getJobSchedulers()) {
    if (!ids.has(scheduler.key)) await q.removeJobScheduler(scheduler.key);
  }
}
