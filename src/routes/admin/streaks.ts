/**
 * Admin API for users' streaks: granting freezes, restoring streaks, adding and removing pauses
 * (the rule they follow: src/routes/admin/streak-settings.ts). Per-user problems of the bulk calls
 * are issues in a 200 answer, readable by SDK 1.0.42 (`userId`, `level`, `reason`) and by the newer
 * admin spec (`severity`, `message`).
 */
import { attributeField } from '../../model/fields.js';
import { ScriptCode } from '../../redis/codes.js';
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { breakdownGroup, groupName } from '../../domain/leaderboards.js';
import { place, streakPlacements } from '../../engine/placements.js';
import { currentPeriod, dateOfDay, dayIndexOf, periodOfDay, RESTORE_WINDOW_DAYS } from '../../domain/periods.js';
import { uuidv7 } from '../../domain/ids.js';
import { parseDate } from '../../domain/time.js';
import { expiresAt, FREQUENCY_LETTER, rankScore, stateFromHash, streakView } from '../../domain/streaks.js';
import { fail } from '../../lib/errors.js';
import { json, ok, queryOf } from '../../http/reply.js';
import { idsOf } from './resource.js';
import type { Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import type { Leaderboard, StreakSettings } from '../../model/entities.js';

export interface BulkIssue {
  userId: string;
  level: 'error' | 'warning';
  reason: string;
  severity: 'error' | 'warning';
  message: string;
}

export function bulkIssue(userId: string, level: 'error' | 'warning', reason: string): BulkIssue {
  return { userId, level, reason, severity: level, message: reason };
}

const validateFreezes = compile<{ freezes: { userId: string }[] }>({
  type: 'object', required: ['freezes'],
  properties: {
    freezes: {
      type: 'array', minItems: 1, maxItems: 1000,
      items: { type: 'object', required: ['userId'], properties: { userId: { type: 'string', minLength: 1, maxLength: 255 } } },
    },
  },
});

const validateRestore = compile<{ users: { id: string }[] }>({
  type: 'object', required: ['users'],
  properties: {
    users: {
      type: 'array', minItems: 1, maxItems: 100,
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 } } },
    },
  },
});

const validatePauses = compile<{ pauses: { userId: string; start: string; end: string }[] }>({
  type: 'object', required: ['pauses'],
  properties: {
    pauses: {
      type: 'array', minItems: 1, maxItems: 100,
      items: {
        type: 'object', required: ['userId', 'start', 'end'],
        properties: {
          userId: { type: 'string', minLength: 1, maxLength: 255 },
          start: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
          end: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        },
      },
    },
  },
});

/** Longest pause: a year of days. */
const MAX_PAUSE_DAYS = 366;

export function adminStreakRoutes(deps: Deps): Route[] {
  const { store, clock, redis, keys } = deps;

  /** A user's breakdown group on a board, from their attributes in `h` (null: in none). */
  const groupIn = (h: Record<string, string>) => (lb: Leaderboard) => breakdownGroup(lb, store.current, (key) => h[attributeField(key)]);

  /**
   * After a change to when a user's streak is lost (freezes granted, a pause added or removed):
   * the expiry the active ranking and the streak boards prune by, worked out again from the
   * user's state now. The rank stays as it was; a streak the change leaves lost expires now.
   */
  async function refreshExpiry(tenant: string, userId: string, rule: StreakSettings): Promise<void> {
    const u = keys.forUser(tenant, userId);
    const h = await redis.hgetall(u.user);
    if (h.id === undefined) return;
    const tz = h.tz ?? '';
    const now = clock.now();
    const { day, period } = currentPeriod(rule.frequency, tz, now);
    const state = stateFromHash(h, rule, day, period);
    const expiry = expiresAt(rule, state, period, tz);
    await redis.zadd(keys.streakRankings(tenant).expiry, 'XX', expiry ?? now, userId);
    const length = streakView(rule, state, period).length;
    if (expiry !== null && length > 0) {
      await place(deps, tenant, userId, streakPlacements(deps, length, expiry, dateOfDay(day), groupIn(h)), now);
      return;
    }
    // Lost: the streak boards drop the user on their next read or placement, as they drop any
    // lost streak (lua/includes/pruneLost.lua).
    for (const p of streakPlacements(deps, 0, now, dateOfDay(day), groupIn(h))) {
      const k = keys.leaderboard(tenant, p.lb.id, p.run.start, groupName(p.group));
      await redis.zadd(k.expiry, 'XX', now, userId);
    }
  }

  async function grantFreezes(req: Request) {
    const { tenant } = principalOf(req);
    const body = validateFreezes(parseJson(req.body));
    const rule = store.current.streak;
    const issues: BulkIssue[] = [];
    // One freeze per entry: a user listed twice gets two.
    const wanted = new Map<string, number>();
    for (const { userId } of body.freezes) wanted.set(userId, (wanted.get(userId) ?? 0) + 1);
    for (const [userId, n] of wanted) {
      if (!rule?.freezes || rule.freezes.max === 0) {
        issues.push(bulkIssue(userId, 'error', 'Streak freezes are not enabled'));
        continue;
      }
      const u = keys.forUser(tenant, userId);
      const tz = (await redis.hget(u.user, 'tz')) ?? '';
      const { day } = currentPeriod(rule.frequency, tz, clock.now());
      const [granted] = await redis.grantFreezes(u.user, n, rule.freezes.max, rule.freezes.initial, day);
      if (granted === ScriptCode.NOT_FOUND) issues.push(bulkIssue(userId, 'error', 'User does not exist'));
      else if (granted < n) issues.push(bulkIssue(userId, 'warning', 'Would exceed maximum freeze limit'));
      if (granted > 0) await refreshExpiry(tenant, userId, rule);
    }
    return ok({ issues });
  }

  async function restore(req: Request) {
    const { tenant } = principalOf(req);
    const body = validateRestore(parseJson(req.body));
    const rule = store.current.streak;
    if (rule === null) throw fail('unprocessable', 'No streak is configured (PUT /admin/v1/streaks/settings)');
    const restoredUsers: string[] = [];
    const issues: BulkIssue[] = [];
    const now = clock.now();
    for (const id of [...new Set(body.users.map((x) => x.id))]) {
      const u = keys.forUser(tenant, id);
      const h = await redis.hgetall(u.user);
      if (h.id === undefined) {
        issues.push(bulkIssue(id, 'error', 'User does not exist'));
        continue;
      }
      const tz = h.tz ?? '';
      const { day, period } = currentPeriod(rule.frequency, tz, now);
      const current = streakView(rule, stateFromHash(h, rule, day, period), period).length;
      const from = periodOfDay(rule.frequency, day - RESTORE_WINDOW_DAYS[rule.frequency]);
      const [restored] = await redis.restoreStreak(u.user, u.history, FREQUENCY_LETTER[rule.frequency], period, from, current);
      if (restored === ScriptCode.NOT_FOUND) issues.push(bulkIssue(id, 'error', 'User does not exist'));
      else if (restored === 0) issues.push(bulkIssue(id, 'warning', 'No streak to restore'));
      else if (restored === -1) issues.push(bulkIssue(id, 'warning', 'Streak is already at maximum length'));
      else {
        restoredUsers.push(id);
        const state = stateFromHash(await redis.hgetall(u.user), rule, day, period);
        const k = keys.streakRankings(tenant);
        const expiry = expiresAt(rule, state, period, tz) ?? 0;
        await redis.streakRank(k.active, k.longest, k.expiry, id, rankScore(state.length, now), rankScore(state.longest, now), expiry);
        // The streak boards show the restored length too.
        await place(deps, tenant, id, streakPlacements(deps, state.length, expiry, dateOfDay(day), groupIn(h)), now);
      }
    }
    return ok({ restoredUsers, issues });
  }

  /** Pauses: dates in the user's zone; the periods they touch are neither missed nor counted. */
  async function addPauses(req: Request) {
    const { tenant } = principalOf(req);
    const body = validatePauses(parseJson(req.body));
    const rule = store.current.streak;
    if (rule === null) throw fail('unprocessable', 'No streak is configured (PUT /admin/v1/streaks/settings)');
    const created: unknown[] = [];
    const issues: (BulkIssue & { index: number })[] = [];
    const registry = keys.streakRankings(tenant).pauses;
    for (let index = 0; index < body.pauses.length; index++) {
      const { userId, start, end } = body.pauses[index];
      const refuse = (reason: string) => issues.push({ ...bulkIssue(userId, 'error', reason), index });
      const first = parseDate(start);
      const last = parseDate(end);
      if (first === null || last === null) { refuse('start and end must be dates (YYYY-MM-DD, from 1970-01-01 on)'); continue; }
      if (last < first) { refuse('end must not be before start'); continue; }
      if (last.diff(first, 'days').days + 1 > MAX_PAUSE_DAYS) { refuse(`A pause may last at most ${MAX_PAUSE_DAYS} days`); continue; }
      const u = keys.forUser(tenant, userId);
      const tz = await redis.hget(u.user, 'tz');
      const { day } = currentPeriod(rule.frequency, tz ?? '', clock.now());
      if (dayIndexOf(start) < day) { refuse('A pause cannot start in the past (in the user\'s time zone)'); continue; }
      const id = uuidv7();
      const letter = FREQUENCY_LETTER[rule.frequency];
      const entry = [letter, periodOfDay(rule.frequency, dayIndexOf(start)), periodOfDay(rule.frequency, dayIndexOf(end)), id];
      const [done] = await redis.pauseStreak(u.user, 'add', JSON.stringify(entry));
      if (done === ScriptCode.NOT_FOUND) { refuse('User does not exist'); continue; }
      await redis.hset(registry, id, JSON.stringify({ userId, start, end }));
      await refreshExpiry(tenant, userId, rule);
      created.push({ id, userId, start, end, status: 'active' });
    }
    return json(created.length > 0 ? 201 : 200, { created, issues });
  }

  async function deletePauses(req: Request) {
    const { tenant } = principalOf(req);
    const registry = keys.streakRankings(tenant).pauses;
    const deleted: { id: string }[] = [];
    const issues: { id: string; severity: 'error'; message: string }[] = [];
    for (const id of idsOf(queryOf(req.query))) {
      const raw = await redis.hget(registry, id);
      if (raw === null) {
        issues.push({ id, severity: 'error', message: `Pause "${id}" not found` });
        continue;
      }
      const { userId } = JSON.parse(raw) as { userId: string };
      await redis.pauseStreak(keys.forUser(tenant, userId).user, 'remove', id);
      await redis.hdel(registry, id);
      const rule = store.current.streak;
      if (rule !== null) await refreshExpiry(tenant, userId, rule);
      deleted.push({ id });
    }
    return ok({ deleted, issues });
  }

  return [
    { method: 'post', path: '/streaks/pauses', family: 'admin', handler: addPauses },
    { method: 'del', path: '/streaks/pauses', family: 'admin', handler: deletePauses },
    { method: 'post', path: '/streaks/freezes', family: 'admin', handler: grantFreezes },
    { method: 'post', path: '/streaks/restore', family: 'admin', handler: restore },
  ];
}
