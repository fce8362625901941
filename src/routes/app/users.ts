/**
 * Users: explicit identification (POST, PUT, PATCH), reading a user, the user's metrics and their
 * event summaries, and preferences (notifications and streak).
 */
import { totalField, completionField } from '../../model/fields.js';
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { identifyUser, type IdentifyMode } from '../../engine/users/identify.js';
import { updatePreferences } from '../../engine/users/preferences.js';
import { fail } from '../../lib/errors.js';
import { json, ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Reply, Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import { checkUserId, identificationSchema, NOTIFICATION_TYPES, USER_ID_PARAM, preferencesView, prepareIdentification, upsertedUserSchema, userView, type Identification, type UpsertedUser, type UserHash } from '../../domain/users.js';
import { userAchievementView, visibleTo } from '../../domain/achievements.js';
import { eventSummary, parseSummaryQuery, SUMMARY_QUERY } from '../../domain/summary.js';
import type { Metric } from '../../model/entities.js';
import { isControl } from '../../domain/notifications/rules.js';
import type { Snapshot } from '../../model/snapshot.js';
import { userHash, userMetricHash } from '../../engine/users/read.js';
import type { StreakPreferences } from '../../domain/streaks/preferences.js';

const validateUpserted = compile<UpsertedUser>(upsertedUserSchema, { lenient: true });
const validateIdentification = compile<Identification>(identificationSchema, { lenient: true });

const channels = { type: ['array', 'null'], items: { enum: ['email', 'push'] }, uniqueItems: true };

/** The streak preferences a request sets (1.21.1 StreakPreferences); null: not given. */
interface StreakInput {
  enabled?: boolean | null;
  evaluationMode?: 'OR' | 'AND' | null;
  metrics?: { key: string; threshold: number }[] | null;
}

const validatePreferences = compile<{ notifications?: Record<string, string[]> | null; streak?: StreakInput | null }>({
  type: 'object',
  properties: {
    notifications: {
      type: ['object', 'null'],
      properties: Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, channels])),
      // Keyed by notification type: another key is a value refused, not a field ignored.
      additionalProperties: false,
    },
    streak: {
      type: ['object', 'null'],
      properties: {
        enabled: { type: ['boolean', 'null'] },
        evaluationMode: { enum: ['OR', 'AND', null] },
        metrics: {
          type: ['array', 'null'],
          minItems: 1,
          maxItems: 20,
          items: {
            type: 'object',
            required: ['key', 'threshold'],
            properties: { key: { type: 'string' }, threshold: { type: 'number', exclusiveMinimum: 0 } },
          },
        },
      },
    },
  },
}, { lenient: true });

/** The streak preferences a request sets, by metric id; null when it sets none. */
function streakPreferencesFrom(input: StreakInput | null | undefined, snapshot: Snapshot): StreakPreferences | null {
  if (input == null) return null;
  const prefs: StreakPreferences = {};
  if (input.enabled != null) prefs.enabled = input.enabled;
  if (input.evaluationMode != null) prefs.evaluation = input.evaluationMode === 'AND' ? 'all' : 'any';
  if (input.metrics != null) {
    const seen = new Set<string>();
    prefs.metrics = input.metrics.map(({ key, threshold }): [string, number] => {
      const metric = snapshot.metricsByKey.get(key);
      if (metric === undefined) throw fail('unprocessable', `streak.metrics: no metric has the key "${key}"`);
      if (seen.has(key)) throw fail('unprocessable', `streak.metrics: "${key}" is listed twice`);
      seen.add(key);
      return [metric.id, threshold];
    });
  }
  if (prefs.enabled === undefined && prefs.evaluation === undefined && prefs.metrics === undefined) return null;
  if (snapshot.streak === null) {
    throw fail('unprocessable', 'streak preferences need a streak rule: none is configured (PUT /admin/v1/streaks/settings)');
  }
  if (snapshot.streak.customizationEnabled === false) {
    throw fail('unprocessable', 'streak preferences are turned off: the streak settings\' customizationEnabled is false');
  }
  return prefs;
}

export function userRoutes(deps: Deps): Route[] {
  const { store } = deps;

  async function identify(req: Request, mode: IdentifyMode, id: string, user: Identification): Promise<Reply> {
    const { tenant } = principalOf(req);
    checkUserId(id);
    const ident = prepareIdentification(user, store.current);
    const { created, hash } = await identifyUser(deps, tenant, mode, id, user, ident);
    return json(created ? 201 : 200, userView(hash, isControl(store.current.notifications, tenant, hash)));
  }

  /** The user's hash; 404 when the user does not exist. */
  async function loadUser(req: Request): Promise<UserHash> {
    const id = req.params[0];
    checkUserId(id);
    const h = await userHash(deps, principalOf(req).tenant, id);
    if (h === null) throw fail('user_not_found', id);
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

  const user = { id: USER_ID_PARAM };
  const userAndMetric = { ...user, key: { schema: { type: 'string' }, description: 'The metric\'s key' } };
  const routes: Route[] = [
    {
      method: 'post', path: '/users', family: 'app', subject: 'id',
      doc: { summary: 'Create a user (an existing id is a 422)', body: { check: validateUpserted }, success: [201], refusals: [422] },
      handler: (req) => {
        const body = validateUpserted(parseJson(req.body));
        return identify(req, 'create', body.id, body);
      },
    },
    {
      method: 'put', path: '/users/:id', family: 'app', subject: 'path',
      doc: {
        summary: 'Create or update a user (201 when created)', params: user, body: { check: validateIdentification },
        success: [200, 201], refusals: [422],
      },
      handler: (req) => identify(req, 'upsert', req.params[0], validateIdentification(parseJson(req.body))),
    },
    {
      method: 'patch', path: '/users/:id', family: 'app', subject: 'path',
      doc: {
        summary: 'Update the fields given of an existing user', params: user, body: { check: validateIdentification },
        success: [200], refusals: [422],
      },
      handler: (req) => identify(req, 'update', req.params[0], validateIdentification(parseJson(req.body))),
    },
    {
      method: 'get', path: '/users/:id', family: 'app', subject: 'path',
      doc: { summary: 'Get a user', params: user, success: [200] },
      handler: async (req) => {
        const h = await loadUser(req);
        return ok(userView(h, isControl(store.current.notifications, principalOf(req).tenant, h)));
      },
    },
    {
      method: 'get', path: '/users/:id/metrics', family: 'app', subject: 'path',
      doc: { summary: 'The active metrics with the user\'s totals and their achievements', params: user, success: [200], malformed: 422 },
      handler: async (req) => {
        const h = await loadUser(req);
        return ok([...store.current.metrics.values()].filter((m) => m.status === 'active').map((m) => metricView(m, h)));
      },
    },
    {
      method: 'get', path: '/users/:id/metrics/:key', family: 'app', subject: 'path',
      doc: { summary: 'One metric with the user\'s total and its achievements', params: userAndMetric, success: [200], malformed: 422 },
      handler: async (req) => {
        const metric = activeMetric(req.params[1]);
        return ok(metricView(metric, await loadUser(req)));
      },
    },
    {
      method: 'get', path: '/users/:id/metrics/:key/event-summary', family: 'app', subject: 'path',
      doc: {
        summary: 'The user\'s total and change of a metric per day, week or month', params: userAndMetric, query: SUMMARY_QUERY,
        success: [200], malformed: 422, refusals: [422],
      },
      handler: async (req) => {
        const id = req.params[0];
        checkUserId(id);
        const metric = activeMetric(req.params[1]);
        const query = parseSummaryQuery(queryOf(req));
        const fields = await userMetricHash(deps, principalOf(req).tenant, id, metric.id);
        if (fields === null) throw fail('user_not_found', id);
        return ok(eventSummary(fields, query));
      },
    },
    {
      method: 'get', path: '/users/:id/preferences', family: 'app', subject: 'path',
      doc: { summary: 'The user\'s notification and streak preferences', params: user, success: [200], malformed: 422 },
      handler: async (req) => ok(preferencesView(await loadUser(req), store.current)),
    },
    {
      method: 'patch', path: '/users/:id/preferences', family: 'app', subject: 'path',
      doc: {
        summary: 'Change the user\'s notification preferences', params: user, body: { check: validatePreferences }, success: [200], malformed: 422,
      },
      handler: async (req) => {
        const id = req.params[0];
        checkUserId(id);
        const body = validatePreferences(parseJson(req.body));
        const snapshot = store.current;
        const streak = streakPreferencesFrom(body.streak, snapshot);
        return ok(preferencesView(await updatePreferences(deps, principalOf(req).tenant, id, body.notifications ?? {}, streak), snapshot));
      },
    },
  ];
  return routes;
}
