/**
 * The log's consumer that rolls up the dashboard's analytics: every entry is parsed for the rollups
 * (about 1 µs for an event's body), written in the archive's transaction
 * (src/postgres/analytics/rollups.ts), the active users' sketches in Redis before it
 * (src/engine/analytics/active-users.ts: written twice, they change nothing). Until the backfill of
 * an earlier archive is done (src/postgres/analytics/backfill.ts), the drain waits for it.
 */
import { emptyRollup, rollEntry } from '../../domain/analytics-rollup.js';
import { noteActiveUsers } from '../analytics/active-users.js';
import { backfillChunk } from '../../postgres/analytics/backfill.js';
import { KnownUsers } from '../../postgres/analytics/known-users.js';
import { rollupStep } from '../../postgres/analytics/rollups.js';
import type { LogConsumer } from './consumer.js';

/** Archived batches the backfill of the rollups reads at a time. */
const BACKFILL_CHUNK = 100;

export const analyticsLog: LogConsumer = {
  name: 'analytics',
  start: ({ deps, pool, stats }) => {
    /** Whether the backfill of the rollups is done. */
    let backfilled = false;
    /** What this drainer knows of the users' rows, so the rollups skip what a batch does not change. */
    const known = new KnownUsers();
    return {
      /**
       * Rolls up what the archive held before the rollups, for up to a second. True once none is
       * left; until then the drain waits (its entries wait in Redis).
       */
      async ready() {
        if (backfilled) return true;
        const until = Date.now() + 1000;
        for (;;) {
          const n = await backfillChunk(pool, deps.settings.prefix, deps.store.current.notifications, BACKFILL_CHUNK, (r) => noteActiveUsers(deps, r));
          if (n === null) return false;
          if (n === 0) {
            backfilled = true;
            return true;
          }
          stats.backfilled += n;
          if (Date.now() >= until) return false;
        }
      },
      async drain() {
        return {
          pass() {
            const rollup = emptyRollup();
            const settings = deps.store.current.notifications;
            return {
              take: ({ kind, parsed }) => rollEntry(rollup, kind, parsed, settings),
              write: () => noteActiveUsers(deps, rollup),
              archive: () => rollupStep(deps.settings.prefix, rollup, known),
            };
          },
        };
      },
    };
  },
};
