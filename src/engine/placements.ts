/**
 * Phase 2 of whatever changes a user's standing (ARCHITECTURE.md §3): the user's new value on
 * each leaderboard run it concerns, one `leaderboardRank` script per run (and breakdown group) on
 * the run's own hash slot, all sent together. Values are absolute (a metric total or run sum, a
 * points total, a streak length) or, for repeating points boards, the awards of the run by
 * number, so a repeated call changes nothing.
 *
 * Returns the boards whose standing changed, as `"<key>":{...}` JSON members of the response's
 * `leaderboards` (MetricEventLeaderboardResponse). `hold` (the event path's write coalescer) is
 * called before each command.
 */
import type { Context } from './context.js';
import { boardView, breakdownKeys, hasWindow, inWindow, metricBoards, orderOf, pointsBoards, runOf, streakBoards } from '../domain/leaderboards.js';
import { localMinute } from '../domain/time.js';
import { dayIndexOf } from '../domain/periods.js';
import type { EventAward } from '../domain/points.js';
import { expiresAt, stateFromHash, streakZone } from '../domain/streaks.js';
import type { Leaderboard } from '../model/entities.js';
import type { Snapshot } from '../model/snapshot.js';

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
}

/** `"<key>":{<the board's fields>` of a response entry, made once per configuration version and run end. */
const heads = new WeakMap<Snapshot, Map<string, string>>();
function boardHead(snapshot: Snapshot, lb: Leaderboard, runEnd: string | null): string {
  let map = heads.get(snapshot);
  if (map === undefined) {
    map = new Map();
    heads.set(snapshot, map);
  }
  const id = `${lb.id}|${runEnd}`;
  let head = map.get(id);
  if (head === undefined) {
    head = `${JSON.stringify(lb.key)}:${JSON.stringify(boardView(lb, snapshot, runEnd)).slice(0, -1)}`;
    map.set(id, head);
  }
  return head;
}

/**
 * The breakdown group of each board for a user whose attribute values are `attributes` (attribute
 * key -> value): the values in the board's attribute order, or null when one is missing (a user
 * without a value is in no group of that board).
 */
export function groupResolver(snapshot: Snapshot, attributes: Map<string, string>): (lb: Leaderboard) => string[] | null {
  return (lb) => {
    const group = breakdownKeys(lb, snapshot).map((k) => attributes.get(k) ?? '');
    return group.some((v) => v === '') ? null : group;
  };
}

/**
 * The entry gate: phase 2 skipped where it could change nothing. A full ranking's lowest value goes
 * down only when a member's value does or a member leaves, and leaderboardRank counts both in the
 * ranking's falls counter, answering the threshold and the counter read together. So while the
 * counter still reads what it read with a threshold, the threshold can only have risen since.
 * An event that raised the user's value to at most that threshold then cannot enter (a newcomer
 * must beat the lowest value), and it moves no member: the user's value before it was below the
 * lowest value, so the user was off the ranking. Its placement would answer nothing and write
 * nothing, so the event path skips it (src/routes/app/events.ts).
 *
 * The counter is read after the event's phase 1 ran (its value exists then, and a placement
 * would come later still): on one Redis it leaves last in the batch of writes that carried phase
 * 1, in the same round trip, one read for every event of the batch; on a Cluster, where the board may live on another node, once phase 1 has
 * answered, and then only where the value is at most the threshold (a second round trip instead
 * of the placement; a third, the placement, only when the counter moved).
 *
 * Only for boards without breakdown, whose ranking the event path knows before phase 1 (see
 * gateable). Per configuration version: a new maximum is a new ranking.
 */
export interface EntryCertificate {
  /** The lowest value of the full ranking. */
  threshold: number;
  /** The ranking's falls counter when the threshold was read. */
  falls: string;
}

const certificates = new WeakMap<Snapshot, Map<string, EntryCertificate>>();

/** What this process last learnt of a ranking's threshold, if it was full then. */
export function certificateOf(snapshot: Snapshot, ranking: string): EntryCertificate | undefined {
  return certificates.get(snapshot)?.get(ranking);
}

/**
 * Whether a placement on `lb` in `group` can be gated ([] without breakdown): metric boards, whose
 * value phase 1 answers (the total or the run's sum), and perpetual points boards, which rank the
 * system's total the awards carry. Not repeating points boards, nor those with a daily window
 * (their sum is worked out in phase 2), nor streak boards (a streak falls to nothing when lost).
 */
export function gateable(lb: Leaderboard, group: string[]): boolean {
  return group.length === 0 && (lb.rankBy === 'metric' || (lb.rankBy === 'points' && lb.runUnit === null && !hasWindow(lb)));
}

/**
 * A certificate, the ranking's falls counter key, and the counter as read after the event's phase 1
 * ran (null: not read yet; undefined once read: the read failed). `read` is true once the read has
 * answered, with the counter in `value`.
 */
export interface Gate {
  certificate: EntryCertificate;
  key: string;
  falls: Promise<string | null | undefined> | null;
  read: boolean;
  value: string | null | undefined;
}

/** A gate for a ranking this process knows full, its counter not read yet. */
export function gateFor(certificate: EntryCertificate, key: string): Gate {
  return { certificate, key, falls: null, read: false, value: undefined };
}

/**
 * gatePasses without waiting: the answer when the value alone decides or the counter's read has
 * answered, else null.
 */
export function gatePassesNow(gate: Gate, value: number): boolean | null {
  if (value > gate.certificate.threshold) return false;
  if (!gate.read) return null;
  return gate.value !== undefined && (gate.value ?? '0') === gate.certificate.falls;
}

/**
 * Whether a placement that raised the user's value to `value` can be skipped: at most the
 * threshold, and the counter still reads what it read with it. `read` reads the counter when it
 * was not read with phase 1 (on a Cluster): phase 1 has answered, so the read comes after it.
 */
export async function gatePasses(gate: Gate, value: number, read: (gate: Gate) => Promise<string | null | undefined>): Promise<boolean> {
  const now = gatePassesNow(gate, value);
  if (now !== null) return now;
  const falls = await (gate.falls ??= read(gate));
  return falls !== undefined && (falls ?? '0') === gate.certificate.falls;
}

function learn(snapshot: Snapshot, ranking: string, threshold: string, falls: string): void {
  let map = certificates.get(snapshot);
  if (map === undefined) {
    map = new Map();
    certificates.set(snapshot, map);
  }
  // '' when the ranking is not full: anyone enters.
  if (falls === '') map.delete(ranking);
  else {
    if (map.size >= 10_000) map.clear();
    map.set(ranking, { threshold: Number(threshold), falls });
  }
}

/** Group index entries this process has written (`<index key>|<group>`): each run's group is written once. */
const indexed = new Set<string>();

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
 */
export async function place(
  deps: Pick<Context, 'redis' | 'keys' | 'store'>, tenant: string, userId: string, placements: Placement[], now: number,
  hold?: () => void, seq = '',
): Promise<string[]> {
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  const order = orderOf(now);
  const done = await Promise.all(placements.map(async ({ lb, run, group, value, awards, expiry }) => {
    const k = keys.leaderboard(tenant, lb.id, run.start, group.join('\u0000'));
    // On the event path the commands join the turn's coalesced writes (src/redis/coalesce.ts).
    hold?.();
    const grouped = group.length > 0;
    const placed = redis.leaderboardRank(
      k.ranking, k.members, k.history(userId), k.awards(userId), k.expiry, k.falls, k.sequences,
      // A sum of awards comes out the same in any order: only absolute values carry the event's place
      // (and, in a breakdown group, sums too: the group's ranking refuses an event from before the
      // user left it, src/engine/departures.ts). A group's ranking has its maximum negated.
      userId, value, order, grouped ? -lb.maxParticipants : lb.maxParticipants, now, expiry ?? '',
      awards === undefined || grouped ? seq : '', ...(awards ?? []),
    );
    // The workers finalise every group of a run: they find them here. Sent with the placement, not
    // after it (once placed, the group's ranking holds someone, whether or not this user entered),
    // and once per group and run from this process.
    const groupsKey = group.length === 0 ? '' : keys.leaderboardIndex(tenant, lb.id).groups(run.start);
    const index = `${groupsKey}|${group.join('\u0000')}`;
    if (groupsKey !== '' && !indexed.has(index)) {
      hold?.();
      await Promise.all([placed, redis.sadd(groupsKey, group.join('\u0000'))]);
      if (indexed.size >= 100_000) indexed.clear();
      indexed.add(index);
    }
    const [rank, previousRank, threshold, falls] = await placed;
    if (gateable(lb, group)) learn(snapshot, k.ranking, threshold, falls);
    if (rank === 0 && previousRank === 0) return null;
    return `${boardHead(snapshot, lb, run.end)},"rank":${rank || null},"previousRank":${previousRank || null},` +
      `"threshold":${Number(threshold)},"breakdownAttributeValue":${group.length === 0 ? 'null' : JSON.stringify(group.join(','))}}`;
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
 * points): the user's standing on the points boards of the awarded systems. Reads the user's
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
  // The zone, for boards with a daily window; then the breakdown attributes.
  const windowed = boards.some(hasWindow);
  const values = keys.length === 0 && !windowed ? []
    : await deps.redis.hmget(deps.keys.forUser(tenant, userId).user, 'tz', ...keys.map((k) => 'a:' + k));
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

/** An event as the log keeps it (src/domain/log.ts), with what the event script added. */
export interface LoggedEvent {
  t: string;
  u: string;
  m: string;
  d: string;
  ts: number;
  /** Points awards. */
  pa?: EventAward[];
  /** The streak as stored after an extension. */
  sx?: string;
  /** The user's pauses (`s:pz`) with an extension, when there are any. */
  sp?: string;
}

/**
 * Phase 2 again, for an event whose api process died before it could run it: the user's current
 * standing on the boards the event concerns, from the user's state now (absolute values, so
 * placing them again where phase 2 did run changes nothing). `seq`, the event's log entry id,
 * orders the placement among the user's others (lua/leaderboardRank-7.lua): the state now is at
 * least as new as the event, and a placement of an earlier event that arrives later changes
 * nothing.
 */
export async function replayEvent(deps: Pick<Context, 'redis' | 'keys' | 'store'>, e: LoggedEvent, seq = ''): Promise<void> {
  const { redis, keys, store } = deps;
  const snapshot = store.current;
  const metricBoardsOfEvent = metricBoards(snapshot, e.m);
  const points = e.pa !== undefined ? pointsBoards(snapshot) : [];
  const streaks = typeof e.sx === 'string' ? streakBoards(snapshot) : [];
  if (metricBoardsOfEvent.length === 0 && points.length === 0 && streaks.length === 0) return;
  const u = keys.forUser(e.t, e.u);
  const attributeKeys = [...new Set([...metricBoardsOfEvent, ...points, ...streaks].flatMap((lb) => breakdownKeys(lb, snapshot)))];
  const h = await redis.hmget(u.user, 'm:' + e.m, 'tz', ...attributeKeys.map((k) => 'a:' + k));
  const groupOf = groupResolver(snapshot, new Map(attributeKeys.map((k, i) => [k, h[2 + i] ?? ''])));
  const placements: Placement[] = [];
  for (const lb of metricBoardsOfEvent) {
    const run = runOf(lb, e.d);
    const group = groupOf(lb);
    if (run === null || group === null) continue;
    // A daily window is judged in the user's zone as stored now (the event's, unless it moved).
    const windowed = hasWindow(lb);
    if (windowed && !inWindow(lb, localMinute(h[1] ?? '', e.ts))) continue;
    const value = lb.runUnit === null && !windowed ? h[0] : await redis.hget(keys.userMetric(u, e.m), `r:${lb.id}:${run.start}`);
    if (value !== null) placements.push({ lb, run, group, value });
  }
  if (e.pa !== undefined) {
    const awards = e.pa.map(([system, , awarded, total, n]) => ({ system, awarded, total, n, day: e.d, ms: e.ts }));
    placements.push(...pointsPlacements(deps, awards, groupOf, h[1] ?? ''));
  }
  const rule = snapshot.streak;
  if (typeof e.sx === 'string' && rule !== null) {
    const state = stateFromHash(e.sp ? { s: e.sx, 's:pz': e.sp } : { s: e.sx }, rule, dayIndexOf(e.d), 0);
    if (state.last !== null) {
      const expiry = expiresAt(rule, state, state.last, streakZone(e.sx)) ?? e.ts;
      placements.push(...streakPlacements(deps, state.length, expiry, e.d, groupOf));
    }
  }
  if (placements.length > 0) await place(deps, e.t, e.u, placements, e.ts, undefined, seq);
}
