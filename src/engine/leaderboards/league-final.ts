/**
 * A league's run made final (docs/api.md, "Leagues"), a step of the run's finalisation
 * (src/engine/leaderboards/finalise.ts) made before the run is marked final. In every cohort of
 * every tier (16 cohorts at a time: each cohort's steps touch its own slot and its users' only):
 * 1. the outcome is decided once, on the cohort's own slot (lua/leagueFinalise-2.lua): the first
 *    `promote` of its ranking move up, the last `demote` down (fewer in a cohort below the league's
 *    size: src/domain/leaderboards/league.ts zoneSizes), the others stay, ranked as the board ranks; recorded in the cohort's outcome hash, which a second decision only reads; then
 *    logged (an `outcome` entry on the board's partition's log, before the run's `finalised` entry,
 *    once: the hash notes it), so a restore's replay finds the decision made rather than deciding
 *    again from a ranking an erasure has changed since;
 * 2. each of its users is moved, in their own slot (lua/leagueMove-1.lua): the tier they carry
 *    into the next run they join, once per run; a user placed in a later run already, in a cohort
 *    of their old tier, then goes to the open cohort of their new tier there, with what they hold
 *    (src/engine/leaderboards/league-relocate.ts), once every cohort is decided, in the order of
 *    the cohorts they leave;
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
import { cohortCount, dotted, dottedOf, markOutcomeLogged, readLeaguePlace, writeOutcome, type Outcome } from '../../redis/leagues.js';
import * as logAppend from '../../redis/scripts/logAppend.js';
import * as leagueFinalise from '../../redis/scripts/leagueFinalise.js';
import * as leagueMove from '../../redis/scripts/leagueMove.js';
import { runOf } from '../../domain/leaderboards/runs.js';
import { outcomeEntry, type CohortDecision, type FinalisedRun } from '../../model/log.js';
import type { Context } from '../context.js';
import { announce, type ClockWanted } from '../webhooks/record.js';
import { isEarlyJoiner, relocateEarlyJoiners } from './league-relocate.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'settings' | 'clock' | 'postgres'>;

/** The league's webhook event types. */
export const LEAGUE_TYPES: readonly WebhookType[] = ['league.promoted', 'league.demoted', 'league.stayed'];

const MOVES: Record<Outcome, number> = { promoted: 1, demoted: -1, stayed: 0 };

/** What a league's finalisation did: cohorts decided by this pass, users moved by it. */
export interface LeagueFinalised {
  cohorts: number;
  moved: number;
}

/**
 * Cohorts decided, their users moved and their events recorded at once: a league of a million
 * users in cohorts of 30 has over 33,000 cohorts, each a few round trips, which one after the other
 * took minutes.
 */
const COHORTS_AT_ONCE = 16;

/** Decides every cohort of the league's run, moves their users, and records their events; `at`: when the run became final. */
export async function finaliseLeague(
  deps: Deps, wanted: ClockWanted, tenant: string, lb: Leaderboard & { league: League }, run: { start: string; end: string | null }, at: number,
): Promise<LeagueFinalised> {
  const { redis, keys } = deps;
  const { league } = lb;
  const highest = league.tiers.length - 1;
  const notify = LEAGUE_TYPES.some((t) => wanted.types.has(t));
  const result: LeagueFinalised = { cohorts: 0, moved: 0 };
  const counts = await Promise.all(league.tiers.map((_, tier) => cohortCount(redis, keys.leagueTier(tenant, lb.id, run.start, tier))));
  const cohorts = counts.flatMap((count, tier) => Array.from({ length: count }, (_, n) => ({ tier, n })));
  // The early joiners each cohort's outcome moved to another tier, by cohort.
  const early: string[][] = cohorts.map(() => []);
  const finaliseCohort = async (i: number) => {
    const { tier, n } = cohorts[i];
    const t = league.tiers[tier];
    const cohort = keys.leagueCohort(tenant, lb.id, run.start, tier, n);
    const decided = await leagueFinalise.run(redis, cohort, tier < highest ? t.promote : 0, tier > 0 ? t.demote : 0, league.cohortSize);
    if (decided.now) result.cohorts++;
    if (!decided.logged) {
      const entry = outcomeEntry({ t: tenant, ts: deps.clock.now(), b: lb.id, r: run.start, c: dotted(tier, n), k: decided.counts, o: leagueFinalise.outcomeTexts(decided.users) });
      await logAppend.run(redis, keys.partitionLog(keys.partitionOf(tenant, lb.id)), 'outcome', entry);
      await markOutcomeLogged(redis, cohort.outcome);
    }
    const moved = await Promise.all(decided.users.map(async (u) => {
      const { moved: m, later } = await leagueMove.move(redis, keys.forUser(tenant, u.userId).user, lb.id, run.start, MOVES[u.outcome], highest);
      // Whether moved now or by a pass before (killed before it was done): relocated below, which
      // done again changes nothing. Only a place of a later run can be an early joiner's.
      const relocate = MOVES[u.outcome] !== 0 && later && (m === 'applied' || m === 'before')
        && isEarlyJoiner(league, await readLeaguePlace(redis, keys.forUser(tenant, u.userId).user, lb.id), run.start);
      return { m, relocate };
    }));
    result.moved += moved.filter(({ m }) => m === 'applied').length;
    // In the cohort's ranking order, whichever answered first.
    early[i] = decided.users.filter((_, j) => moved[j].relocate).map((u) => u.userId);
    if (!notify) return;
    const snapshot = deps.store.current;
    const hashes = await Promise.all(decided.users.map((u) => redis.hgetall(keys.forUser(tenant, u.userId).user)));
    const events: WebhookEvent[] = [];
    decided.users.forEach((u, j) => {
      const h = hashes[j];
      // An erased user hears nothing.
      if (h.id === undefined || !wanted.types.has(leagueEventType(u.outcome))) return;
      events.push(leagueEvent(deps.settings.prefix, tenant, lb, run, userView(h, isControl(snapshot.notifications, tenant, h)), {
        outcome: u.outcome, tier, cohort: n, rank: u.rank, value: u.value, participants: decided.users.length,
      }, at));
    });
    if (events.length > 0) await announce(deps, await deps.postgres(), events, wanted.live);
  };
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(COHORTS_AT_ONCE, cohorts.length) }, async () => {
    while (next < cohorts.length) await finaliseCohort(next++);
  }));
  // The early joiners join their new tier's open cohorts in the order of the cohorts they leave
  // (tiers lowest first), each cohort's together in its ranking's order, as a pass over the
  // cohorts one by one would: a restore's replay of the run seats them alike.
  for (const users of early) {
    if (users.length > 0) await relocateEarlyJoiners(deps, tenant, lb, run.start, users);
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

/** A restore's replay of a cohort's decision: written unless the cohort holds one (a snapshot's). */
export async function replayCohortDecision(deps: Pick<Context, 'redis' | 'keys'>, d: CohortDecision): Promise<void> {
  const cohort = dottedOf(d.c);
  if (cohort === null) throw new Error(`an outcome entry names no cohort: ${String(d.c)}`);
  await writeOutcome(deps.redis, deps.keys.leagueCohort(d.t, d.b, d.r, cohort[0], cohort[1]).outcome, d.k, d.o);
}
