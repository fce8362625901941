/**
 * The tenants' streak rankings from the extensions (`sx`) of a stretch of the archived log, for a
 * restore (the entries after the snapshot, in log order: the snapshot may have read the rankings
 * before some of those entries' phase 2 wrote them). Absolute values: an entry taken twice changes
 * nothing. Requests write the same as they go (src/engine/streaks/rankings.ts).
 */
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import { currentPeriod } from '../../domain/periods.js';
import { expiresAt, stateFromHash, type StreakState } from '../../domain/streaks/state.js';
import type { StreakSettings } from '../../model/entities.js';
import { EXCLUSION_FIELD } from '../../model/fields.js';
import { compareStreamIds, type LogBody } from '../../model/log.js';
import type { Context } from '../context.js';
import { loggedStreak, type StreakStanding } from '../../domain/streaks/standing.js';
import { rankStreak, streakStanding } from '../streaks/rankings.js';

/** An entry a consumer takes: its stream id and kind, and its body parsed. */
export interface Drained {
  id: string;
  kind: string;
  e: LogBody;
}

/**
 * The streak an event's entry carries as the rankings take it: as the replay reads it
 * (src/domain/streaks/standing.ts loggedStreak), or from the array older logs hold.
 */
function streakOfEntry(e: LogBody, rule: StreakSettings): StreakStanding | null {
  if (typeof e.sx === 'string') return loggedStreak({ t: e.t!, u: e.u!, m: e.m ?? '', d: e.d ?? '1970-01-01', ts: e.ts ?? 0, sx: e.sx, sp: e.sp }, rule);
  const [length, longest, period, freezes, tz] = e.sx!;
  const state: StreakState = { length, start: null, last: period, freezes, extended: true, longest, paused: 0, run: null };
  return { length, longest, expiry: expiresAt(rule, state, period, tz) ?? e.ts ?? 0 };
}

/**
 * The entries of an admin's operation on a streak, and of preferences (which may disable it): the
 * rankings take them again too (preferences only where they disabled the streak, as they did when
 * made: src/engine/users/preferences.ts).
 */
export const STREAK_OPERATIONS: ReadonlySet<string> = new Set(['restore', 'reset', 'freezes', 'pause', 'preferences']);

/**
 * Records the streak extensions of a batch in the tenants' rankings, in log order, each ranked by
 * its entry's id (src/engine/streaks/rankings.ts rankStreak). Absolute values: an entry taken twice
 * changes nothing.
 */
export async function rankStreaks(deps: Pick<Context, 'redis' | 'keys' | 'store'>, batch: Drained[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (rule === null) return;
  // Sent one after the other without waiting: a tenant's rankings share a hash slot, so one
  // connection carries them in log order.
  let sent: Promise<number>[] = [];
  for (const { id, kind, e } of batch) {
    if (e.t === undefined || e.u === undefined) continue;
    if (STREAK_OPERATIONS.has(kind)) {
      if (kind === 'preferences' && (e.f?.streak as { enabled?: boolean } | undefined)?.enabled !== false) continue;
      // In log order: what came before first.
      await Promise.all(sent);
      sent = [];
      await rankOperation(deps, rule, kind, e, id);
      continue;
    }
    // An excluded user's event is in no ranking (src/engine/fairplay/exclude.ts).
    if (kind !== 'event' || !e.sx || e.ex !== undefined) continue;
    const streak = streakOfEntry(e, rule);
    if (streak !== null) sent.push(rankStreak(deps, e.t, e.u, streak, e.ts ?? 0, id));
  }
  await Promise.all(sent);
}

/**
 * An admin's operation on a user's streak (src/engine/streaks/operations.ts), as the rankings take
 * it: from the user's state now, at the operation's time, in the zone its entry names (the user's
 * zone then; the user's zone now for an entry without one), on the user's clock. The operation wrote the same when it
 * was made, and a later extension wrote over it: an operation older than the extension the
 * rankings hold (their sequences, lua/streakRank-4.lua) changes nothing.
 */
async function rankOperation(deps: Pick<Context, 'redis' | 'keys'>, rule: StreakSettings, kind: string, e: LogBody, id: string): Promise<void> {
  const tenant = e.t!;
  const userId = e.u!;
  const at = e.ts ?? 0;
  const held = (await streakStanding(deps, tenant, userId))?.seq ?? '';
  if (held !== '' && compareStreamIds(held, id) > 0) return;
  const h = await deps.redis.hgetall(deps.keys.forUser(tenant, userId).user);
  // An excluded user is in no ranking (src/engine/fairplay/exclude.ts).
  if (h.id === undefined || h[EXCLUSION_FIELD] !== undefined) return;
  const tz = e.z ?? h.tz ?? '';
  const t = userTime(tz, parseClock(h[CLOCK_FIELD]), at);
  const { day, period } = currentPeriod(rule.frequency, t);
  const state = stateFromHash(h, rule, day, period, t.jumped);
  const expiry = expiresAt(rule, state, period, tz);
  if (kind === 'restore') {
    await rankStreak(deps, tenant, userId, { length: state.length, longest: state.longest, expiry: expiry ?? 0 }, at, '');
  } else {
    // A lost streak expired before the operation, as the operation wrote it
    // (src/engine/streaks/operations.ts refreshExpiry): the active ranking drops expiries before
    // the time it is read at, so a read in the operation's own millisecond drops it too.
    await deps.redis.zadd(deps.keys.streakRankings(tenant).expiry, 'XX', expiry ?? at - 1, userId);
  }
}
