/**
 * Admin API: corrections after the fact (laurel's own; docs/api.md, "Fair play: voiding an event
 * and revoking an achievement"). `POST /admin/v1/events/void` voids events by the ids their
 * answers gave (src/engine/fairplay/void.ts), answering `{ voided, issues }` in the style of the
 * Admin API's batch writes: an event not found, voided already or whose metric or user is gone is
 * an issue of its item, not an HTTP error. `DELETE /admin/v1/users/{id}/achievements/{key}` revokes
 * a completion (src/engine/fairplay/revoke.ts). `PUT`, `DELETE` and `GET
 * /admin/v1/users/{id}/exclusion` exclude a user from every ranking, end the exclusion and read it
 * (src/engine/fairplay/exclude.ts; docs/api.md, "Fair play: excluding a user"). A key bound to a
 * tenant reaches its tenant's events and users only.
 */
import type { Deps } from '../../engine/deps.js';
import { voidEvents, type VoidItem } from '../../engine/fairplay/void.js';
import { revokeCompletion } from '../../engine/fairplay/revoke.js';
import { excludeUser, includeUser, readExclusion } from '../../engine/fairplay/exclude.js';
import { checkUserId, USER_ID_MAX, USER_ID_PARAM } from '../../domain/users.js';
import { principalOf } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import type { Request, Route } from '../../http/server.js';
import { compile, parseJson, refuseBody } from '../../http/validate.js';
import { fail } from '../../lib/errors.js';
import { ISSUE_SCHEMA, MAX_BATCH } from './resource.js';

const validateVoid = compile<VoidItem[]>({
  type: 'array', minItems: 1, maxItems: MAX_BATCH,
  items: {
    type: 'object', required: ['eventId', 'reason'],
    properties: {
      eventId: { type: 'string', minLength: 1, maxLength: 64, description: 'The eventId the event\'s answer gave' },
      reason: { type: 'string', minLength: 1, maxLength: 500, description: 'Why, kept in the log and sent with event.voided' },
      userId: {
        type: 'string', minLength: 1, maxLength: USER_ID_MAX,
        description: 'The event\'s user, when known: the lookup reads that user\'s partition only (and an event of another user is not found)',
      },
    },
  },
});

const validateExclusion = compile<{ reason: string }>({
  type: 'object', required: ['reason'],
  properties: { reason: { type: 'string', minLength: 1, maxLength: 500, description: 'Why, kept in the log and sent with user.excluded' } },
});

const EXCLUSION_SCHEMA = {
  type: 'object', required: ['userId', 'excluded', 'reason', 'excludedAt'],
  properties: {
    userId: { type: 'string' }, excluded: { type: 'boolean' },
    reason: { type: ['string', 'null'], description: 'The reason given; null when not excluded' },
    excludedAt: { type: ['string', 'null'], format: 'date-time', description: 'When the exclusion started; null when not excluded' },
  },
};

const VOIDED_SCHEMA = {
  type: 'object', required: ['eventId', 'userId', 'metric', 'date', 'value', 'total', 'points'],
  properties: {
    eventId: { type: 'string' }, userId: { type: 'string' }, metric: { type: 'string', description: 'The metric\'s key' },
    date: { type: 'string', format: 'date', description: 'The event\'s day on the user\'s clock' },
    value: { type: 'number', description: 'Taken off the total: the part of the event\'s value that counted' },
    total: { type: 'number', description: 'The metric\'s total after' },
    points: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Points taken back, by system key (negative)' },
  },
};

export function adminFairPlayRoutes(deps: Deps): Route[] {
  async function voidHandler(req: Request) {
    const { tenant } = principalOf(req);
    const items = validateVoid(parseJson(req.body));
    return ok(await voidEvents(deps, tenant, items));
  }

  async function revoke(req: Request) {
    refuseBody(req.body);
    const { tenant } = principalOf(req);
    const [userId, key] = req.params;
    checkUserId(userId);
    const achievement = deps.store.current.achievementsByKey.get(key);
    if (achievement === undefined) throw fail('not_found', `Achievement "${key}"`);
    const revoked = await revokeCompletion(deps, tenant, userId, achievement.id);
    if (revoked === 'unknown_user') throw fail('user_not_found', userId);
    if (revoked === 'not_completed') throw fail('not_found', `A completion of achievement "${key}" by user "${userId}"`);
    return ok({ userId, achievement: key, revokedAt: revoked });
  }

  async function exclude(req: Request) {
    const { tenant } = principalOf(req);
    const [userId] = req.params;
    checkUserId(userId);
    const { reason } = validateExclusion(parseJson(req.body));
    const done = await excludeUser(deps, tenant, userId, reason);
    if (done === null) throw fail('user_not_found', userId);
    return ok(done.view);
  }

  async function include(req: Request) {
    refuseBody(req.body);
    const { tenant } = principalOf(req);
    const [userId] = req.params;
    checkUserId(userId);
    const included = await includeUser(deps, tenant, userId);
    if (included === 'unknown_user') throw fail('user_not_found', userId);
    if (included === 'not_excluded') throw fail('not_found', `An exclusion of user "${userId}"`);
    return ok({ userId, excluded: false, includedAt: included });
  }

  async function exclusion(req: Request) {
    const { tenant } = principalOf(req);
    const [userId] = req.params;
    checkUserId(userId);
    const view = await readExclusion(deps, tenant, userId);
    if (view === null) throw fail('user_not_found', userId);
    return ok(view);
  }

  const exclusionParams = { id: USER_ID_PARAM };

  return [
    {
      method: 'post', path: '/events/void', family: 'admin', reach: 'tenant', handler: voidHandler,
      doc: {
        summary: 'Void events: what they counted and the points they awarded taken back, the boards moved',
        description: 'Each event found by its id in the logs Redis holds, then in the Postgres archive (every partition\'s, '
          + 'or the user\'s when `userId` is given). Achievements and streak periods it completed stay; finalised runs keep '
          + 'their rankings. Voiding an event again changes nothing (an issue says so).',
        body: { check: validateVoid }, success: [200], refusals: [503], tenant: true,
        response: {
          type: 'object', required: ['voided', 'issues'],
          properties: { voided: { type: 'array', items: VOIDED_SCHEMA }, issues: { type: 'array', items: ISSUE_SCHEMA } },
        },
      },
    },
    {
      method: 'del', path: '/users/:id/achievements/:key', family: 'admin', reach: 'tenant', handler: revoke,
      doc: {
        summary: 'Revoke a user\'s completion of an achievement',
        description: 'The completion leaves the user, rarity and the completion count move; points an achievement trigger '
          + 'awarded for it stay. A metric achievement is completed again by the next event that takes the total across its threshold.',
        params: { id: USER_ID_PARAM, key: { schema: { type: 'string' }, description: 'The achievement\'s key' } },
        success: [200], refusals: [404], tenant: true,
        response: {
          type: 'object', required: ['userId', 'achievement', 'revokedAt'],
          properties: { userId: { type: 'string' }, achievement: { type: 'string' }, revokedAt: { type: 'string', format: 'date-time' } },
        },
      },
    },
    {
      method: 'put', path: '/users/:id/exclusion', family: 'admin', reach: 'tenant', handler: exclude,
      doc: {
        summary: 'Exclude a user from every leaderboard, league and streak ranking',
        description: 'The user leaves every ranking whose run is not finalised at once, and is placed on none while excluded; '
          + 'their events still count toward their own totals, streak, achievements and points. Finalised runs keep their '
          + 'rankings and winners. Excluding an excluded user keeps the exclusion as it was (its reason and time) and takes '
          + 'the user off the rankings again.',
        params: exclusionParams, body: { check: validateExclusion }, success: [200], refusals: [404], tenant: true, response: EXCLUSION_SCHEMA,
      },
    },
    {
      method: 'del', path: '/users/:id/exclusion', family: 'admin', reach: 'tenant', handler: include,
      doc: {
        summary: 'End a user\'s exclusion from the rankings',
        description: 'Nobody is placed at once: the user re-enters each ranking with their next event that ranks there. '
          + '404 when the user is not excluded.',
        params: exclusionParams, success: [200], refusals: [404], tenant: true,
        response: {
          type: 'object', required: ['userId', 'excluded', 'includedAt'],
          properties: { userId: { type: 'string' }, excluded: { type: 'boolean', const: false }, includedAt: { type: 'string', format: 'date-time' } },
        },
      },
    },
    {
      method: 'get', path: '/users/:id/exclusion', family: 'admin', reach: 'tenant', handler: exclusion,
      doc: {
        summary: 'Whether a user is excluded from the rankings, since when and why',
        params: exclusionParams, success: [200], refusals: [404], tenant: true, response: EXCLUSION_SCHEMA,
      },
    },
  ];
}
