/**
 * The runs a history import filled, finalised again once it is applied (docs/api.md, "History
 * import"): an imported event fills the run of its date even when that run was final
 * (src/domain/leaderboards/runs.ts leftAsItWas), so each board's runs from the import's earliest
 * date to its last finalised have their winners read again and, where they changed, recorded
 * (a `finalised` entry a restore replays), at the time the run became final. No webhook, no live
 * update: the import tells no one; the runs still open are taken as seen by the rankings'
 * webhooks (src/engine/webhooks/rankings.ts seeCurrentRuns). A league's board keeps its runs (its
 * moves were decided once).
 *
 * The import route notes each import (src/routes/admin/import.ts); the workers' finalising pass
 * (workers/leaderboards.ts) runs this after finalising the runs due, under the rankings' lease
 * (src/engine/leaderboards/rankings-lease.ts), once none of a tenant's imports is under way, and
 * forgets them then (an import with no progress a minute after it was noted was never accepted,
 * or was forgotten after 24 hours).
 */
import type { Deps } from '../deps.js';
import { timeOfUuidv7 } from '../../domain/ids.js';
import { dateOfDay, dayIndexOf } from '../../domain/periods.js';
import { runOf, runStart } from '../../domain/leaderboards/runs.js';
import { lastFinalised, runOutcome } from '../../redis/board-state.js';
import { forgetImports, notedImports, noteImport as noteImportIn } from '../../redis/imports.js';
import { liveTenants } from '../../redis/users.js';
import { recordFinalised } from '../leaderboards/finalised.js';
import { withRankingsLease } from '../leaderboards/rankings-lease.js';
import { topOfRun, winnersOfTops } from '../leaderboards/run-winners.js';
import { seeCurrentRuns } from '../webhooks/rankings.js';
import { batchProgress } from './status.js';

/**
 * How long a noted import without progress is kept: it is noted before it is accepted, so a pass
 * between the two finds no progress yet.
 */
const ACCEPTING_MS = 60_000;


/** Notes an import whose runs are finalised again once it is applied; `earliest` its first event's time (ms). */
export async function noteImport(deps: Pick<Deps, 'redis' | 'keys'>, importId: string, tenant: string, earliest: number): Promise<void> {
  await noteImportIn(deps.redis, deps.keys, importId, tenant, earliest);
}

/** The imports noted and applied: their runs finalised again, the imports forgotten. Answers the runs recorded again. */
export async function refinaliseImported(deps: Deps): Promise<number> {
  return (await withRankingsLease(deps, () => refinaliseHolding(deps), true)) ?? 0;
}

/**
 * A tenant's imports are taken together once none of them is under way any more (a file sent in
 * parts is one walk of the runs at its end, not one a part): its runs from the earliest of them.
 */
async function refinaliseHolding(deps: Deps): Promise<number> {
  const { redis, keys, store } = deps;
  const byTenant = new Map<string, { ids: string[]; earliest: number; waiting: boolean }>();
  for (const { importId, tenant, earliest } of await notedImports(redis, keys)) {
    let t = byTenant.get(tenant);
    if (t === undefined) byTenant.set(tenant, (t = { ids: [], earliest: Infinity, waiting: false }));
    t.ids.push(importId);
    if (t.waiting) continue;
    const progress = await batchProgress(deps, tenant, importId);
    // Under way: applied in part, or noted and not accepted yet.
    if (progress === null ? !(Date.now() - timeOfUuidv7(importId) > ACCEPTING_MS) : progress.processed + progress.failed < progress.accepted) t.waiting = true;
    // Applied (an import never accepted, or forgotten, filled nothing).
    else if (progress !== null && Number.isFinite(earliest)) t.earliest = Math.min(t.earliest, earliest);
  }
  let recorded = 0;
  const live = new Set(liveTenants(store.current));
  for (const [tenant, { ids, earliest, waiting }] of byTenant) {
    if (waiting) continue;
    if (earliest !== Infinity && live.has(tenant)) {
      recorded += await refinalise(deps, tenant, earliest);
      // The runs still open took the imported events too: seen as they are, so that the rankings'
      // webhooks of the next 15-minute pass tell only what moves after the import.
      await seeCurrentRuns(deps, tenant);
    }
    await forgetImports(redis, keys, ids);
  }
  return recorded;
}

/** Every board's finalised runs from the day before `earliest` (the earliest zone's date) again. */
async function refinalise(deps: Deps, tenant: string, earliest: number): Promise<number> {
  const { redis, keys, store, clock } = deps;
  const from = dateOfDay(dayIndexOf(new Date(earliest).toISOString().slice(0, 10)) - 1);
  let recorded = 0;
  for (const lb of store.current.leaderboards.values()) {
    if (lb.league || lb.status === 'inactive') continue;
    const state = keys.leaderboardIndex(tenant, lb.id).state;
    const last = await lastFinalised(redis, state);
    if (last === null) continue;
    let k = from < lb.start ? 0 : runOf(lb, from)?.k;
    if (k === undefined) continue;
    for (; ; k++) {
      const run = runOf(lb, runStart(lb, k));
      if (run === null || run.k !== k || run.start > last) break;
      const tops = await topOfRun(deps, tenant, lb, run.start, 3);
      const winners = winnersOfTops(tops);
      let at: string | null = null;
      let changed = false;
      for (const [group, w] of Object.entries(winners)) {
        const outcome = await runOutcome(redis, state, run.start, group);
        at = outcome.finalised;
        if (JSON.stringify(outcome.winners ?? []) !== JSON.stringify(w)) changed = true;
      }
      if (at === null || !changed) continue;
      await recordFinalised(deps, { t: tenant, ts: clock.now(), b: lb.id, r: run.start, at, w: winners });
      recorded++;
    }
  }
  return recorded;
}
