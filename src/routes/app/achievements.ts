/**
 * Achievements in the Application API: completing an `api` achievement, all achievements with
 * their statistics, and a user's achievements.
 */
import { principalOf } from '../../http/auth.js';
import type { Deps } from '../../engine/deps.js';
import { completeAchievement } from '../../engine/achievements/complete.js';
import { achievementView, completionId, userAchievementView, visibleTo, withStats } from '../../domain/achievements.js';
import { pointsChanges } from '../../domain/points/rules.js';
import { checkUserId, prepareIdentification, upsertedUserSchema, parseUserAttributes, USER_ATTRIBUTES_QUERY, USER_ID_PARAM, type UpsertedUser, type UserHash } from '../../domain/users.js';
import { fail } from '../../lib/errors.js';
import { json, ok } from '../../http/reply.js';
import { queryOf } from '../../http/query.js';
import type { Request, Route } from '../../http/server.js';
import { compile, parseJson } from '../../http/validate.js';
import { completionField, progressField, totalField } from '../../model/fields.js';
import type { Achievement } from '../../model/entities.js';
import type { Snapshot } from '../../model/snapshot.js';
import { userHash, userMetricField } from '../../engine/users/read.js';
import type { AchievementStatsView, UserAchievementStatsView, UserAchievementView } from '../../model/views.js';

const validateCompletion = compile<{ user: UpsertedUser }>({
  type: 'object', required: ['user'], properties: { user: upsertedUserSchema },
}, { lenient: true });

/** Whether a user with the given attribute values could earn the achievement. */
function couldEarn(a: Achievement, snapshot: Snapshot, attributes: Map<string, string>): boolean {
  return a.userAttributes.every((f) => {
    const key = snapshot.attributes.get(f.attributeId)?.key;
    return key !== undefined && attributes.get(key) === f.attributeValue;
  });
}

export function achievementRoutes(deps: Deps): Route[] {
  const { store, stats } = deps;

  async function completeApi(req: Request) {
    const { tenant } = principalOf(req);
    const snapshot = store.current;
    const key = req.params[0];
    const achievement = snapshot.achievementsByKey.get(key);
    if (!achievement || achievement.status === 'inactive' || achievement.status === 'archived') {
      throw fail('not_found', `Achievement "${key}"`);
    }
    if (achievement.trigger !== 'api') {
      throw fail('unprocessable', `Achievement "${key}" completes on its ${achievement.trigger} trigger, not through the API`);
    }
    const body = validateCompletion(parseJson(req.body));
    const user = body.user;
    const ident = prepareIdentification(user, snapshot);
    const plan = snapshot.singlePlan(achievement);
    if (plan === null) throw fail('unprocessable', `Achievement "${key}" filters on an attribute that no longer exists`);
    const done = await completeAchievement(deps, tenant, achievement, plan, user, ident);
    const points = pointsChanges(snapshot, done.awards, tenant, user.id, done.now);
    return json(201, completionReply(achievement, snapshot, tenant, user.id, done.achievedAt, points));
  }

  function completionReply(
    a: Achievement, snapshot: Snapshot, tenant: string, userId: string, achievedAt: string, points: Record<string, unknown> = {},
  ) {
    return { completionId: completionId(tenant, userId, a.id), achievement: userAchievementView(a, snapshot, achievedAt), points };
  }

  async function userAchievements(req: Request) {
    const { tenant } = principalOf(req);
    const id = req.params[0];
    checkUserId(id);
    const snapshot = store.current;
    const h = await userHash(deps, tenant, id);
    if (h === null) throw fail('user_not_found', id);
    const includeIncomplete = queryOf(req).bool('includeIncomplete');
    const tenantStats = await stats.get(tenant);
    const done: { view: UserAchievementView; at: string }[] = [];
    const open: Achievement[] = [];
    for (const a of snapshot.achievements.values()) {
      const achievedAt = h[completionField(a.id)];
      if (!visibleTo(a, achievedAt !== undefined)) continue;
      if (achievedAt !== undefined) done.push({ view: userAchievementView(a, snapshot, achievedAt), at: achievedAt });
      else if (includeIncomplete) open.push(a);
    }
    done.sort((x, y) => x.at.localeCompare(y.at));
    const list: UserAchievementStatsView[] = done.map((d) => withStats(d.view, tenantStats));
    if (open.length > 0) {
      const progress = await progressOf(tenant, id, h, open);
      for (const a of open) {
        list.push({ ...withStats(userAchievementView(a, snapshot, null), tenantStats), ...progress.get(a.id) });
      }
    }
    return ok(list);
  }

  /** Progress of incomplete metric achievements: the total, or the filtered events' sum. */
  async function progressOf(tenant: string, id: string, h: UserHash, open: Achievement[]) {
    const out = new Map<string, { progress: { current: number; target: number } }>();
    for (const a of open) {
      if (a.trigger !== 'metric' || a.metricId === null) continue;
      const current = a.eventAttributes.length > 0
        ? Number((await userMetricField(deps, tenant, id, a.metricId, progressField(a.id))) ?? 0)
        : Number(h[totalField(a.metricId)] ?? 0);
      out.set(a.id, { progress: { current, target: a.metricValue ?? 0 } });
    }
    return out;
  }

  async function all(req: Request) {
    const { tenant } = principalOf(req);
    const snapshot = store.current;
    const filter = parseUserAttributes(queryOf(req).get('userAttributes'), snapshot);
    const tenantStats = await stats.get(tenant);
    const list: AchievementStatsView[] = [];
    for (const a of snapshot.achievements.values()) {
      if (a.status !== 'active') continue;
      if (filter !== null && !couldEarn(a, snapshot, filter)) continue;
      list.push(withStats(achievementView(a, snapshot), tenantStats));
    }
    return ok(list);
  }

  return [
    {
      method: 'post', path: '/achievements/:key/complete', family: 'app', subject: 'user.id', handler: completeApi,
      doc: {
        summary: 'Complete an achievement with the api trigger for a user (again: the first completion)',
        params: { key: { schema: { type: 'string' }, description: 'The achievement\'s key' } },
        body: { check: validateCompletion }, success: [201], malformed: 422, refusals: [422],
      },
    },
    {
      method: 'get', path: '/achievements', family: 'app', subject: 'shared', handler: all,
      doc: {
        summary: 'The active achievements with their completions and rarity', query: [USER_ATTRIBUTES_QUERY],
        success: [200], malformed: 422, refusals: [422],
      },
    },
    {
      method: 'get', path: '/users/:id/achievements', family: 'app', subject: 'path', handler: userAchievements,
      doc: {
        summary: 'The user\'s achievements', params: { id: USER_ID_PARAM },
        query: [{ name: 'includeIncomplete', schema: { type: 'boolean', default: false }, description: 'true adds the others, with their progress' }],
        success: [200], malformed: 422,
      },
    },
  ];
}
