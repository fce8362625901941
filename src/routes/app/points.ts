/**
 * Points reads of the Application API: a user's points in one system (total, level, recent
 * awards), their daily, weekly or monthly summary and the boosts active for them; a system with
 * its active triggers; its levels; its global boosts; how the tenant's users spread over totals
 * and over levels.
 */
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
import { PointsTotals, userPoints, userPointsDays } from '../../engine/points/read.js';
import { userFields } from '../../engine/users/read.js';
import { CLOCK_FIELD, parseClock, userTime } from '../../domain/clock.js';
import { boostsFor } from '../../config/plans/points.js';
import type { PointsSystem } from '../../model/entities.js';
import type { UserPointsView } from '../../model/views.js';

const SYSTEM = { key: { schema: { type: 'string' }, description: 'The points system\'s key' } };
const USER_SYSTEM = { id: USER_ID_PARAM, ...SYSTEM };
const INCLUDE_FINISHED = { name: 'includeFinished', schema: { type: 'boolean', default: false }, description: 'true adds finished boosts' };

export function pointsRoutes(deps: Deps): Route[] {
  const { store, clock } = deps;

  function systemOf(key: string): PointsSystem {
    const system = store.current.pointsSystemsByKey.get(key);
    if (system === undefined || system.status !== 'active') throw fail('not_found', `Points system "${key}"`);
    return system;
  }

  /** The user, after checking the id, with the tenant; the system named in the path. */
  function target(req: Request) {
    const id = req.params[0];
    checkUserId(id);
    return { id, tenant: principalOf(req).tenant, system: systemOf(req.params[1]) };
  }

  const totals = new PointsTotals(deps);

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
        const { id, tenant, system } = target(req);
        await accrueTime(deps, tenant, id);
        const stored = await userPoints(deps, tenant, id, system.id, count);
        if (stored === null) throw fail('user_not_found', id);
        const snapshot = store.current;
        const awards: UserPointsView['awards'] = stored.awards.map(([n, raw]) => awardView(parseAward(raw, n), awardId(tenant, id, system.id, n), snapshot));
        const total = stored.total;
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
        const { id, tenant, system } = target(req);
        await accrueTime(deps, tenant, id);
        const fields = await userPointsDays(deps, tenant, id, system.id);
        if (fields === null) throw fail('user_not_found', id);
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
        const { id, tenant, system } = target(req);
        const snapshot = store.current;
        const candidates = boostsFor(snapshot, tenant, id, '0000-00-00').filter((b) => b.s === system.id);
        const fields = [...new Set(candidates.flatMap((b) => (b.ua ?? []).filter((_, i) => i % 2 === 0)))];
        const h = await userFields(deps, tenant, id, ['tz', CLOCK_FIELD, ...fields]);
        if (h === null) throw fail('user_not_found', id);
        const today = userTime(h[0] ?? '', parseClock(h[1]), clock.now()).date;
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
        success: [200], malformed: 422, refusals: [403, 422],
      },
      handler: async (req) => {
        const system = systemOf(req.params[0]);
        const snapshot = store.current;
        const filter = parseUserAttributes(queryOf(req).get('userAttributes'), snapshot);
        const principal = principalOf(req);
        // Counts of the users who hold an attribute's value would tell a device other users' attributes.
        if (filter !== null && principal.user !== null) {
          throw fail('wrong_user', 'a key scoped to a user may not count users by their attributes (userAttributes)');
        }
        const { positive, zero } = await totals.of(principal.tenant, system.id, filter);
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
        const { positive, zero } = await totals.of(principalOf(req).tenant, system.id, null);
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
