/**
 * Streaks in the Application API: a user's streak with history and rank, several users' streaks,
 * and the rankings.
 */
import { streakHistory } from '../../domain/streak-history.js';
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { pruneStreakRanking } from '../../engine/prune.js';
import { currentPeriod, periodEnd, periodStart } from '../../domain/periods.js';
import { FREQUENCY_LETTER, pausesOf, stateFromHash, streakView } from '../../domain/streaks.js';
import { checkUserId, isUserId, USER_ID_MAX, type UserHash } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import { ok, queryOf } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';

export const MAX_HISTORY = 365;
export const MAX_USER_IDS = 100;

export function streakRoutes(deps: Deps): Route[] {
  const { redis, keys, store, clock } = deps;

  /** Drops lost streaks from the tenant's active ranking before it is read. */
  const prune = (tenant: string) => pruneStreakRanking(deps, tenant);

  async function userStreak(req: Request) {
    const { tenant } = principalOf(req);
    const id = req.params[0];
    checkUserId(id);
    const raw = queryOf(req.query).get('historyPeriods');
    // Digits only, as `awards` takes them: Number() would read '1e2' and '0x10' too.
    const count = raw === null || raw === '' ? 7 : /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(count) || count < 0 || count > MAX_HISTORY) {
      throw fail('invalid_query', `historyPeriods must be an integer from 0 to ${MAX_HISTORY}`);
    }
    const rule = store.current.streak;
    const u = keys.forUser(tenant, id);
    const [[e1, h], [e2, history]] = (await redis.pipeline().hgetall(u.user).hgetall(u.history).exec()) as [
      [Error | null, UserHash], [Error | null, Record<string, string>],
    ];
    if (e1 || e2) throw e1 ?? e2;
    if (h.id === undefined) throw fail('user_not_found', id);
    if (rule === null) return ok({ ...streakView(null, null, 0), streakHistory: [], rank: null });
    const { day, period } = currentPeriod(rule.frequency, h.tz ?? '', clock.now());
    const state = stateFromHash(h, rule, day, period);
    const view = streakView(rule, state, period);
    let rank: number | null = null;
    if (view.length > 0) {
      await prune(tenant);
      const r = await redis.zrevrank(keys.streakRankings(tenant).active, id);
      rank = r === null ? null : r + 1;
    }
    const pauses = pausesOf(h);
    const upcoming = pauses.filter(([f, , last]) => f === FREQUENCY_LETTER[rule.frequency] && last >= period)
      .map(([, first, last, pauseId]) => ({ id: pauseId, start: periodStart(rule.frequency, first), end: periodEnd(rule.frequency, last) }));
    return ok({ ...view, streakHistory: streakHistory(rule, state, history, period, count, pauses), rank, pauses: upcoming });
  }

  async function several(req: Request) {
    const { tenant } = principalOf(req);
    // Repeated (the SDK's form, one id each: an id may hold a comma), or once, comma-separated.
    const sent = queryOf(req.query).getAll('userIds');
    const userIds = [...new Set((sent.length === 1 ? sent[0].split(',') : sent).filter(Boolean))];
    if (userIds.length === 0) throw fail('invalid_query', 'userIds is required: one or more user ids');
    if (userIds.length > MAX_USER_IDS) throw fail('invalid_query', `userIds may list at most ${MAX_USER_IDS} users`);
    // As a path takes a user id (no such user could exist).
    const long = userIds.find((id) => !isUserId(id));
    if (long !== undefined) throw fail('invalid_query', `userIds: a user id must have 1 to ${USER_ID_MAX} characters`);
    const rule = store.current.streak;
    const now = clock.now();
    const hashes = await Promise.all(userIds.map((id) => redis.hgetall(keys.forUser(tenant, id).user)));
    const items = userIds.map((userId, i) => {
      const h = hashes[i];
      if (rule === null || h.id === undefined) return { userId, streakLength: 0, extended: null };
      const { day, period } = currentPeriod(rule.frequency, h.tz ?? '', now);
      const length = streakView(rule, stateFromHash(h, rule, day, period), period).length;
      // 's:at' is absent while the only extension is the one of the event that created the user.
      return { userId, streakLength: length, extended: length > 0 ? h['s:at'] ?? h.created ?? null : null };
    });
    items.sort((a, b) => b.streakLength - a.streakLength);
    return ok(items);
  }

  async function rankings(req: Request) {
    const { tenant } = principalOf(req);
    const q = queryOf(req.query);
    const limit = q.get('limit') === null || q.get('limit') === '' ? 10 : Number(q.get('limit'));
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw fail('invalid_query', 'limit must be an integer from 1 to 100');
    const type = q.get('type') ?? 'active';
    if (type !== 'active' && type !== 'longest') throw fail('invalid_query', `type must be active or longest, got "${type}"`);
    const k = keys.streakRankings(tenant);
    if (type === 'active') await prune(tenant);
    const flat = await redis.zrevrange(type === 'active' ? k.active : k.longest, 0, limit - 1, 'WITHSCORES');
    const entries: { userId: string; streakLength: number }[] = [];
    // Scores carry a tie-breaking fraction (rankScore): the length is the whole part.
    for (let i = 0; i < flat.length; i += 2) entries.push({ userId: flat[i], streakLength: Math.floor(Number(flat[i + 1])) });
    const names = await Promise.all(entries.map((e) => redis.hget(keys.forUser(tenant, e.userId).user, 'name')));
    return ok(entries.map((e, i) => ({ userId: e.userId, name: names[i], streakLength: e.streakLength })));
  }

  return [
    { method: 'get', path: '/users/:id/streak', family: 'app', subject: 'path', handler: userStreak },
    { method: 'get', path: '/streaks', family: 'app', subject: 'userIds', handler: several },
    { method: 'get', path: '/streaks/rankings', family: 'app', subject: 'shared', handler: rankings },
  ];
}
