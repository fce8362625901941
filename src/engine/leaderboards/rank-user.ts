/**
 * Phase 2 of whatever changes a user's standing (docs/architecture.md, "The event hot path"): the user's new value on
 * each leaderboard run it concerns, one `leaderboardRank` script per run (and breakdown group) on
 * the run's own hash slot, all sent together. Values are absolute (a metric total or run sum, a
 * points total, a streak length) or, for repeating points boards, the awards of the run by
 * number, so a repeated call changes nothing.
 *
 * On a league's board the user is placed in their cohort as well (league-place.ts), and the
 * board's entry adds `league`: the tier, the cohort and the user's rank there.
 *
 * Returns the boards whose standing changed, as `"<key>":{...}` JSON members of the response's
 * `leaderboards` (MetricEventLeaderboardResponse). `hold` (the event path's write coalescer) is
 * called before each command.
 */
import { attributeField, EXCLUSION_FIELD } from '../../model/fields.js';
import { BoundedMap, perObject } from '../../lib/memo.js';
import type { Context } from '../context.js';
import { boardView, breakdownGroup, breakdownKeys, groupName, hasWindow, inWindow, leaderboardStatus, orderOf, pointsBoards, runOf, streakBoards } from '../../domain/leaderboards/runs.js';
import { capOf } from '../../domain/leaderboards/cap.js';
import { localMinute } from '../../domain/time.js';
import type { Leaderboard } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { gateable, learn } from './skip-below-threshold.js';
import * as leaderboardRank from '../../redis/scripts/leaderboardRank.js';
import { cohortId } from '../../domain/leaderboards/league.js';
import { placeInLeague, type CohortPlacement } from './league-place.js';
import { shardsOf } from '../../domain/leaderboards/shards.js';
import { placeOfRunUser, restateLatestChange } from '../../redis/sharded-rankings.js';
import { runShards, userShard } from '../../redis/board-shards.js';

/** One ranking to update: a board run (and group) and the user's value or awards there. */
export interface Placement {
  lb: Leaderboard;
  run: { start: string; end: string | null };
  /** The breakdown group's values, in the board's attribute order ([] without). */
  group: string[];
  value: string;
  /** Repeating points boards: award number / awarded pairs of the run. */
  awards?: string[];
  /** Streak boards: when the streak is lost if nothing happens (ms); the board drops it then. */
  expiry?: number;
  /**
   * Moves a member only: a user the ranking does not hold when the placement lands is not placed
   * (a void's move in a breakdown group it read the user in, src/engine/fairplay/void.ts).
   */
  membersOnly?: boolean;
  /**
   * A league's board: the user's place as the event's script read it (the user hash's field, null
   * when absent); undefined: read by the placement (src/engine/leaderboards/league-place.ts).
   */
  leaguePlace?: string | null;
  /**
   * The event left the value as it was (nothing of it counted: a value of 0, or one the metric's
   * limit ignored whole): the answer lists the board only when the user entered it.
   */
  still?: boolean;
}

/**
 * `"<key>":{<the board's fields>` of a response entry, made once per configuration version, run
 * and status (a board turns from scheduled to active, and to finished, as the clock moves).
 */
const heads = perObject((_: Snapshot) => new Map<string, string>());
function boardHead(snapshot: Snapshot, lb: Leaderboard, run: { start: string; end: string | null }, now: number): string {
  const map = heads(snapshot);
  const status = leaderboardStatus(lb, now);
  const id = `${lb.id}|${run.start}|${status}`;
  let head = map.get(id);
  if (head === undefined) {
    head = `${JSON.stringify(lb.key)}:${JSON.stringify(boardView(lb, snapshot, status, run)).slice(0, -1)}`;
    map.set(id, head);
  }
  return head;
}

/**
 * A board whose run of an event's date was final when the event arrived (an event sent with
 * `occurredAt`, src/engine/event/phase2.ts): the event changed nothing there, `late: true`.
 */
export function lateEntry(snapshot: Snapshot, lb: Leaderboard, run: { start: string; end: string | null }, now: number): string {
  return `${boardHead(snapshot, lb, run, now)},"rank":null,"previousRank":null,"threshold":0,"late":true}`;
}

/**
 * A breakdown group's values as the response gives them: `breakdownAttributeValue` (deprecated,
 * comma-joined) and `breakdownAttributeValues` (`[{ key, value }]`); nothing for a board without.
 */
function groupFields(snapshot: Snapshot, lb: Leaderboard, group: string[]): string {
  if (group.length === 0) return '';
  const keys = breakdownKeys(lb, snapshot);
  return `,"breakdownAttributeValue":${JSON.stringify(group.join(','))},` +
    `"breakdownAttributeValues":${JSON.stringify(group.map((value, i) => ({ key: keys[i], value })))}`;
}

/** A league's board: the user's cohort and rank there (`league`, laurel's); nothing for another board. */
function leagueFields(lb: Leaderboard, cohort: CohortPlacement | null): string {
  if (!lb.league || cohort === null) return '';
  const { place, rank, previousRank } = cohort;
  return `,"league":${JSON.stringify({
    tier: lb.league.tiers[place.tier].key, cohort: cohortId(lb.league, place.tier, place.cohort), rank: rank || null, previousRank: previousRank || null,
  })}`;
}

/**
 * The breakdown group of each board for a user whose attribute values are `attributes` (attribute
 * key -> value): the values in the board's attribute order, or null when one is missing (a user
 * without a value is in no group of that board).
 */
export function groupResolver(snapshot: Snapshot, attributes: Map<string, string>): (lb: Leaderboard) => string[] | null {
  return (lb) => breakdownGroup(lb, snapshot, (key) => attributes.get(key));
}

/** Group index entries this process has written (`<index key>|<group>`): each run's group is written once. */
const indexed = new BoundedMap<string, true>(100_000);

/** An award as phase 2 needs it: its system, amount, total after, number and local day. */
interface PlacedAward {
  system: string;
  awarded: number;
  total: number;
  n: number;
  day: string;
  /** When it was awarded (ms): a board's daily window takes its minute in the user's zone. */
  ms: number;
}

/**
 * Places the user on each run (and group) of `placements`, one leaderboardRank per run. `seq` is the
 * event's log entry id when the values are the event's own (the event path): a board keeps the
 * value of the user's latest event, whatever order the placements of concurrent events arrive in.
 * `timed`: the event was sent with `occurredAt` (late, or imported): its value ties as of `now`,
 * when it happened, not as of its arrival.
 */
export async function place(
  deps: Pick<Context, 'redis' | 'keys' | 'store'>, tenant: string, userId: string, placements: Placement[], now: number,
  hold?: () => void, seq = '', timed = false,
): Promise<string[]> {
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  const order = timed ? orderOf(now) : orderOf(now, seq);
  const done = await Promise.all(placements.map(async ({ lb, run, group, value, awards, expiry, membersOnly, leaguePlace, still }) => {
    const name = groupName(group);
    // A board of several shards places the user in theirs (src/domain/leaderboards/shards.ts),
    // and answers their rank on the whole run, read before and after (each shard's count above).
    const k = userShard(keys, tenant, lb, run.start, name, userId);
    const shards = shardsOf(lb) > 1 ? runShards(keys, tenant, lb, run.start, name) : null;
    const before = shards === null ? null : await placeOfRunUser(redis, shards, userId);
    // On the event path the commands join the turn's coalesced writes (src/redis/coalesce.ts).
    hold?.();
    const placed = leaderboardRank.run(
      redis, k,
      // A sum of awards comes out the same in any order: only absolute values carry the event's
      // place. Sums carry it too, for one check: a ranking refuses an event from before the user
      // left it (a breakdown group, src/engine/leaderboards/leave-groups.ts; every ranking, on an
      // exclusion, src/engine/fairplay/exclude.ts). An uncapped board's maximum is NO_CAP
      // (src/domain/leaderboards/cap.ts).
      userId, value, order, capOf(lb), now, expiry ?? '', membersOnly === true ? `=${seq}` : seq, awards,
    );
    // The workers finalise every group of a run: they find them here. Sent with the placement, not
    // after it (once placed, the group's ranking holds someone, whether or not this user entered),
    // and once per group and run from this process.
    const groupsKey = group.length === 0 ? '' : keys.leaderboardIndex(tenant, lb.id).groups(run.start);
    const index = `${groupsKey}|${name}`;
    if (groupsKey !== '' && !indexed.has(index)) {
      hold?.();
      await Promise.all([placed, redis.sadd(groupsKey, name)]);
      indexed.set(index, true);
    }
    // A league's board places the user in their cohort too (src/engine/leaderboards/league-place.ts).
    const cohort = lb.league ? (await Promise.all([placed, placeInLeague(deps, tenant, userId, lb, run.start, { value, awards, order, seq }, now, hold, leaguePlace)]))[1] : null;
    const [placedRank, placedPrevious, threshold, falls] = await placed;
    let rank = placedRank;
    let previousRank = placedPrevious;
    if (shards !== null && (rank !== 0 || previousRank !== 0)) {
      previousRank = before?.rank ?? 0;
      rank = (await placeOfRunUser(redis, shards, userId))?.rank ?? 0;
      await restateLatestChange(redis, k.history(userId), now, [placedPrevious, placedRank], [previousRank, rank]);
    }
    if (gateable(lb, group)) learn(snapshot, k.ranking, threshold, falls);
    if (rank === 0 && previousRank === 0) return null;
    // Listed only when the event changed something there: a value that did not move, of a user
    // already ranked, changed nothing.
    if (still === true && previousRank !== 0) return null;
    return `${boardHead(snapshot, lb, run, now)},"rank":${rank || null},"previousRank":${previousRank || null},` +
      `"threshold":${Number(threshold)}${groupFields(snapshot, lb, group)}${leagueFields(lb, cohort)}}`;
  }));
  return done.filter((x): x is string => x !== null);
}

/**
 * The placements of points awards: for each points board of an awarded system, in the run of each
 * award's local day, the system's total (perpetual) or the run's awards (repeating, or with a
 * daily window: then only the awards made inside it, by their minute in `tz`, the user's zone).
 * `groups` gives a board's breakdown group for the user (null: in none).
 */
export function pointsPlacements(
  deps: Pick<Context, 'store'>, awards: PlacedAward[], groupOf: (lb: Leaderboard) => string[] | null, tz: string,
): Placement[] {
  const out: Placement[] = [];
  const snapshot = deps.store.current;
  for (const lb of pointsBoards(snapshot)) {
    const windowed = hasWindow(lb);
    const mine = awards.filter((a) => a.system === lb.pointsSystemId && (!windowed || inWindow(lb, localMinute(tz, a.ms))));
    if (mine.length === 0) continue;
    const group = groupOf(lb);
    if (group === null) continue;
    const runs = new Map<string, Placement>();
    for (const a of mine) {
      const run = runOf(lb, a.day);
      if (run === null) continue;
      let p = runs.get(run.start);
      if (p === undefined) {
        p = { lb, run, group, value: '0', awards: lb.runUnit === null && !windowed ? undefined : [] };
        runs.set(run.start, p);
      }
      if (p.awards) p.awards.push(String(a.n), String(a.awarded));
      else p.value = String(a.total);
    }
    out.push(...runs.values());
  }
  return out;
}

/** The placements of a streak's new length on the streak boards (perpetual) running on `day`. */
export function streakPlacements(
  deps: Pick<Context, 'store'>, length: number, expiry: number, day: string, groupOf: (lb: Leaderboard) => string[] | null,
): Placement[] {
  const out: Placement[] = [];
  for (const lb of streakBoards(deps.store.current)) {
    const run = runOf(lb, day);
    const group = groupOf(lb);
    if (run === null || group === null) continue;
    out.push({ lb, run, group, value: String(length), expiry });
  }
  return out;
}

/**
 * Phase 2 for awards made outside an event (an API completion, time awards, a user created with
 * points): the user's standing on the points boards of the awarded systems (the script that
 * awarded wrote the tenant's points totals). Reads the user's
 * breakdown attributes when a board needs them. `seq`: the log entry id of the script that
 * awarded them (place).
 */
export async function rankAwards(
  deps: Pick<Context, 'redis' | 'keys' | 'store'>, tenant: string, userId: string, awards: PlacedAward[], now: number, seq = '',
): Promise<void> {
  const snapshot = deps.store.current;
  const boards = pointsBoards(snapshot).filter((lb) => awards.some((a) => a.system === lb.pointsSystemId));
  if (boards.length === 0) return;
  const keys = [...new Set(boards.flatMap((lb) => breakdownKeys(lb, snapshot)))];
  // The zone, for boards with a daily window; then the breakdown attributes; and whether the user
  // is excluded from the rankings (src/engine/fairplay/exclude.ts): read after the script that
  // awarded, so an exclusion made before it is seen, and one made after it orders this placement
  // before its departure by `seq`.
  const [x, ...values] = await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, EXCLUSION_FIELD, 'tz', ...keys.map(attributeField));
  if (x !== null) return;
  const groupOf = groupResolver(snapshot, new Map(keys.map((k, i) => [k, values[1 + i] ?? ''])));
  await place(deps, tenant, userId, pointsPlacements(deps, awards, groupOf, values[0] ?? ''), now, undefined, seq);
}

/** Awards as the scripts other than the event's answer them ([system, trigger, awarded, total, n, ms, day field, boosts]). */
export function placedAwards(raw: unknown): PlacedAward[] {
  if (!Array.isArray(raw)) return [];
  return (raw as unknown[][]).map((x) => ({
    system: String(x[0]), awarded: Number(x[2]), total: Number(x[3]), n: Number(x[4]), day: String(x[6]).slice(2), ms: Number(x[5]),
  }));
}

