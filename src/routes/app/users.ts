/**
 * Users: explicit identification (POST, PUT, PATCH), reading a user, the user's metrics and their
 * event summaries, and notification preferences.
 */
import { totalField, completionField } from '../../model/fields.js';
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { identifyUser, updatePreferences, type IdentifyMode } from '../../engine/users.js';
import { fail } from '../../lib/errors.js';
import { json, ok, queryOf } from '../../http/reply.js';
import type { Reply, Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import { checkUserId, identificationSchema, NOTIFICATION_TYPES, preferencesView, prepareIdentification, upsertedUserSchema, userView, type Identification, type UpsertedUser, type UserHash } from '../../domain/users.js';
import { userAchievementView, visibleTo } from '../../domain/achievements.js';
import { eventSummary, parseSummaryQuery } from '../../domain/summary.js';
import type { Metric } from '../../model/entities.js';

const validateUpserted = compile<UpsertedUser>(upsertedUserSchema);
const validateIdentification = compile<Identification>(identificationSchema);

const channels = { type: ['array', 'null'], items: { enum: ['email', 'push'] }, uniqueItems: true };
const validatePreferences = compile<{ notifications?: Record<string, string[]> | null }>({
  type: 'object',
  properties: {
    notifications: {
      type: ['object', 'null'],
      properties: Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, channels])),
      additionalProperties: false,
    },
  },
});

export function userRoutes(deps: Deps): Route[] {
  const { redis, keys, store } = deps;

  async function identify(req: Request, mode: IdentifyMode, id: string, user: Identification): Promise<Reply> {
    const { tenant } = principalOf(req);
    checkUserId(id);
    const ident = prepareIdentification(user, store.current);
    const { created, hash } = await identifyUser(deps, tenant, mode, id, user, ident);
    return json(created ? 201 : 200, userView(hash));
  }

  /** The user's hash; 404 when the user does not exist. */
  async function loadUser(req: Request): Promise<UserHash> {
    const id = req.params[0];
    checkUserId(id);
    const h = await redis.hgetall(keys.forUser(principalOf(req).tenant, id).user);
    if (h.id === undefined) throw fail('user_not_found', id);
    return h;
  }

  function activeMetric(key: string): Metric {
    const metric = store.current.metricsByKey.get(key);
    if (metric === undefined || metric.status !== 'active') throw fail('metric_not_found', key);
    return metric;
  }

  /** A metric with the user's total and the metric's achievements (achievedAt null when open). */
  function metricView(metric: Metric, h: UserHash) {
    const snapshot = store.current;
    const achievements = [];
    for (const a of snapshot.achievements.values()) {
      if (a.trigger !== 'metric' || a.metricId !== metric.id) continue;
      const achievedAt = h[completionField(a.id)] ?? null;
      if (visibleTo(a, achievedAt !== null)) achievements.push(userAchievementView(a, snapshot, achievedAt));
    }
    return {
      id: metric.id,
      key: metric.key,
      name: metric.name,
      status: metric.status,
      current: Number(h[totalField(metric.id)] ?? 0),
      unitType: metric.unitType,
      units: metric.units,
      achievements,
    };
  }

  const routes: Route[] = [
    {
      method: 'post', path: '/users', family: 'app', subject: 'id',
      handler: (req) => {
        const body = validateUpserted(parseJson(req.body));
        return identify(req, 'create', body.id, body);
      },
    },
    {
      method: 'put', path: '/users/:id', family: 'app', subject: 'path',
      handler: (req) => identify(req, 'upsert', req.params[0], validateIdentification(parseJson(req.body))),
    },
    {
      method: 'patch', path: '/users/:id', family: 'app', subject: 'path',
      handler: (req) => identify(req, 'update', req.params[0], validateIdentification(parseJson(req.body))),
    },
    {
      method: 'get', path: '/users/:id', family: 'app', subject: 'path',
      handler: async (req) => ok(userView(await loadUser(req))),
    },
    {
      method: 'get', path: '/users/:id/metrics', family: 'app', subject: 'path',
      handler: async (req) => {
        const h = await loadUser(req);
        return ok([...store.current.metrics.values()].filter((m) => m.status === 'active').map((m) => metricView(m, h)));
      },
    },
    {
      method: 'get', path: '/users/:id/metrics/:key', family: 'app', subject: 'path',
      handler: async (req) => {
        const metric = activeMetric(req.params[1]);
        return ok(metricView(metric, await loadUser(req)));
      },
    },
    {
      method: 'get', path: '/users/:id/metrics/:key/event-summary', family: 'app', subject: 'path',
      handler: async (req) => {
        const id = req.params[0];
        checkUserId(id);
        const metric = activeMetric(req.params[1]);
        const query = parseSummaryQuery(queryOf(req.query));
        const u = keys.forUser(principalOf(req).tenant, id);
        const [[e1, exists], [e2, fields]] = (await redis.pipeline().exists(u.user).hgetall(keys.userMetric(u, metric.id)).exec()) as [
          [Error | null, number], [Error | null, Record<string, string>],
        ];
        if (e1 || e2) throw e1 ?? e2;
        if (exists === 0) throw fail('user_not_found', id);
        return ok(eventSummary(fields, query));
      },
    },
    {
      method: 'get', path: '/users/:id/preferences', family: 'app', subject: 'path',
      handler: async (req) => ok(preferencesView(await loadUser(req))),
    },
    {
      method: 'patch', path: '/users/:id/preferences', family: 'app', subject: 'path',
      handler: async (req) => {
        const id = req.params[0];
        checkUserId(id);
        const body = validatePreferences(parseJson(req.body));
        return ok(preferencesView(await updatePreferences(deps, principalOf(req).tenant, id, body.notifications ?? {})));
      },
    },
  ];
  return routes;
}
