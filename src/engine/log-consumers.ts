/**
 * The tenants' streak rankings from the extensions (`sx`) and the points totals sets from the awards
 * (`pa`) of a stretch of the archived log, for a restore (the entries after the snapshot, in log
 * order: the snapshot may have read the rankings before some of those entries' phase 2 wrote them).
 * Absolute values: an entry taken twice changes nothing. Requests write the same as they go
 * (src/engine/standing.ts).
 */
import { currentPeriod, dayIndexOf } from '../domain/periods.js';
import { expiresAt, rankScore, stateFromHash, streakZone, type StreakState } from '../domain/streaks.js';
import type { StreakSettings } from '../model/entities.js';
import { PAUSES_FIELD, STREAK_FIELD } from '../model/fields.js';
import type { LogBody } from '../model/log.js';
import type { Context } from './context.js';

/** An entry a consumer takes: its stream id and kind, and its body parsed. */
export interface Drained {
  id: string;
  kind: string;
  e: LogBody;
}

/** The extension an entry carries: the state as of its period, and the zone it was judged in. */
function extensionOf(e: LogBody, rule: StreakSettings): { state: StreakState; tz: string } | null {
  if (typeof e.sx === 'string') {
    // With the user's pauses as the event saw them: the expiry counts upcoming ones.
    const state = stateFromHash(e.sp ? { [STREAK_FIELD]: e.sx, [PAUSES_FIELD]: e.sp } : { [STREAK_FIELD]: e.sx }, rule, dayIndexOf(e.d ?? '1970-01-01'), 0);
    if (state.last === null) return null;
    state.extended = true;
    return { state, tz: streakZone(e.sx) };
  }
  const [length, longest, period, freezes, tz] = e.sx!;
  return { state: { length, start: null, last: period, freezes, extended: true, longest, paused: 0, run: null }, tz };
}

/**
 * Records the streak extensions of a batch in the tenants' rankings: per tenant, one ZADD per
 * ranking with every extension in log order (the last one of a user counts; the longest only
 * grows, GT), as lua/streakRank-4.lua does for one user. Absolute values: draining an entry twice
 * changes nothing.
 */
/**
 * The entries of an admin's operation on a streak, and of preferences (which may disable it): the
 * rankings take them again too.
 */
export const STREAK_OPERATIONS: ReadonlySet<string> = new Set(['restore', 'freezes', 'pause', 'preferences']);

export async function rankStreaks(deps: Pick<Context, 'redis' | 'keys' | 'store'>, batch: Drained[]): Promise<void> {
  const rule = deps.store.current.streak;
  if (rule === null) return;
  let byTenant = new Map<string, { active: (string | number)[]; longest: (string | number)[]; expiry: (string | number)[] }>();
  // One pipeline per tenant: a tenant's rankings share a hash slot, two tenants' need not (a
  // Cluster pipeline stays on one slot).
  const flush = async () => {
    for (const [tenant, lists] of byTenant) {
      const k = deps.keys.streakRankings(tenant);
      const pipeline = deps.redis.pipeline();
      pipeline.zadd(k.active, ...lists.active);
      pipeline.zadd(k.longest, 'GT', ...lists.longest);
      pipeline.zadd(k.expiry, ...lists.expiry);
      for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
    }
    byTenant = new Map();
  };
  for (const { kind, e } of batch) {
    if (e.t === undefined || e.u === undefined) continue;
    if (STREAK_OPERATIONS.has(kind)) {
      // In log order: what came before first.
      await flush();
      await rankOperation(deps, rule, kind, e.t, e.u, e.ts ?? 0);
      continue;
    }
    if (kind !== 'event' || !e.sx) continue;
    const x = extensionOf(e, rule);
    if (x === null) continue;
    const { state, tz } = x;
    const at = e.ts ?? 0;
    let lists = byTenant.get(e.t);
    if (lists === undefined) {
      lists = { active: [], longest: [], expiry: [] };
      byTenant.set(e.t, lists);
    }
    lists.active.push(rankScore(state.length, at), e.u);
    lists.longest.push(rankScore(state.longest, at), e.u);
    lists.expiry.push(expiresAt(rule, state, state.last!, tz) ?? 0, e.u);
  }
  await flush();
}

/**
 * An admin's operation on a user's streak (src/engine/streaks.ts), as the rankings take it: from
 * the user's state now, at the operation's time. The operation wrote the same when it was made;
 * taken again in log order, a later extension of the log cannot leave an older value behind it.
 */
async function rankOperation(
  deps: Pick<Context, 'redis' | 'keys'>, rule: StreakSettings, kind: string, tenant: string, userId: string, at: number,
): Promise<void> {
  const h = await deps.redis.hgetall(deps.keys.forUser(tenant, userId).user);
  if (h.id === undefined) return;
  const tz = h.tz ?? '';
  const { day, period } = currentPeriod(rule.frequency, tz, at);
  const state = stateFromHash(h, rule, day, period);
  const expiry = expiresAt(rule, state, period, tz);
  const k = deps.keys.streakRankings(tenant);
  if (kind === 'restore') {
    await deps.redis.streakRank(k.active, k.longest, k.expiry, k.sequences, userId, rankScore(state.length, at), rankScore(state.longest, at), expiry ?? 0, '');
  } else {
    await deps.redis.zadd(k.expiry, 'XX', expiry ?? at, userId);
  }
}

/**
 * Records the points totals a batch's awards left (entries with "pa": [[system, trigger, awarded,
 * total, n, boosts], ...]) in the tenants' totals sets, the latest per user and system: one ZADD
 * per set.
 */
export async function rankPoints(deps: Pick<Context, 'redis' | 'keys'>, batch: Drained[]): Promise<void> {
  // tenant -> system -> user -> total
  const byTenant = new Map<string, Map<string, Map<string, number>>>();
  for (const { e } of batch) {
    if (!e.pa || e.t === undefined || e.u === undefined) continue;
    let systems = byTenant.get(e.t);
    if (systems === undefined) {
      systems = new Map();
      byTenant.set(e.t, systems);
    }
    for (const [system, , , total] of e.pa) {
      let users = systems.get(system);
      if (users === undefined) {
        users = new Map();
        systems.set(system, users);
      }
      users.set(e.u, total);
    }
  }
  // One pipeline per tenant, on the tenant's slot (as the streak rankings).
  for (const [tenant, systems] of byTenant) {
    const pipeline = deps.redis.pipeline();
    for (const [system, users] of systems) {
      const pairs: (string | number)[] = [];
      for (const [user, total] of users) pairs.push(total, user);
      pipeline.zadd(deps.keys.pointsTotals(tenant, system), ...pairs);
    }
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }
}
