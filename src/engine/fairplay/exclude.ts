/**
 * Excluding a user from the rankings (`PUT`/`DELETE /admin/v1/users/{id}/exclusion`; docs/api.md,
 * "Fair play: excluding a user"). One script on the user's partition (lua/setExclusion-2.lua) sets
 * the user hash's `x` and appends an `excluded` entry to the log, which the webhooks and live
 * updates read (`user.excluded`) and a restore replays. Every event script reads `x` with the
 * user's other fields: an excluded user's event counts toward their own totals, streak,
 * achievements and points, is marked in the log (`ex`), and is placed on no ranking (no phase 2;
 * the log drainer and a restore skip it too).
 *
 * Then the user leaves every ranking of the tenant whose run is not finalised (each run, breakdown
 * group and league cohort: lua/leaderboardLeave-6.lua, the rankings found as an erasure finds them,
 * src/engine/leaderboards/tenant-rankings.ts; and the streak rankings: lua/streakLeave-4.lua). Each
 * departure keeps the `excluded` entry's id: an event that ran before the exclusion and whose
 * placement arrives after the departure changes nothing (lua/leaderboardRank-8.lua,
 * lua/streakRank-4.lua), so an event racing the exclusion is placed before it and taken off, or
 * not placed at all. A capped board's freed place goes to the next user placed there. Finalised
 * runs keep their rankings and winners.
 *
 * Ending the exclusion (an `included` entry) places nobody: the user re-enters each ranking with
 * their next event that ranks there, at their values then (a metric board's total or run sum; a
 * board that sums a run's points awards counts the awards placed there, not those made while
 * excluded). Excluding an excluded user changes nothing but takes them off again (a removal a
 * process left half done is finished).
 */
import { breakdownKeys, groupName, runOf } from '../../domain/leaderboards/runs.js';
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import { attributeField, EXCLUSION_FIELD } from '../../model/fields.js';
import { operationEntry } from '../../model/log.js';
import type { ExclusionView } from '../../model/views.js';
import { isFinalised } from '../../redis/board-state.js';
import type { LeaderboardKeys } from '../../redis/keys.js';
import { leagueField, leaguePlaceOf } from '../../redis/leagues.js';
import * as leaderboardLeave from '../../redis/scripts/leaderboardLeave.js';
import * as setExclusion from '../../redis/scripts/setExclusion.js';
import { heldExclusion, type HeldExclusion } from '../../redis/scripts/setExclusion.js';
import * as streakLeave from '../../redis/scripts/streakLeave.js';
import type { Context } from '../context.js';
import { groupResolver } from '../leaderboards/rank-user.js';
import { tenantRankings } from '../leaderboards/tenant-rankings.js';
import { userShard } from '../../redis/board-shards.js';

type Deps = Pick<Context, 'redis' | 'keys' | 'store' | 'clock'>;

export function exclusionView(userId: string, held: HeldExclusion | null): ExclusionView {
  return held === null
    ? { userId, excluded: false, reason: null, excludedAt: null }
    : { userId, excluded: true, reason: held.reason, excludedAt: new Date(held.at).toISOString() };
}

/**
 * Takes the user off every ranking of the tenant whose run is not finalised, each departure
 * ordered by `seq` (the `excluded` entry's id); answers how many rankings held them.
 */
export async function leaveRankings(deps: Deps, tenant: string, userId: string, seq: string, now: number): Promise<number> {
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  const finalised = new Map<string, Promise<boolean>>();
  const isFinal = (boardId: string, run: string): Promise<boolean> => {
    const id = `${boardId}|${run}`;
    let known = finalised.get(id);
    if (known === undefined) finalised.set(id, (known = isFinalised(redis, keys.leaderboardIndex(tenant, boardId).state, run)));
    return known;
  };
  const seen = new Set<string>();
  let left = 0;
  const leave = async (k: LeaderboardKeys, boardId: string, run: string): Promise<void> => {
    if (seen.has(k.members)) return;
    seen.add(k.members);
    if (await isFinal(boardId, run)) return;
    if (await leaderboardLeave.run(redis, k, userId, seq, now) > 0) left++;
  };
  for await (const r of tenantRankings(deps, tenant)) await leave(r.keys, r.boardId, r.run);
  // The rankings of the user's runs today that nobody was placed on yet: the departure is kept
  // there too, so a placement of an event from before the exclusion cannot open them.
  const boards = [...snapshot.leaderboards.values()].filter((lb) => lb.status !== 'inactive' && lb.status !== 'finished');
  if (boards.length > 0) {
    const attributeKeys = [...new Set(boards.flatMap((lb) => breakdownKeys(lb, snapshot)))];
    const leagues = boards.filter((lb) => lb.league);
    const h = await redis.hmget(
      keys.forUser(tenant, userId).user, 'tz', ...attributeKeys.map(attributeField), ...leagues.map((lb) => leagueField(lb.id)), CLOCK_FIELD,
    );
    const groupOf = groupResolver(snapshot, new Map(attributeKeys.map((key, i) => [key, h[1 + i] ?? ''])));
    const day = userTime(h[0] ?? '', parseClock(h[h.length - 1]), now).date;
    for (const lb of boards) {
      const run = runOf(lb, day);
      const group = groupOf(lb);
      if (run === null || group === null) continue;
      await leave(userShard(keys, tenant, lb, run.start, groupName(group), userId), lb.id, run.start);
      const place = lb.league ? leaguePlaceOf(h[1 + attributeKeys.length + leagues.indexOf(lb)]) : null;
      if (place !== null && place.run === run.start) await leave(keys.leagueCohort(tenant, lb.id, run.start, place.tier, place.cohort), lb.id, run.start);
    }
  }
  if (await streakLeave.run(redis, keys.streakRankings(tenant), userId, seq) > 0) left++;
  return left;
}

/**
 * Excludes a user: the exclusion as it stands, `started` false when the user was excluded already
 * (then only taken off the rankings again); null for an unknown user. `seq`: the `excluded`
 * entry's original id, when a restore replays it.
 */
export async function excludeUser(
  deps: Deps, tenant: string, userId: string, reason: string, seq = '',
): Promise<{ started: boolean; view: ExclusionView } | null> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  const set = await setExclusion.run(redis, keys.forUser(tenant, userId), operationEntry(tenant, userId, now, { why: reason }), { at: now, reason }, seq);
  if (set === null || set.held === null) return null;
  await leaveRankings(deps, tenant, userId, set.held.seq, now);
  return { started: set.entryId !== null, view: exclusionView(userId, set.held) };
}

/** Ends a user's exclusion: when (ISO-8601), or what kept it from ending (nothing changed then). */
export async function includeUser(deps: Deps, tenant: string, userId: string): Promise<string | 'not_excluded' | 'unknown_user'> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  const set = await setExclusion.run(redis, keys.forUser(tenant, userId), operationEntry(tenant, userId, now, {}), null);
  if (set === null) return 'unknown_user';
  if (set.entryId === null) return 'not_excluded';
  return new Date(now).toISOString();
}

/** A user's exclusion, or null for an unknown user. */
export async function readExclusion(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string): Promise<ExclusionView | null> {
  const [id, x] = await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, 'id', EXCLUSION_FIELD);
  return id === null ? null : exclusionView(userId, heldExclusion(x));
}

/** Whether the user is excluded now (a placement outside the event path checks it after its own script). */
export async function isExcluded(deps: Pick<Context, 'redis' | 'keys'>, tenant: string, userId: string): Promise<boolean> {
  return (await deps.redis.hexists(deps.keys.forUser(tenant, userId).user, EXCLUSION_FIELD)) === 1;
}
