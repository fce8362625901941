/**
 * Queue `leaderboards`: finalises the runs of leaderboards once every time zone has finished them
 * (36 hours after their last day began in UTC: UTC-12 ends it about 12 hours after UTC does), from
 * the service's clock, so the manual clock moves it too. Finalising a run records when, and its
 * winners (the top three of each breakdown group), in the board's state hash; the rankings stay
 * as they were, readable with `run=`. A user's later events fall in later runs by their local
 * date, so nothing reaches a finalised run. A board an admin finished is final at once, up to the
 * run of the day it was finished (UTC): no event ranks on it any more.
 */
import type { Deps } from '../src/engine/deps.js';
import { finishedOn, runOf, runStart } from '../src/domain/leaderboards.js';
import { dayIndexOf } from '../src/domain/periods.js';
import { liveTenants } from '../src/redis/users.js';

const DAY_MS = 86_400_000;
const LAST_ZONE_MS = 36 * 3_600_000;
/** Runs finalised per board and tenant in one pass (a long-running board catches up over passes). */
const MAX_RUNS = 500;

export interface FinaliseResult {
  runs: number;
}

export async function finaliseRuns(deps: Deps): Promise<FinaliseResult> {
  const { redis, keys, store, clock } = deps;
  const snapshot = store.current;
  const now = clock.now();
  const tenants = liveTenants(snapshot);
  const result: FinaliseResult = { runs: 0 };
  for (const lb of snapshot.leaderboards.values()) {
    if (lb.status === 'inactive') continue;
    // Finished by an admin: monitoring stopped then, so its runs up to that day are final at once.
    const finished = finishedOn(lb);
    for (const tenant of tenants) {
      const index = keys.leaderboardIndex(tenant, lb.id);
      const last = await redis.hget(index.state, 'last');
      let k = last === null ? 0 : (runOf(lb, last)?.k ?? -1) + 1;
      for (let n = 0; n < MAX_RUNS && k >= 0; n++, k++) {
        const run = runOf(lb, runStart(lb, k));
        if (run === null) break;
        // When the run became final: every zone had finished its last day (whenever a pass gets
        // there, so a restore's pass records the same), or now for a board an admin finished.
        let final = now;
        if (finished !== null) {
          if (run.start > finished) break;
        } else {
          if (run.end === null) break;
          final = dayIndexOf(run.end) * DAY_MS + LAST_ZONE_MS;
          if (now < final) break;
        }
        const groups = lb.breakdownAttributes.length === 0 ? [''] : await redis.smembers(index.groups(run.start));
        const fields: string[] = [];
        for (const group of groups) {
          const top = await redis.zrevrange(keys.leaderboard(tenant, lb.id, run.start, group).ranking, 0, 2, 'WITHSCORES');
          const winners = [];
          for (let i = 0; i < top.length; i += 2) {
            winners.push({ userId: top[i].slice(top[i].indexOf('|') + 1), rank: i / 2 + 1, value: Number(top[i + 1]) });
          }
          fields.push(`w:${run.start}:${group}`, JSON.stringify(winners));
        }
        await redis.hset(index.state, ...fields, `f:${run.start}`, new Date(final).toISOString(), 'last', run.start);
        result.runs++;
      }
    }
  }
  return result;
}
