/**
 * A league's run made final (docs/api.md, "Leagues"), a step of the run's finalisation
 * (src/engine/leaderboards/finalise.ts) made before the run is marked final. In every cohort of
 * every tier:
 * 1. the outcome is decided once, on the cohort's own slot (lua/leagueFinalise-2.lua): the first
 *    `promote` of its ranking move up, the last `demote` down, the others stay, ranked as the
 *    board ranks; recorded in the cohort's outcome hash, which a second decision only reads;
 * 2. each of its users is moved, in their own slot (lua/leagueMove-1.lua): the tier they carry
 *    into the next run they join, once per run; a user placed in a later run already, in a cohort
 *    of their old tier, then goes to the open cohort of their new tier there, with what they hold
 *    (src/engine/leaderboards/league-relocate.ts);
 * 3. `league.promoted`, `league.demoted` or `league.stayed` is recorded for each of them while an
 *    endpoint subscribes, its id naming the user and the run, so it is recorded once.
 * Every step is idempotent: a pass made again (a second worker process at the same time, one that
 * was killed between two cohorts or two users) finds the outcomes decided and the moves applied,
 * and moves nobody twice; the run is marked final only after every cohort's users are moved. A
 * restore replaying the run's `finalised` entry moves again, silently, those the snapshot it
 * started from had not moved yet (src/engine/durability/restore.ts).
 */
import { isControl } from '../../domain/notifications/rules.js';
import { userView } from '../../domain/users.js';
import { leagueEvent, leagueEventType } from '../../domain/webhooks/clock-events.js';
import type { WebhookEvent } from '../../domain/webhooks/events.js';
import type { League, Leaderboard, WebhookType } from '../../model/entities.js';
import { cohortCount, type Outcome } from '../../redis/leagues.js';
import * as leagueFinalise from '../../redis/scripts/leagueFinalise.js';
import * as leagueMove from '../../redis/scripts/leagueMove.js';
import { runOf } from '../../domain/leaderboards/runs.js';
import type { FinalisedRun } from '../../model/log.js';
import type { Context } from '../context.js';
import { announce, type ClockWanted } from '../webhooks/record.js';
import { relocateEarlyJoiner } from './league-relocate.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'settings' | 'clock' | 'postgres'>;

/** The league's webhook event types. */
export const LEAGUE_TYPES: readonly WebhookType[] = ['league.promoted', 'league.demoted', 'league.stayed'];

const MOVES: Record<Outcome, number> = { promoted: 1, demoted: -1, stayed: 0 };

/** What a league's finalisation did: cohorts decided by this pass, users moved by it. */
export interface LeagueFinalised {
  cohorts: number;
  moved: number;
}

/** Decides every cohort of the league's run, moves their users, and records their events; `at`: when the run became final. */
export async function finaliseLeague(
  deps: Deps, wanted: ClockWanted, tenant: string, lb: Leaderboard & { league: League }, run: { start: string; end: string | null }, at: number,
): Promise<LeagueFinalised> {
  const { redis, keys } = deps;
  const { league } = lb;
  const highest = league.tiers.length - 1;
  const notify = LEAGUE_TYPES.some((t) => wanted.types.has(t));
  const result: LeagueFinalised = { cohorts: 0, moved: 0 };
  for (let tier = 0; tier <= highest; tier++) {
    const t = league.tiers[tier];
    const count = await cohortCount(redis, keys.leagueTier(tenant, lb.id, run.start, tier));
    for (let n = 0; n < count; n++) {
      const decided = await leagueFinalise.run(
        redis, keys.leagueCohort(tenant, lb.id, run.start, tier, n), tier < highest ? t.promote : 0, tier > 0 ? t.demote : 0,
      );
      if (decided.now) result.cohorts++;
      const moved = await Promise.all(decided.users.map(async (u) => {
        const m = await leagueMove.run(redis, keys.forUser(tenant, u.userId).user, lb.id, run.start, MOVES[u.outcome], highest);
        // Whether moved now or by a pass before (killed before it was done): done again, it changes nothing.
        if (MOVES[u.outcome] !== 0 && (m === 'applied' || m === 'before')) await relocateEarlyJoiner(deps, tenant, lb, run.start, u.userId);
        return m;
      }));
      result.moved += moved.filter((m) => m === 'applied').length;
      if (!notify) continue;
      const snapshot = deps.store.current;
      const hashes = await Promise.all(decided.users.map((u) => redis.hgetall(keys.forUser(tenant, u.userId).user)));
      const events: WebhookEvent[] = [];
      decided.users.forEach((u, i) => {
        const h = hashes[i];
        // An erased user hears nothing.
        if (h.id === undefined || !wanted.types.has(leagueEventType(u.outcome))) return;
        events.push(leagueEvent(deps.settings.prefix, tenant, lb, run, userView(h, isControl(snapshot.notifications, tenant, h)), {
          outcome: u.outcome, tier, cohort: n, rank: u.rank, value: u.value, participants: decided.users.length,
        }, at));
      });
      if (events.length > 0) await announce(deps, await deps.postgres(), events, wanted.live);
    }
  }
  return result;
}

/** A restore's replay of a league's run made final: the users the restored state had not moved yet moved, no events. */
export async function replayLeagueFinalised(deps: Deps, entry: FinalisedRun): Promise<void> {
  const lb = deps.store.current.leaderboards.get(entry.b);
  const run = lb === undefined ? null : runOf(lb, entry.r);
  if (!lb?.league || run === null) return;
  await finaliseLeague(deps, { types: new Set(), live: null }, entry.t, lb as Leaderboard & { league: League }, run, Date.parse(entry.at));
}
