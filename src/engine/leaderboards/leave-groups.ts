/**
 * A user ranks in one breakdown group of a board: the group of their current attribute values. When
 * an identification (PUT/PATCH/POST /users) or an event's `user.attributes` changes an attribute a
 * live board breaks down by, the user leaves the old group's current run (the run of the user's
 * local day), one leaderboardLeave script per board on that group's slot (lua/leaderboardLeave-6.lua).
 *
 * The script that changes the attributes says what it changed, and from what: the api marks the
 * identification's breakdown attributes (markBreakdown), and the script compares them with the
 * stored values as it writes (lua/includes/writeUser.lua). Only an identification that sets such an
 * attribute pays for the comparison, and only one that changes it gets a longer reply.
 *
 * The departure carries the log entry id of the script that made the change: events before it read
 * the old group, events after it the new one, so a late placement of an earlier event in the old
 * group changes nothing (lua/leaderboardRank-8.lua).
 */
import { attributeField, attributeOfField } from '../../model/fields.js';
import { perObject } from '../../lib/memo.js';
import type { Context } from '../context.js';
import { breakdownGroup, breakdownKeys, groupName, runOf } from '../../domain/leaderboards/runs.js';
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import type { Leaderboard } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import * as leaderboardLeave from '../../redis/scripts/leaderboardLeave.js';
import { userShard } from '../../redis/board-shards.js';

/** The live boards with breakdown attributes, and the attribute keys they break down by, per configuration. */
interface BreakdownBoards {
  boards: Leaderboard[];
  keys: Set<string>;
}

const breakdownBoards = perObject((snapshot: Snapshot): BreakdownBoards => {
  const found: BreakdownBoards = { boards: [], keys: new Set() };
  for (const lb of snapshot.leaderboards.values()) {
    // As placements: a board that is inactive or that an admin finished ranks nothing more.
    if (lb.status === 'inactive' || lb.status === 'finished' || lb.breakdownAttributes.length === 0) continue;
    found.boards.push(lb);
    for (const key of breakdownKeys(lb, snapshot)) found.keys.add(key);
  }
  return found;
});

/**
 * An identification's user hash pairs as the scripts take them (lua/includes/writeUser.lua): when it
 * sets an attribute that a live board breaks down by, those pairs last, then the marker ('', their
 * count); otherwise `pairs` itself.
 */
export function markBreakdown(pairs: string[], snapshot: Snapshot): string[] {
  if (pairs.length === 0) return pairs;
  const { keys } = breakdownBoards(snapshot);
  if (keys.size === 0) return pairs;
  const rest: string[] = [];
  const marked: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const field = pairs[i];
    const key = attributeOfField(field);
    (key !== null && keys.has(key) ? marked : rest).push(field, pairs[i + 1]);
  }
  if (marked.length === 0) return pairs;
  return [...rest, ...marked, '', String(marked.length / 2)];
}

/**
 * The user leaves the groups their old values put them in, on every live board that breaks down by
 * an attribute that moved. `moved` is what the script answered ('["a:<key>","<old value>",...]', old
 * '' for none); `current` the user's attribute values now, when the caller has them (else read);
 * `tz` the user's zone, for the run (on the user's clock); `seq` the log entry id of the change. Returns how many boards
 * the user left a place on.
 */
export async function leaveGroups(
  deps: Pick<Context, 'redis' | 'keys' | 'store'>, tenant: string, userId: string, moved: string,
  current: Map<string, string> | null, tz: string, now: number, seq: string,
): Promise<number> {
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  const list = JSON.parse(moved) as string[];
  const old = new Map<string, string>();
  for (let i = 0; i < list.length; i += 2) old.set(list[i].slice(2), list[i + 1]);
  const boards = breakdownBoards(snapshot).boards.filter((lb) => breakdownKeys(lb, snapshot).some((k) => old.has(k)));
  if (boards.length === 0) return 0;
  let values = current;
  if (values === null) {
    const others = [...new Set(boards.flatMap((lb) => breakdownKeys(lb, snapshot)))].filter((k) => !old.has(k));
    const read = others.length === 0 ? [] : await redis.hmget(keys.forUser(tenant, userId).user, ...others.map(attributeField));
    values = new Map(others.map((k, i) => [k, read[i] ?? '']));
  }
  // The run of the user's day on their clock (src/domain/clock.ts).
  const day = userTime(tz, parseClock(await redis.hget(keys.forUser(tenant, userId).user, CLOCK_FIELD)), now).date;
  const left = await Promise.all(boards.map(async (lb) => {
    const run = runOf(lb, day);
    if (run === null) return 0;
    const group = breakdownGroup(lb, snapshot, (key) => old.get(key) ?? values.get(key));
    // Without a value for one of the board's attributes, the user was in none of its groups.
    if (group === null) return 0;
    const k = userShard(keys, tenant, lb, run.start, groupName(group), userId);
    return leaderboardLeave.run(redis, k, userId, seq, now);
  }));
  return left.filter((rank) => rank > 0).length;
}
