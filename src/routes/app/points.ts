/**
 * Points reads of the Application API: a user's points in one system (total, level, recent
 * awards), their daily, weekly or monthly summary and the boosts active for them; a system with
 * its active triggers; its levels; its global boosts; how the tenant's users spread over totals
 * and over levels.
 */
import { attributeField, awardField, pointsCountField, pointsTotalField } from '../../model/fields.js';
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { fail } from '../../lib/errors.js';
import { ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Request, Route } from '../../http/server.js';
import { checkUserId, parseUserAttributes, USER_ATTRIBUTES_QUERY, USER_ID_PARAM } from '../../domain/users.js';
import { parseSummaryQuery, SUMMARY_QUERY, totalsSummary } from '../../domain/summary.js';
import { awardId, awardView, boostView, levelOf, summarise, levelView, parseAward, systemView, triggerView } from '../../domain/points/rules.js';
import { accrueTime } from '../../engine/points/time-awards.js';
import { userBatches } from '../../redis/users.js';
import { localDay } from '../../domain/time.js';
import { boostsFor } from '../../config/plans/points.js';
import type { PointsSystem } from '../../model/entities.js';
import type { UserPointsView } from '../../model/views.js';

const SYSTEM = { key: { schema: { type: 'string' }, description: 'The points system\'s key' } };
const USER_SYSTEM = { id: USER_ID_PARAM, ...SYSTEM };
const INCLUDE_FINISHED = { name: 'includeFinished', schema: { type: 'boolean', default: false }, description: 'true adds finished boosts' };

export function pointsRoutes(deps: Deps): Route[] {
  const { redis, keys, store, clock } = deps;

  function systemOf(key: string): PointsSystem {
    const system = store.current.pointsSystemsByKey.get(key);
    if (system === undefined || system.status !== 'active') throw fail('not_found', `Points system "${key}"`);
    return system;
  }

  /** The user's keys, after checking the id; the system named in the path. */
  function target(req: Request) {
    const id = req.params[0];
    checkUserId(id);
    const system = systemOf(req.params[1]);
    const u = keys.forUser(principalOf(req).tenant, id);
    return { id, system, u, points: keys.userPoints(u, system.id) };
  }

  /**
   * The tenant's users' totals of a system: those above 0, and how many have none. Unfiltered, from
   * the partitions' totals hashes (written with each award by the script that made it:
   * lua/includes/points.lua) and the user count; with a user-attribute filter, by reading every
   * user of the tenant (cached 5 s).
   */
  async function totalsOf(tenant: string, systemId: string, filter: Map<string, string> | null) {
    if (filter === null) {
      const [partitions, stats] = await Promise.all([
        Promise.all(keys.pointsTotalsOfTenant(tenant, systemId).map((key) => redis.hvals(key))),
        deps.stats.get(tenant),
      ]);
      const positive: number[] = [];
      for (const totals of partitions) {
        for (const text of totals) {
          const total = Number(text);
          if (total > 0) positive.push(total);
        }
      }
      return { positive, zero: Math.max(0, stats.users - positive.length) };
    }
    const cacheKey = `${tenant}\u0000${systemId}\u0000${[...filter].join('\u0000')}`;
    const hit = filtered.get(cacheKey);
    if (hit && Date.now() - hit.at < 5000) return hit.totals;
    const totals = scanTotals(tenant, systemId, filter);
    filtered.set(cacheKey, { at: Date.now(), totals });
    if (filtered.size > 1000) filtered.delete(filtered.keys().next().value!);
    totals.catch(() => filtered.delete(cacheKey));
    return totals;
  }
  const filtered = new Map<string, { at: number; totals: Promise<{ positive: number[]; zero: number }> }>();

  async function scanTotals(tenant: string, systemId: string, filter: Map<string, string>) {
    const fields = [pointsTotalField(systemId), ...[...filter.keys()].map(attributeField)];
    const wanted = [...filter.values()];
    const positive: number[] = [];
    let zero = 0;
    for await (const { userIds } of userBatches(redis, keys, tenant)) {
      const pipeline = redis.pipeline();
      for (const id of userIds) pipeline.hmget(keys.forUser(tenant, id).user, ...fields);
      for (const [err, values] of (await pipeline.exec()) ?? []) {
        if (err) throw err;
        const v = values as (string | null)[];
        if (!wanted.every((w, i) => v[i + 1] === w)) continue;
        const total = Number(v[0] ?? 0);
        if (total > 0) positive.push(total);
        else zero++;
      }
    }
    return { positive, zero };
  }

  return [
    {
      method: 'get', path: '/users/:id/points/:key', family: 'app', subject: 'path',
      doc: {
        summary: 'The user\'s points in a system: total, level and the newest awards', params: USER_SYSTEM,
        query: [{ name: 'awards', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 }, description: 'Awards to list' }],
        success: [200], malformed: 422,
      },
      handler: async (req) => {
        const count = queryOf(req).int('awards');
        const { id, system, u, points } = target(req);
        await accrueTime(deps, principalOf(req).tenant, id);
        const stored = await redis.hmget(u.user, 'id', pointsTotalField(system.id), pointsCountField(system.id));
        if (stored[0] === null) throw fail('user_not_found', id);
        // The newest awards: a:<n> down to a:<n - count + 1> (the hash keeps the last 100).
        const n = Number(stored[2] ?? 0);
        const numbers = Array.from({ length: Math.min(count, n) }, (_, i) => n - i);
        const raw = numbers.length === 0 ? [] : await redis.hmget(points.days, ...numbers.map(awardField));
        const snapshot = store.current;
        const tenant = principalOf(req).tenant;
        const awards: UserPointsView['awards'] = [];
        for (let i = 0; i < numbers.length; i++) {
          const r = raw[i];
          if (r === null) continue;
          awards.push(awardView(parseAward(r, numbers[i]), awardId(tenant, id, system.id, numbers[i]), snapshot));
        }
        const total = Number(stored[1] ?? 0);
        const level = levelOf(snapshot, system.id, total);
        const answer: UserPointsView = { ...systemView(system), total, level: level === null ? null : levelView(level), awards };
        return ok(answer);
      },
    },
    {
      method: 'get', path: '/users/:id/points/:key/event-summary', family: 'app', subject: 'path',
      doc: {
        summary: 'The user\'s points total and change per day, week or month', params: USER_SYSTEM, query: SUMMARY_QUERY,
        success: [200], malformed: 422, refusals: [422],
      },
      handler: async (req) => {
        const query = parseSummaryQuery(queryOf(req));
        const { id, u, points } = target(req);
        await accrueTime(deps, principalOf(req).tenant, id);
        const [[e1, exists], [e2, fields]] = (await redis.pipeline().exists(u.user).hgetall(points.days).exec()) as [
          [Error | null, number], [Error | null, Record<string, string>],
        ];
        if (e1 || e2) throw e1 ?? e2;
        if (exists === 0) throw fail('user_not_found', id);
        return ok(totalsSummary(fields, query));
      },
    },
    {
      method: 'get', path: '/points/:key', family: 'app', subject: 'shared',
      doc: { summary: 'A points system with its active triggers', params: SYSTEM, success: [200] },
      handler: (req) => {
        const snapshot = store.current;
        const system = systemOf(req.params[0]);
        const triggers = [...snapshot.pointsTriggers.values()]
          .filter((t) => t.systemId === system.id && t.status === 'active')
          .map((t) => triggerView(t, snapshot));
        return ok({ ...systemView(system), triggers });
      },
    },
    {
      method: 'get', path: '/points/:key/boosts', family: 'app', subject: 'shared',
      doc: { summary: 'The system\'s boosts for everyone', params: SYSTEM, query: [INCLUDE_FINISHED], success: [200] },
      handler: (req) => {
        const system = systemOf(req.params[0]);
        const includeFinished = queryOf(req).bool('includeFinished');
        const today = new Date(clock.now()).toISOString().slice(0, 10);
        const boosts = [...store.current.pointsBoosts.values()]
          .filter((b) => b.systemId === system.id && b.userId === null)
          .map((b) => boostView(b, today))
          .filter((b) => includeFinished || b.status !== 'finished');
        return ok(boosts);
      },
    },
    {
      method: 'get', path: '/users/:id/points/:key/boosts', family: 'app', subject: 'path',
      doc: { summary: 'The boosts active for the user today', params: USER_SYSTEM, success: [200], malformed: 422 },
      handler: async (req) => {
        const { id, system, u } = target(req);
        const snapshot = store.current;
        const candidates = boostsFor(snapshot, id, '0000-00-00').filter((b) => b.s === system.id);
        const fields = [...new Set(candidates.flatMap((b) => (b.ua ?? []).filter((_, i) => i % 2 === 0)))];
        const h = await redis.hmget(u.user, 'id', 'tz', ...fields);
        if (h[0] === null) throw fail('user_not_found', id);
        const today = localDay(h[1] ?? '', clock.now());
        const values = new Map(fields.map((f, i) => [f, h[2 + i]]));
        const boosts = candidates
          .filter((b) => (b.ua ?? []).every((v, i, ua) => i % 2 === 1 || values.get(v) === ua[i + 1]))
          .map((b) => boostView(snapshot.pointsBoosts.get(b.i)!, today))
          .filter((b) => b.status === 'active');
        return ok(boosts);
      },
    },
    {
      method: 'get', path: '/points/:key/summary', family: 'app', subject: 'shared',
      doc: {
        summary: 'How the tenant\'s users spread over points totals', params: SYSTEM, query: [USER_ATTRIBUTES_QUERY],
        success: [200], malformed: 422, refusals: [422],
      },
      handler: async (req) => {
        const system = systemOf(req.params[0]);
        const snapshot = store.current;
        const filter = parseUserAttributes(queryOf(req).get('userAttributes'), snapshot);
        const { positive, zero } = await totalsOf(principalOf(req).tenant, system.id, filter);
        return ok(summarise(positive, zero));
      },
    },
    {
      method: 'get', path: '/points/:key/level-summary', family: 'app', subject: 'shared',
      doc: {
        summary: 'How the tenant\'s users spread over the system\'s levels', params: SYSTEM, success: [200], malformed: 422, refusals: [422],
      },
      handler: async (req) => {
        const system = systemOf(req.params[0]);
        const levels = store.current.levelsBySystem.get(system.id) ?? [];
        // The spec's 422: "No levels configured on the points system".
        if (levels.length === 0) throw fail('unprocessable', `Points system "${system.key}" has no levels`);
        const { positive, zero } = await totalsOf(principalOf(req).tenant, system.id, null);
        const counts = levels.map(() => 0);
        const levelAt = (total: number) => {
          let at = -1;
          for (let i = 0; i < levels.length && levels[i].points <= total; i++) at = i;
          return at;
        };
        for (const total of positive) {
          const i = levelAt(total);
          if (i >= 0) counts[i]++;
        }
        const atZero = levelAt(0);
        if (atZero >= 0) counts[atZero] += zero;
        return ok(levels.map((level, i) => ({ level: levelView(level), users: counts[i] })));
      },
    },
    {
      method: 'get', path: '/points/:key/levels', family: 'app', subject: 'shared',
      doc: { summary: 'The system\'s levels, lowest first', params: SYSTEM, success: [200] },
      handler: (req) => {
        const system = systemOf(req.params[0]);
        return ok((store.current.levelsBySystem.get(system.id) ?? []).map(levelView));
      },
    },
  ];
}
