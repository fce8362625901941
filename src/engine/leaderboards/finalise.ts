/**
 * Leaderboard runs finalised, the job of the `leaderboards` queue (workers/leaderboards.ts): the
 * runs of leaderboards once every time zone has finished them (36 hours after their last day
 * began in UTC: UTC-12 ends it about 12 hours after UTC does), from the service's clock, so the
 * manual clock moves it too. Finalising a run records when, and its winners (the top three of
 * each breakdown group), in the board's state hash, after an entry in the event log that a
 * restore replays (src/engine/leaderboards/finalised.ts); the rankings stay as they were,
 * readable with `run=`. A user's later events fall in later runs by their local date, so nothing
 * reaches a finalised run. A board an admin finished is final at once, up to the run of the day it
 * was finished (UTC): no event ranks on it any more. While an endpoint subscribes to
 * `leaderboard.finished`, each run (and group) that became final after its board and tenant were
 * made records one, with its top 10, also
 * published on the board's live topic while a socket wants it (src/engine/live/clock.ts). A
 * league's users move between tiers first (src/engine/leaderboards/league-final.ts). The runs a
 * history import filled are finalised again by src/engine/batches/import-runs.ts.
 */
import type { Deps } from '../deps.js';
import { finalAt, finishedOn, runOf, runStart } from '../../domain/leaderboards/runs.js';
import { liveTenants, tenantsStored } from '../../redis/users.js';
import { lastFinalised } from '../../redis/board-state.js';
import { finishedEvent } from '../../domain/webhooks/clock-events.js';
import type { WebhookEvent } from '../../domain/webhooks/events.js';
import { announce, clockWanted } from '../webhooks/record.js';
import type { LiveInterest } from '../live/wanted.js';
import { recordFinalised } from './finalised.js';
import type { FinalisedRun } from '../../model/log.js';
import type { League, Leaderboard } from '../../model/entities.js';
import { finaliseLeague } from './league-final.js';
import { withRankingsLease } from './rankings-lease.js';
import { topOfRun, winnersOfTops } from './run-winners.js';

/** Runs finalised per board and tenant in one pass (a long-running board catches up over passes). */
const MAX_RUNS = 500;

export interface FinaliseResult {
  runs: number;
  /** Leagues' cohorts whose outcome this pass decided, and users it moved (src/engine/leaderboards/league-final.ts). */
  cohorts: number;
  moved: number;
}

/**
 * `interest`: the live topics wanted (a run's end goes to its board's). The pass holds the
 * rankings' lease (src/engine/leaderboards/rankings-lease.ts): no erasure takes a user off the
 * rankings between its reading them and its writing the winners.
 */
export async function finaliseRuns(deps: Deps, interest: LiveInterest): Promise<FinaliseResult> {
  return (await withRankingsLease(deps, () => finaliseHolding(deps, interest), true)) ?? { runs: 0, cohorts: 0, moved: 0 };
}

async function finaliseHolding(deps: Deps, interest: LiveInterest): Promise<FinaliseResult> {
  const { redis, keys, store, clock } = deps;
  const snapshot = store.current;
  const now = clock.now();
  // A tenant deleted a moment ago, which this process's copy may still hold, is not finalised:
  // its erasure took what finalisations wrote of it off the logs, holding the lease this pass holds.
  const tenants = await tenantsStored(redis, keys, liveTenants(snapshot));
  const result: FinaliseResult = { runs: 0, cohorts: 0, moved: 0 };
  const wanted = clockWanted(deps, interest);
  const notify = wanted.types.has('leaderboard.finished');
  for (const lb of snapshot.leaderboards.values()) {
    if (lb.status === 'inactive') continue;
    // Finished by an admin: monitoring stopped then, so its runs up to that day are final at once.
    const finished = finishedOn(lb);
    for (const tenant of tenants) {
      // A run final before the board (or its tenant) was made is finalised without a word: a board
      // made with a start months back, or a new tenant, finishes no run for anyone.
      const since = Math.max(Date.parse(lb.created), Date.parse(snapshot.tenants.get(tenant)?.created ?? '') || 0);
      const index = keys.leaderboardIndex(tenant, lb.id);
      const last = await lastFinalised(redis, index.state);
      let k = last === null ? 0 : (runOf(lb, last)?.k ?? -1) + 1;
      for (let n = 0; n < MAX_RUNS && k >= 0; n++, k++) {
        // None: past the end or the calendar; another: a board of one run (run 0 on every k).
        const run = runOf(lb, runStart(lb, k));
        if (run === null || run.k !== k) break;
        // When the run became final: every zone had finished its last day (whenever a pass gets
        // there, so a restore's pass records the same), or now for a board an admin finished.
        let final = now;
        if (finished !== null) {
          if (run.start > finished) break;
        } else {
          if (run.end === null) break;
          final = finalAt(run.end);
          if (now < final) break;
        }
        // The top 10 for leaderboard.finished; the top three are the winners.
        const told = notify && final > since;
        const tops = await topOfRun(deps, tenant, lb, run.start, told ? 10 : 3);
        const winners: FinalisedRun['w'] = winnersOfTops(tops);
        const finishedEvents: WebhookEvent[] = [];
        if (told) for (const [group, ranked] of tops) finishedEvents.push(finishedEvent(deps.settings.prefix, snapshot, tenant, lb, run, group, ranked, final));
        // A league's users moved before the run is marked final: a pass that fails part-way
        // decides and moves again, which moves nobody twice.
        if (lb.league) {
          const moved = await finaliseLeague(deps, wanted, tenant, lb as Leaderboard & { league: League }, run, final);
          result.cohorts += moved.cohorts;
          result.moved += moved.moved;
        }
        // Recorded before the run is marked final: a pass that fails between the two records them
        // again, which records nothing (their ids name the run).
        if (finishedEvents.length > 0) await announce(deps, await deps.postgres(), finishedEvents, wanted.live);
        await recordFinalised(deps, { t: tenant, ts: now, b: lb.id, r: run.start, at: new Date(final).toISOString(), w: winners });
        result.runs++;
      }
    }
  }
  return result;
}
