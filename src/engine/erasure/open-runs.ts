/**
 * An erasure's first step outside the user's partition, on the request (src/engine/erasure/erase.ts):
 * the user leaves every ranking a run not final yet may hold them in (each board's runs of the
 * days from two before today to the day after, as far as they are not finalised: every zone's
 * day; each breakdown group and shard of those runs; the league cohort they sit in there) and the
 * tenant's streak rankings. So no finalisation after the request names them among a run's winners
 * or a cohort's outcome, and a new user of the same id starts those runs afresh. Each departure is
 * ordered by the erasure's log entry id: a placement of one of the user's events from before it
 * that arrives later changes nothing (lua/leaderboardLeave-6.lua), a new user's event places them.
 * It costs what the configuration holds (its boards, their groups and shards), never a walk of
 * the keyspace: the runs already final, and what else names the user, are the workers' pass's
 * (src/engine/erasure/elsewhere.ts).
 */
import { dateOfDayIndex, DAY_MS } from '../../domain/clock.js';
import { runOf } from '../../domain/leaderboards/runs.js';
import type { Leaderboard } from '../../model/entities.js';
import { isFinalised } from '../../redis/board-state.js';
import { userShard } from '../../redis/board-shards.js';
import { cohortUserField } from '../../redis/leagues.js';
import * as leaderboardLeave from '../../redis/scripts/leaderboardLeave.js';
import * as streakLeave from '../../redis/scripts/streakLeave.js';
import type { Context } from '../context.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

/** The runs of `lb` not final yet that a user's day may fall in now. */
async function openRuns(deps: Deps, tenant: string, lb: Leaderboard, now: number): Promise<string[]> {
  const today = Math.floor(now / DAY_MS);
  const starts = new Set<string>();
  for (let d = today - 2; d <= today + 1; d++) {
    const run = runOf(lb, dateOfDayIndex(d));
    if (run !== null) starts.add(run.start);
  }
  const state = deps.keys.leaderboardIndex(tenant, lb.id).state;
  const open: string[] = [];
  for (const start of starts) if (!(await isFinalised(deps.redis, state, start))) open.push(start);
  return open;
}

/** Takes the user out of the open runs' rankings and the streak rankings; answers how many places they left. */
export async function leaveOpenRuns(deps: Deps, tenant: string, userId: string, seq: string): Promise<number> {
  const { redis, keys, store } = deps;
  const now = deps.clock.now();
  let left = 0;
  for (const lb of store.current.leaderboards.values()) {
    if (lb.status === 'inactive') continue;
    for (const run of await openRuns(deps, tenant, lb, now)) {
      const index = keys.leaderboardIndex(tenant, lb.id);
      const groups = lb.breakdownAttributes.length === 0 ? [''] : await redis.smembers(index.groups(run));
      for (const group of groups) {
        if ((await leaderboardLeave.run(redis, userShard(keys, tenant, lb, run, group, userId), userId, seq, now)) > 0) left++;
      }
      if (!lb.league) continue;
      for (let tier = 0; tier < lb.league.tiers.length; tier++) {
        const n = await redis.hget(keys.leagueTier(tenant, lb.id, run, tier), cohortUserField(userId));
        if (n === null) continue;
        if ((await leaderboardLeave.run(redis, keys.leagueCohort(tenant, lb.id, run, tier, Number(n)), userId, seq, now)) > 0) left++;
      }
    }
  }
  left += await streakLeave.run(redis, keys.streakRankings(tenant), userId, seq);
  return left;
}
