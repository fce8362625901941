/**
 * What an admin does to users' streaks (POST /admin/v1/streaks/freezes, /restore, /reset, /pauses): the
 * scripts, then the rankings and streak boards brought in line with when the streak is lost now.
 */
import { breakdownGroup, groupName } from '../../domain/leaderboards/runs.js';
import { currentPeriod, dateOfDay, dayIndexOf, periodOfDay, RESTORE_WINDOW_DAYS } from '../../domain/periods.js';
import { CLOCK_FIELD, parseClock, userTime, userTimeOf } from '../../domain/clock.js';
import { uuidv7 } from '../../domain/ids.js';
import { streakDisabled } from '../../domain/streaks/preferences.js';
import { expiresAt, FREQUENCY_LETTER, stateFromHash, streakView } from '../../domain/streaks/state.js';
import type { Leaderboard, StreakSettings } from '../../model/entities.js';
import { attributeField, EXCLUSION_FIELD } from '../../model/fields.js';
import { operationEntry } from '../../model/log.js';
import type { Deps } from '../deps.js';
import { place, streakPlacements } from '../leaderboards/rank-user.js';
import { rankStreak } from './rankings.js';
import { userShard } from '../../redis/board-shards.js';
import * as grantFreezesScript from '../../redis/scripts/grantFreezes.js';
import * as pauseStreakScript from '../../redis/scripts/pauseStreak.js';
import * as resetStreakScript from '../../redis/scripts/resetStreak.js';
import * as restoreStreakScript from '../../redis/scripts/restoreStreak.js';

/** A user's breakdown group on a board, from their attributes in `h` (null: in none). */
function groupIn(deps: Pick<Deps, 'store'>, h: Record<string, string>): (lb: Leaderboard) => string[] | null {
  return (lb) => breakdownGroup(lb, deps.store.current, (key) => h[attributeField(key)]);
}

/**
 * After a change to when a user's streak is lost (freezes granted, a pause added or removed, the
 * streak disabled by the user's preferences): the expiry the active ranking and the streak boards
 * prune by, worked out again from the user's state now, in the zone `tz` the operation's log entry
 * names (`z`: a restore works it out again in the same zone, whatever zone the user moved to
 * later). The rank stays as it was; a streak the change leaves lost has expired.
 */
export async function refreshExpiry(deps: Deps, tenant: string, userId: string, rule: StreakSettings, tz: string): Promise<void> {
  const { redis, keys, clock } = deps;
  const u = keys.forUser(tenant, userId);
  const h = await redis.hgetall(u.user);
  if (h.id === undefined) return;
  const now = clock.now();
  const t = userTime(tz, parseClock(h[CLOCK_FIELD]), now);
  const { day, period } = currentPeriod(rule.frequency, t);
  const state = stateFromHash(h, rule, day, period, t.jumped);
  const expiry = expiresAt(rule, state, period, tz);
  // A lost streak expired before now: the active ranking drops expiries before the time it is read
  // at (lua/streakPrune-3.lua), so one read in this very millisecond drops it too.
  await redis.zadd(keys.streakRankings(tenant).expiry, 'XX', expiry ?? now - 1, userId);
  const length = streakView(rule, state, period).length;
  // An excluded user is on no streak board (src/engine/fairplay/exclude.ts).
  if (h[EXCLUSION_FIELD] !== undefined) return;
  if (expiry !== null && length > 0) {
    await place(deps, tenant, userId, streakPlacements(deps, length, expiry, dateOfDay(day), groupIn(deps, h)), now);
    return;
  }
  // Lost: the streak boards drop the user on their next read or placement, as they drop any lost
  // streak (lua/includes/pruneLost.lua).
  for (const p of streakPlacements(deps, 0, now, dateOfDay(day), groupIn(deps, h))) {
    const k = userShard(keys, tenant, p.lb, p.run.start, groupName(p.group), userId);
    await redis.zadd(k.expiry, 'XX', now - 1, userId);
  }
}

/** Grants `n` freezes (up to the rule's maximum); answers how many were granted, or null for an unknown user. */
export async function grantFreezes(deps: Deps, tenant: string, userId: string, n: number, rule: StreakSettings): Promise<number | null> {
  const { redis, keys, clock } = deps;
  const u = keys.forUser(tenant, userId);
  const [tz = '', ck] = (await redis.hmget(u.user, 'tz', CLOCK_FIELD)).map((v) => v ?? undefined);
  const now = clock.now();
  const { day } = userTime(tz, parseClock(ck), now);
  const entry = operationEntry(tenant, userId, now, { n, z: tz });
  const granted = await grantFreezesScript.run(redis, u, { n, max: rule.freezes?.max ?? 0, initial: rule.freezes?.initial ?? 0, day, entry });
  if (granted === null) return null;
  if (granted > 0) await refreshExpiry(deps, tenant, userId, rule, tz);
  return granted;
}

export type RestoreOutcome = 'restored' | 'not_found' | 'nothing_lost' | 'at_maximum' | 'disabled';

/** Gives a user back the streak they lost within the restore window (not while their preferences disable it). */
export async function restoreStreak(deps: Deps, tenant: string, userId: string, rule: StreakSettings): Promise<RestoreOutcome> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  const u = keys.forUser(tenant, userId);
  const h = await redis.hgetall(u.user);
  if (h.id === undefined) return 'not_found';
  if (streakDisabled(h)) return 'disabled';
  const tz = h.tz ?? '';
  const t = userTimeOf(h, now);
  const { day, period } = currentPeriod(rule.frequency, t);
  const current = streakView(rule, stateFromHash(h, rule, day, period, t.jumped), period).length;
  const from = periodOfDay(rule.frequency, day - RESTORE_WINDOW_DAYS[rule.frequency]);
  const restored = await restoreStreakScript.run(redis, u, {
    frequency: FREQUENCY_LETTER[rule.frequency], period, from, current, entry: operationEntry(tenant, userId, now, { z: tz }),
  });
  if (typeof restored === 'string') return restored;
  const after = await redis.hgetall(u.user);
  const state = stateFromHash(after, rule, day, period, t.jumped);
  const expiry = expiresAt(rule, state, period, tz) ?? 0;
  // An excluded user is in no ranking (src/engine/fairplay/exclude.ts): read after the script, so
  // an exclusion made before it is seen.
  if (after[EXCLUSION_FIELD] !== undefined) return 'restored';
  await rankStreak(deps, tenant, userId, { length: state.length, longest: state.longest, expiry }, now, '');
  // The streak boards show the restored length too.
  await place(deps, tenant, userId, streakPlacements(deps, state.length, expiry, dateOfDay(day), groupIn(deps, h)), now);
  return 'restored';
}

export type ResetOutcome = 'reset' | 'not_found' | 'no_streak';

/**
 * Resets a user's current streak to zero (the run written to the history, freezes and longest
 * kept); the next extension starts it again. The rankings and streak boards drop the user as they
 * drop a lost streak.
 */
export async function resetStreak(deps: Deps, tenant: string, userId: string, rule: StreakSettings): Promise<ResetOutcome> {
  const { redis, keys, clock } = deps;
  const now = clock.now();
  const u = keys.forUser(tenant, userId);
  const h = await redis.hgetall(u.user);
  if (h.id === undefined) return 'not_found';
  const tz = h.tz ?? '';
  const t = userTimeOf(h, now);
  const { day, period } = currentPeriod(rule.frequency, t);
  const current = streakView(rule, stateFromHash(h, rule, day, period, t.jumped), period).length;
  const done = await resetStreakScript.run(redis, u, current, operationEntry(tenant, userId, now, { z: tz }));
  if (done !== 'reset') return done;
  await refreshExpiry(deps, tenant, userId, rule, tz);
  return 'reset';
}

/**
 * A pause from `start` to `end` (dates of the user's clock): the periods it touches are neither
 * missed nor counted. Answers its id, 'past' when it would start before the user's today, or
 * 'not_found'.
 */
export async function addPause(
  deps: Deps, tenant: string, userId: string, start: string, end: string, rule: StreakSettings, givenId?: string,
): Promise<{ id: string } | 'past' | 'not_found'> {
  const { redis, keys, clock } = deps;
  const u = keys.forUser(tenant, userId);
  const [tz = '', ck] = (await redis.hmget(u.user, 'tz', CLOCK_FIELD)).map((v) => v ?? undefined);
  const now = clock.now();
  const { day } = userTime(tz, parseClock(ck), now);
  if (dayIndexOf(start) < day) return 'past';
  // A restore replays a pause with the id it was given.
  const id = givenId ?? uuidv7();
  const pause: [string, number, number, string] = [
    FREQUENCY_LETTER[rule.frequency], periodOfDay(rule.frequency, dayIndexOf(start)), periodOfDay(rule.frequency, dayIndexOf(end)), id,
  ];
  const entry = operationEntry(tenant, userId, now, { op: 'add', id, start, end, z: tz });
  const done = await pauseStreakScript.run(redis, u, { op: 'add', pause, entry });
  if (done === 'not_found') return 'not_found';
  await redis.hset(keys.streakRankings(tenant).pauses, id, JSON.stringify({ userId, start, end }));
  await refreshExpiry(deps, tenant, userId, rule, tz);
  return { id };
}

/** Removes a pause; false when there is none with that id. */
export async function removePause(deps: Deps, tenant: string, id: string): Promise<boolean> {
  const { redis, keys, store } = deps;
  const registry = keys.streakRankings(tenant).pauses;
  const raw = await redis.hget(registry, id);
  if (raw === null) return false;
  const { userId } = JSON.parse(raw) as { userId: string };
  const u = keys.forUser(tenant, userId);
  const tz = (await redis.hget(u.user, 'tz')) ?? '';
  await pauseStreakScript.run(redis, u, { op: 'remove', id, entry: operationEntry(tenant, userId, deps.clock.now(), { op: 'remove', id, z: tz }) });
  await redis.hdel(registry, id);
  const rule = store.current.streak;
  if (rule !== null) await refreshExpiry(deps, tenant, userId, rule, tz);
  return true;
}
